"""The Timeline: the ordered Dumps of one compilation, with per-scope predecessors.

Reading only indexes offsets. Snapshots (content hashes), line counts and interned lines are
computed on first use, once, and cached.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any

from ascend_ir_lab.dumps.blocks import BlockText
from ascend_ir_lab.dumps.model import Dump, LogInfo, Message
from ascend_ir_lab.errors import InputError

if TYPE_CHECKING:
    from ascend_ir_lab.dumps.index_cache import SnapshotStore

_CROWDED = 4  # distinct snapshots of one length before CRC-32 sorts that length's Dumps
_WHICH = re.compile(r"^(?P<name>.+?)(?:\[?#(?P<k>-?\d+)\]?)?$")


class Timeline:
    """Ordered Dumps across the Stages of one Run (or one log), plus messages and warnings."""

    def __init__(
        self,
        logs: Sequence[tuple[LogInfo, bytes]],
        dumps: Sequence[Dump],
        messages: Sequence[Message] = (),
        warnings: Sequence[str] = (),
        *,
        title: str = "",
        run: dict[str, Any] | None = None,
        path: str = "",
        kept_snapshots: SnapshotStore | None = None,
    ) -> None:
        self.logs = [info for info, _ in logs]
        self._data = [data for _, data in logs]
        self.dumps = list(dumps)
        self.messages = list(messages)
        self.warnings = list(warnings)
        self.title = title
        self.run = run
        self.path = path
        self._snap: list[int] | None = None
        self._timings: dict[int, float] | None = None
        self._prev: list[int] | None = None
        self._next: list[int] | None = None
        self._states: list[str] | None = None
        self._line_counts: dict[int, int] = {}
        self._table: list[str] = []
        self._line_ids: dict[str, int] = {}
        self._snapshot_ids: dict[int, list[int]] = {}
        # Where snapshot ids found before are kept (`index_cache.SnapshotStore`), or None.
        self._kept_snapshots = kept_snapshots

    # -- stages ----------------------------------------------------------------------------
    @property
    def stages(self) -> list[str]:
        """Stage names in the order they first appear."""
        return list(dict.fromkeys([d.stage for d in self.dumps] + [i.stage for i in self.logs]))

    def __len__(self) -> int:
        return len(self.dumps)

    def __repr__(self) -> str:
        changed = sum(self.changed_flags())
        return (
            f"<Timeline {self.title or self.path!r}: {len(self.dumps)} dumps, {changed} changed, "
            f"stages {', '.join(self.stages)}>"
        )

    # -- text ------------------------------------------------------------------------------
    def raw(self, dump: Dump | int) -> bytes:
        """The IR bytes of a Dump, exactly as printed."""
        d = self._dump(dump)
        return bytes(self._data[d.log_id][d.body_start : d.body_end])

    def text(self, dump: Dump | int) -> str:
        """The IR text of a Dump."""
        return self.raw(dump).decode("utf-8", "replace")

    def lines(self, dump: Dump | int) -> list[str]:
        """The IR lines of a Dump, without line ends."""
        return self.text(dump).splitlines()

    def line_count(self, dump: Dump | int) -> int:
        """Number of IR lines of a Dump (counted once per snapshot)."""
        d = self._dump(dump)
        snap = (self._snap or self._snapshots())[d.index]
        n = self._line_counts.get(snap)
        if n is None:
            raw = self.raw(d)
            n = raw.count(b"\n") + (1 if raw and not raw.endswith(b"\n") else 0)
            self._line_counts[snap] = n
        return n

    def line_ids(self, dump: Dump | int) -> list[int]:
        """The Dump's lines as ids into `line_table`; each distinct line is stored once."""
        snap = self.snapshot(dump)
        cached = self._snapshot_ids.get(snap)
        if cached is None:
            ids = self._line_ids
            add = ids.setdefault  # a new line gets the next id: the table's order is the dict's
            cached = self._snapshot_ids[snap] = [add(line, len(ids)) for line in self.lines(dump)]
        return cached

    @property
    def line_table(self) -> list[str]:
        """Every distinct line `line_ids` has met, each at its id."""
        table, ids = self._table, self._line_ids
        if len(table) < len(ids):
            table.extend(islice(ids, len(table), None))
        return table

    def contains(self, dump: Dump | int, text: bytes) -> bool:
        """Whether the Dump's IR holds `text` (searched in place, nothing copied)."""
        d = self._dump(dump)
        return self._data[d.log_id].find(text, d.body_start, d.body_end) >= 0

    def log_bytes(self, log_id: int) -> bytes:
        """The whole text of one log, as read."""
        return bytes(self._data[log_id])

    # -- snapshots and predecessors ---------------------------------------------------------
    def snapshot(self, dump: Dump | int) -> int:
        """Snapshot id: equal ids mean identical IR (byte for byte; found by length and CRC-32)."""
        index = dump if isinstance(dump, int) else dump.index
        return (self._snap or self._snapshots())[index]

    def snapshot_ids(self) -> list[int]:
        """`snapshot` of every Dump, by Dump index (the Timeline's own list: do not change it)."""
        return self._snapshots()

    def neighbours(self) -> tuple[list[int], list[int]]:
        """For every Dump, by index, the index of its `previous` and of its `following`
        Dump (-1: none); the Timeline's own lists: do not change them."""
        return self._links()

    def snapshot_count(self) -> int:
        """How many distinct snapshots the Timeline holds."""
        return len(set(self._snapshots()))

    def _snapshots(self) -> list[int]:
        if self._snap is None and self._kept_snapshots is not None:
            self._snap = self._kept_snapshots.get(len(self.dumps))
            if self._snap is not None:
                return self._snap
        if self._snap is None:
            views = [
                data if isinstance(data, BlockText) else memoryview(data) for data in self._data
            ]
            try:
                self._snap = _identify(self.dumps, self._data, views)
            finally:
                for view in views:
                    if isinstance(view, memoryview):
                        view.release()
            if self._kept_snapshots is not None:
                self._kept_snapshots.keep(self._snap)
        return self._snap

    def _links(self) -> tuple[list[int], list[int]]:
        if self._prev is None or self._next is None:
            # Pipeliner-internal dumps are snapshots inside one pass: each follows the state
            # before it, but the pass's own output follows the state before the pass.
            last: dict[tuple[str, str], int] = {}
            last_any: dict[tuple[str, str], int] = {}
            prev = [-1] * len(self.dumps)
            nxt = [-1] * len(self.dumps)
            for d in self.dumps:
                key = (d.stage, d.holds or d.scope)
                q = last_any.get(key, -1)
                if d.family == "mlir-internal":
                    prev[d.index] = q
                    if q >= 0 and self.dumps[q].family == "mlir-internal":
                        nxt[q] = d.index
                    last_any[key] = d.index
                    continue
                p = last.get(key, -1)
                prev[d.index] = p
                for k in (p, q):
                    if k >= 0:
                        nxt[k] = d.index
                last[key] = last_any[key] = d.index
            self._prev, self._next = prev, nxt
        return self._prev, self._next

    def previous(self, dump: Dump | int) -> Dump | None:
        """The previous Dump of the same scope in the same stage.

        Under module-scope printing every Dump holds the whole module, so the previous state
        is the previous module Dump, whichever pass's scope its header names.
        """
        p = self._links()[0][self._dump(dump).index]
        return self.dumps[p] if p >= 0 else None

    def following(self, dump: Dump | int) -> Dump | None:
        """The next Dump of the same scope in the same stage."""
        n = self._links()[1][self._dump(dump).index]
        return self.dumps[n] if n >= 0 else None

    def change(self, dump: Dump | int) -> tuple[Dump | None, Dump | None]:
        """(old, new): the two states that show what this Dump's pass did to its scope.

        After-dumps compare with the scope's previous state; before-dumps (upstream Triton
        prints only those) with the scope's next state, which is the pass's output.
        """
        d = self._dump(dump)
        if d.phase == "before":
            return d, self.following(d)
        return self.previous(d), d

    def changed(self, dump: Dump | int) -> bool:
        """Whether the pass changed its scope (the first Dump of a scope counts as changed)."""
        return self.change_states()[self._dump(dump).index] == "changed"

    def changed_flags(self) -> list[bool]:
        """`changed` for every Dump, computed in one pass ("unknown" reads as False)."""
        return [s == "changed" for s in self.change_states()]

    def change_states(self) -> list[str]:
        """For every Dump: "changed", "unchanged", or "unknown" where the log cannot say.

        Unknown: a before-dump that no later state of its scope follows (the last MLIR dump
        before an LLVM section, a before-only stage without its artifact), and the initial IR
        (`IR Dump At Start`), which no pass made. The first after-dump of a scope counts as
        changed.
        """
        if self._states is None:
            snap = self._snapshots()
            prev, nxt = self._links()
            states = []
            for d in self.dumps:
                if d.phase == "start":
                    states.append("unknown")
                    continue
                if d.holds.startswith("diff of "):  # `-print-changed=diff` prints changes only
                    states.append("changed")
                    continue
                if d.holds == "no IR":  # a header with no IR after it shows no state
                    states.append("unknown")
                    continue
                other = nxt[d.index] if d.phase == "before" else prev[d.index]
                if other < 0:
                    states.append("unknown" if d.phase == "before" else "changed")
                else:
                    states.append("unchanged" if snap[other] == snap[d.index] else "changed")
            self._states = states
        return self._states

    # -- timings ---------------------------------------------------------------------------
    def timings(self) -> dict[int, float]:
        """`seconds` of every Dump that has one, by Dump index."""
        if self._timings is None:
            self._timings = self._match_timings()
        return self._timings

    def seconds(self, dump: Dump | int) -> float | None:
        """The pass's time where the tool reported one (a Run stage's `timings`), else None.

        Timings are keyed by pass argument, `arg#k` for its k-th run in the stage.
        """
        if self._timings is None:
            self._timings = self._match_timings()
        return self._timings.get(self._dump(dump).index)

    def _match_timings(self) -> dict[int, float]:
        # A report counts a pass nested under a function pipeline once, however many
        # functions it ran on: consecutive Dumps of one pass on other scopes are that one run.
        stages = {s.get("name"): s.get("timings") or {} for s in (self.run or {}).get("stages", [])}
        if not any(stages.values()):
            return {}
        seen: dict[tuple[str, str], int] = {}
        out: dict[int, float] = {}
        last: Dump | None = None
        for d in self.dumps:
            table = stages.get(d.stage)
            same_run = last is not None and (last.stage, last.label) == (d.stage, d.label)
            last = d
            if not table or d.phase == "artifact" or same_run:
                continue
            k = seen[(d.stage, d.label)] = seen.get((d.stage, d.label), 0) + 1
            value = table.get(d.label if k == 1 else f"{d.label}#{k}")
            if isinstance(value, int | float):
                out[d.index] = float(value)
        return out

    # -- selection -------------------------------------------------------------------------
    def select(self, which: str | int) -> Dump:
        """A Dump by index (`12`, `-1`), `first`, `last`, or `[stage:]pass[#k]` (k from 1)."""
        if not self.dumps:
            raise InputError("the timeline has no dumps")
        if isinstance(which, int) or str(which).lstrip("-").isdigit():
            i = int(which)
            if not -len(self.dumps) <= i < len(self.dumps):
                raise InputError(f"dump index {i} out of range 0..{len(self.dumps) - 1}")
            return self.dumps[i]
        which = str(which).strip()
        if which in ("last", "first"):
            return self.dumps[-1 if which == "last" else 0]
        return self._select_pass(which)

    def _select_pass(self, which: str) -> Dump:
        m = _WHICH.match(which)
        assert m is not None
        name = m["name"]
        hits = self.occurrences(which)
        if m["k"] is None:
            return preferred_occurrence(hits, self.changed_flags())
        k = int(m["k"])
        if not -len(hits) <= (k - 1 if k > 0 else k) < len(hits) or k == 0:
            raise InputError(f"pass {name!r} runs {len(hits)} times; #{k} does not exist")
        return hits[k - 1 if k > 0 else k]

    def occurrences(self, which: str) -> list[Dump]:
        """Every Dump of the pass `[stage:]pass` names (an occurrence `#k` is ignored)."""
        m = _WHICH.match(str(which).strip())
        assert m is not None
        name, stage = m["name"], None
        head, sep, rest = name.partition(":")
        if sep and head in self.stages:
            stage, name = head, rest
        hits = [d for d in self.dumps if self._matches(d, name, stage)]
        if not hits:
            raise InputError(f"no dump of pass {name!r}" + (f" in stage {stage}" if stage else ""))
        return hits

    def selection_note(self, which: str | int) -> str:
        """For a bare pass name run more than once: which occurrence `select` took and what
        the others were ("" otherwise)."""
        text = str(which).strip()
        m = _WHICH.match(text)
        if isinstance(which, int) or text.lstrip("-").isdigit() or text in ("last", "first"):
            return ""
        if m is None or m["k"] is not None:
            return ""
        hits = self.occurrences(text)
        if len(hits) < 2:
            return ""
        chosen, flags = self.select(text), self.changed_flags()

        def describe(k: int, d: Dump) -> str:
            what = "changed it" if flags[d.index] else "no change"
            return f"#{k} (dump {d.index}, {d.scope}, {what})"

        others = [describe(k, d) for k, d in enumerate(hits, 1) if d is not chosen]
        if len(others) > 6:
            others = [*others[:6], f"... {len(others) - 6} more"]
        k = hits.index(chosen) + 1
        return f"{chosen.label}: took {describe(k, chosen)} of {len(hits)}; others: " + ", ".join(
            others
        )

    @staticmethod
    def _matches(d: Dump, name: str, stage: str | None) -> bool:
        if stage is not None and d.stage != stage:
            return False
        low = name.lower()
        return d.arg.lower() == low or d.pass_name.lower() == low

    def occurrence(self, dump: Dump | int) -> int:
        """k such that `select(f"{label}#{k}")` is this Dump."""
        d = self._dump(dump)
        return 1 + sum(1 for e in self.dumps[: d.index] if e.label == d.label)

    def _dump(self, dump: Dump | int) -> Dump:
        return self.dumps[dump] if isinstance(dump, int) else dump


