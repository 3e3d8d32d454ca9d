"""The Timeline: the ordered Dumps of one compilation, with per-scope predecessors.

Reading only indexes offsets. Snapshots (content hashes), line counts and interned lines are
computed on first use, once, and cached.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import islice

from ascend_ir_lab.dumps import selection
from ascend_ir_lab.dumps.compiles import state_chains
from ascend_ir_lab.dumps.model import Dump, LogInfo, Message
from ascend_ir_lab.dumps.snapshots import identical, snapshot_ids
from ascend_ir_lab.dumps.timing import match_timings

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from typing import Any

    from ascend_ir_lab.dumps.index_cache import SnapshotStore
    from ascend_ir_lab.dumps.prefixes import Stream


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
        streams: Mapping[int, Stream] | None = None,
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
        # The logs that are streams of a line-prefixed file (`prefixes`), by log id: their
        # Dumps' offsets are into the file, their IR the stream's text without prefixes.
        self._streams = dict(streams or {})

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
        if self._streams and d.log_id in self._streams:
            return self._streams[d.log_id].body(d.body_start, d.body_end)
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
        if self._streams and d.log_id in self._streams:
            return text in self.raw(d)
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
            self._snap = snapshot_ids(self.dumps, self._data, self._streams)
            if self._kept_snapshots is not None:
                self._kept_snapshots.keep(self._snap)
        return self._snap

    def _links(self) -> tuple[list[int], list[int]]:
        if self._prev is None or self._next is None:
            # Pipeliner-internal dumps are snapshots inside one pass: each follows the state
            # before it, but the pass's own output follows the state before the pass.
            # Another compile in one log, another stream of one file: a chain of its own.
            chains = state_chains(self.logs, self.dumps)
            last: dict[tuple[str, str, int], int] = {}
            last_any: dict[tuple[str, str, int], int] = {}
            prev = [-1] * len(self.dumps)
            nxt = [-1] * len(self.dumps)
            for d in self.dumps:
                key = (d.stage, d.holds or d.scope, chains[d.index] if chains else 0)
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
        """The previous Dump of the same scope in the same stage (and the same compile of
        its log, the same stream of a line-prefixed file: `compiles.state_chains`).

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
            self._states = [
                _state(d, prev, nxt, lambda i, j: snap[i] == snap[j], self._regions_elided)
                for d in self.dumps
            ]
        return self._states

    def change_state(self, dump: Dump | int) -> str:
        """`change_states` of one Dump. Where the snapshots are not known yet, the Dump's
        IR is compared with its neighbour's alone: the rest of the log is not read."""
        d = self._dump(dump)
        if self._states is not None:
            return self._states[d.index]
        prev, nxt = self._links()
        return _state(d, prev, nxt, lambda i, j: self.same_ir(i, j), self._regions_elided)

    def same_ir(self, a: Dump | int, b: Dump | int) -> bool:
        """Whether two Dumps hold byte-identical IR: by their snapshots where known, else
        compared in place."""
        da, db = self._dump(a), self._dump(b)
        if self._snap is not None:
            return self._snap[da.index] == self._snap[db.index]
        if self._streams and (da.log_id in self._streams or db.log_id in self._streams):
            return self.raw(da) == self.raw(db)
        return identical(da, db, self._data)

    def _regions_elided(self, d: Dump) -> bool:
        """Whether the Dump's IR ends in an op whose regions are elided (`{...}`, as MLIR's
        `--mlir-print-skip-regions` prints every op with regions: a line or a few). A larger
        body is not read: its pages stay untouched."""
        if d.body_end - d.body_start > 1024:
            return False
        data = self._data[d.log_id]
        return (
            bytes(data[max(d.body_start, d.body_end - 16) : d.body_end]).rstrip().endswith(b"{...}")
        )

    # -- timings ---------------------------------------------------------------------------
    def timings(self) -> dict[int, float]:
        """`seconds` of every Dump that has one, by Dump index."""
        if self._timings is None:
            self._timings = match_timings(self.dumps, self.run)
        return self._timings

    def seconds(self, dump: Dump | int) -> float | None:
        """The pass's time where the tool reported one (a Run stage's `timings`), else None.

        Timings are keyed by pass argument, `arg#k` for its k-th run in the stage.
        """
        return self.timings().get(self._dump(dump).index)

    # -- selection -------------------------------------------------------------------------
    def select(self, which: str | int) -> Dump:
        """A Dump by index (`12`, `-1`), `first`, `last`, or `[stage:]pass[#k]` (k from 1)."""
        return selection.select(self.dumps, self.stages, self.changed_flags, which)

    def occurrences(self, which: str) -> list[Dump]:
        """Every Dump of the pass `[stage:]pass` names (an occurrence `#k` is ignored)."""
        return selection.occurrences(self.dumps, self.stages, which)

    def selection_note(self, which: str | int) -> str:
        """For a bare pass name run more than once: which occurrence `select` took and what
        the others were ("" otherwise)."""
        return selection.selection_note(self.dumps, self.stages, self.changed_flags, which)

    def occurrence(self, dump: Dump | int) -> int:
        """k such that `select(f"{label}#{k}")` is this Dump."""
        return selection.occurrence(self.dumps, self._dump(dump))

    def _dump(self, dump: Dump | int) -> Dump:
        return self.dumps[dump] if isinstance(dump, int) else dump


def _state(
    d: Dump,
    prev: list[int],
    nxt: list[int],
    same: Callable[[int, int], bool],
    elided: Callable[[Dump], bool],
) -> str:
    """`Timeline.change_states` of one Dump; `same(i, j)`: Dumps i and j hold the same IR;
    `elided(d)`: d's IR is printed without its regions, so the same text says nothing of them."""
    if d.phase == "start":
        return "unknown"
    if d.holds.startswith("diff of "):  # `-print-changed=diff` prints changes only
        return "changed"
    if d.holds == "no IR":  # a header with no IR after it shows no state
        return "unknown"
    other = nxt[d.index] if d.phase == "before" else prev[d.index]
    if other < 0:
        return "unknown" if d.phase == "before" else "changed"
    if not same(other, d.index):
        return "changed"
    return "unknown" if elided(d) else "unchanged"
