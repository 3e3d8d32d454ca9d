"""The sync lens: HIVM synchronisation ops and distributed primitives in one snapshot.

`set_flag[<src>, <dst>, <event>]` is paired with the next `wait_flag` of the same
(src, dst, event) in text order; what stays unpaired is where a sync bug would hide.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ascend_ir_lab.analysis.sync_ops import recognise
from ascend_ir_lab.record import Frozen, Record

if TYPE_CHECKING:
    from typing import Final


class SyncOp(Frozen):
    """One synchronisation op: its line (0-based), kind and bracketed arguments
    (set_flag/wait_flag: source pipe, destination pipe, event id)."""

    __slots__ = ("line", "kind", "args")

    def __init__(self, line: int, kind: str, args: tuple[str, ...]) -> None:
        self.line: Final = line
        self.kind: Final = kind
        self.args: Final = args


class SyncLens(Record):
    """Sync ops of one snapshot, set/wait pairs and what is left unpaired."""

    __slots__ = ("ops", "pairs", "unpaired")

    def __init__(self) -> None:
        self.ops: list[SyncOp] = []
        self.pairs: list[tuple[SyncOp, SyncOp]] = []
        self.unpaired: list[SyncOp] = []

    def counts(self) -> Counter[str]:
        """How many ops of each kind (pipe_barrier split by pipe: `pipe_barrier PIPE_ALL`)."""
        out: Counter[str] = Counter()
        for op in self.ops:
            out[
                f"{op.kind} {op.args[0]}" if op.kind == "pipe_barrier" and op.args else op.kind
            ] += 1
        return out


def sync_lens(lines: Sequence[str]) -> SyncLens:
    """Find the sync ops of a snapshot and pair each set_flag with its wait_flag."""
    lens = SyncLens()
    for i, line in enumerate(lines):
        found = recognise(line)
        if found is not None:
            lens.ops.append(SyncOp(i, found[0], found[1]))
    pending: dict[tuple[str, ...], list[SyncOp]] = {}
    for op in lens.ops:
        if op.kind == "set_flag":
            pending.setdefault(op.args, []).append(op)
        elif op.kind == "wait_flag":
            queue = pending.get(op.args)
            if queue:
                lens.pairs.append((queue.pop(0), op))
            else:
                lens.unpaired.append(op)
    lens.unpaired.extend(op for queue in pending.values() for op in queue)
    lens.unpaired.sort(key=lambda op: op.line)
    return lens