def _identify(dumps: Sequence[Dump], data: Sequence[Any], views: Sequence[Any]) -> list[int]:
    """Snapshot id of every Dump: equal ids mean identical bytes.

    Dumps are grouped by length and compared byte for byte (in place, no copy) with the few
    distinct snapshots of their length seen so far; a length that many distinct snapshots
    share is sorted by CRC-32 first, so no Dump is compared with more than a handful.
    """
    by_length: dict[int, list[tuple[Dump, int]]] = {}
    by_crc: dict[tuple[int, int], list[tuple[Dump, int]]] = {}
    crowded: set[int] = set()

    def crc(d: Dump) -> int:
        return zlib.crc32(views[d.log_id][d.body_start : d.body_end])

    blocks = [isinstance(view, BlockText) for view in views]

    def same(rep: Dump, d: Dump) -> bool:
        a, b = views[rep.log_id], data[d.log_id]
        if blocks[rep.log_id] or blocks[d.log_id]:
            return bool(a[rep.body_start : rep.body_end] == b[d.body_start : d.body_end])
        start = d.body_start  # a find whose haystack is as long as its needle is one memcmp
        return b.find(a[rep.body_start : rep.body_end], start, d.body_end) == start  # type: ignore[no-any-return]

    snap: list[int] = []
    count = 0
    for d in dumps:
        n = d.body_end - d.body_start
        members = (
            by_crc.setdefault((n, crc(d)), []) if n in crowded else by_length.setdefault(n, [])
        )
        sid = -1
        for rep, i in members:  # usually one: the Dumps of one length are one snapshot
            if same(rep, d):
                sid = i
                break
        if sid < 0:
            sid, count = count, count + 1
            members.append((d, sid))
            if n not in crowded and len(members) > _CROWDED:
                crowded.add(n)
                for rep, i in by_length.pop(n):
                    by_crc.setdefault((n, crc(rep)), []).append((rep, i))
        snap.append(sid)
    return snap


_HELPER = re.compile(r"_infer_\w*_function$|_host\w*$|^_")


def _kernel_function(scope: str) -> int:
    """2: a half of a mix kernel (`_mix_aic`/`_mix_aiv`); 1: another device function; 0:
    a helper (`_infer_task_type_function`...) or not a function."""
    op, _, symbol = scope.partition(" @")
    if not symbol or op == "builtin.module":
        return 0
    if symbol.endswith(("_mix_aic", "_mix_aiv")):
        return 2
    return 0 if _HELPER.search(symbol) else 1


def preferred_occurrence(hits: Sequence[Dump], changed: Sequence[bool]) -> Dump:
    """What a bare pass name means: the first occurrence that changed a mix-kernel half,
    else one that changed another kernel function, else any that changed, else the first."""
    tiers: tuple[Callable[[Dump], bool], ...] = (
        lambda d: changed[d.index] and _kernel_function(d.scope) == 2,
        lambda d: changed[d.index] and _kernel_function(d.scope) == 1,
        lambda d: changed[d.index],
    )
    for tier in tiers:
        found = next((d for d in hits if tier(d)), None)
        if found is not None:
            return found
    return hits[0]
