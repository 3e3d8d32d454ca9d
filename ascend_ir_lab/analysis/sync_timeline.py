"""The sync checker over a Timeline: which Dumps to check, and their findings."""

from __future__ import annotations

from collections.abc import Iterable

from ascend_ir_lab.analysis.sync_check import check_sync
from ascend_ir_lab.analysis.sync_findings import SyncCheck
from ascend_ir_lab.analysis.sync_ops import SYNC_ROLES, full_name
from ascend_ir_lab.dumps import Dump, Timeline

__all__ = ["SYNC_PASSES", "check_timeline", "final_hivm", "sync_targets"]

SYNC_PASSES = ("hivm-graph-sync-solver", "hivm-inject-sync")
LOWERING = "convert-hivm-to-std"
# the ops a sync pass places (a wait_flag never comes without its set_flag)
_SYNC_TEXT = tuple(full_name(op).encode() for op, role in SYNC_ROLES.items() if role != "wait")


def final_hivm(tl: Timeline) -> Dump | None:
    """The last Dump of HIVM ops with their sync: before convert-hivm-to-std turns the
    compute ops into library calls (whose own waits and sets the checker cannot see)."""
    found = None
    seen: dict[int, bool] = {}  # a snapshot's answer, once
    for d in tl.dumps:
        if d.label == LOWERING:
            break
        if d.phase == "failed":
            continue
        snap = tl.snapshot(d)
        has = seen.get(snap)
        if has is None:
            has = seen[snap] = any(tl.contains(d, t) for t in _SYNC_TEXT)
        if has:
            found = d
    return found


def sync_targets(tl: Timeline) -> list[Dump]:
    """The Dumps right after each sync pass that changed its function, and the final IR."""
    out = [d for d in tl.dumps if d.label in SYNC_PASSES and d.phase != "failed" and tl.changed(d)]
    final = final_hivm(tl)
    if final is not None and final not in out:
        out.append(final)
    return out


def check_timeline(tl: Timeline, dumps: Iterable[Dump] | None = None) -> dict[int, SyncCheck]:
    """Findings per Dump index (the sync targets by default); a function-scope Dump is
    checked on its function only."""
    source = ((tl.run or {}).get("kernel") or {}).get("file")
    chosen = sync_targets(tl) if dumps is None else list(dumps)
    # A pipeline prints the same IR again and again: check each (snapshot, scope) once.
    done: dict[tuple[int, str], SyncCheck] = {}
    out = {}
    for d in chosen:
        key = (tl.snapshot(d), d.scope)
        if key not in done:
            done[key] = check_sync(tl.lines(d), scope=d.scope, source_file=source)
        out[d.index] = done[key]
    return out
