"""The sync checker over a Timeline: which Dumps to check, and their findings."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Generic, TypeVar

from ascend_ir_lab.analysis.sync_check import check_sync
from ascend_ir_lab.analysis.sync_findings import SyncCheck
from ascend_ir_lab.analysis.sync_ops import SYNC_ROLES, full_name
from ascend_ir_lab.dumps import Dump, Timeline

__all__ = ["SYNC_PASSES", "check_timeline", "final_hivm", "sync_targets"]

SYNC_PASSES = ("hivm-graph-sync-solver", "hivm-inject-sync")
LOWERING = "convert-hivm-to-std"
T = TypeVar("T")
# the ops a sync pass places (a wait_flag never comes without its set_flag)
_SYNC_TEXT = tuple(full_name(op).encode() for op, role in SYNC_ROLES.items() if role != "wait")


def final_hivm(tl: Timeline) -> Dump | None:
    """The last Dump of HIVM ops with their sync: before convert-hivm-to-std turns the
    compute ops into library calls (whose own waits and sets the checker cannot see).

    Looked for from that pass backwards, each IR read once (`_Seen`): the last Dumps
    before it usually hold the sync, and the rest of the log is not read."""
    stop = next((k for k, d in enumerate(tl.dumps) if d.label == LOWERING), len(tl.dumps))
    seen: _Seen[bool] = _Seen(tl)
    for d in reversed(tl.dumps[:stop]):
        if d.phase == "failed":
            continue
        has = seen.get(d)
        if has is None:
            has = seen.put(d, any(tl.contains(d, t) for t in _SYNC_TEXT))
        if has:
            return d
    return None


def sync_targets(tl: Timeline) -> list[Dump]:
    """The Dumps right after each sync pass that changed its function, and the final IR."""
    out = [
        d for d in tl.dumps
        if d.label in SYNC_PASSES and d.phase != "failed" and tl.change_state(d) == "changed"
    ]  # fmt: skip
    final = final_hivm(tl)
    if final is not None and final not in out:
        out.append(final)
    return out


def check_timeline(tl: Timeline, dumps: Iterable[Dump] | None = None) -> dict[int, SyncCheck]:
    """Findings per Dump index (the sync targets by default); a function-scope Dump is
    checked on its function only."""
    source = ((tl.run or {}).get("kernel") or {}).get("file")
    chosen = sync_targets(tl) if dumps is None else list(dumps)
    # A pipeline prints the same IR again and again: check each (IR, scope) once.
    done: _Seen[SyncCheck] = _Seen(tl)
    out = {}
    for d in chosen:
        found = done.get(d)
        if found is None:
            found = done.put(d, check_sync(tl.lines(d), scope=d.scope, source_file=source))
        out[d.index] = found
    return out


class _Seen(Generic[T]):
    """A value per (IR, scope) of a Timeline's Dumps: the IR compared byte for byte
    (`Timeline.same_ir`) with the few Dumps of its length and scope met before."""

    def __init__(self, tl: Timeline) -> None:
        self._tl = tl
        self._met: dict[tuple[int, str], list[tuple[Dump, T]]] = {}

    def get(self, d: Dump) -> T | None:
        for other, value in self._met.get((d.body_end - d.body_start, d.scope), ()):
            if self._tl.same_ir(other, d):
                return value
        return None

    def put(self, d: Dump, value: T) -> T:
        self._met.setdefault((d.body_end - d.body_start, d.scope), []).append((d, value))
        return value
