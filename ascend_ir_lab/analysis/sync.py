"""The sync lens: HIVM synchronisation ops and distributed primitives in one snapshot.

`set_flag[<src>, <dst>, <event>]` is paired with the next `wait_flag` of the same
(src, dst, event) in text order; what stays unpaired is where a sync bug would hide.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ascend_ir_lab.analysis.sync_ops import recognise


@dataclass(frozen=True, slots=True)
class SyncOp:
    """One synchronisation op: its line (0-based), kind and bracketed arguments
    (set_flag/wait_flag: source pipe, destination pipe, event id)."""

    line: int
    kind: str
    args: tuple[str, ...]


@dataclass
class SyncLens:
    """Sync ops of one snapshot, set/wait pairs and what is left unpaired."""

    ops: list[SyncOp] = field(default_factory=list)
    pairs: list[tuple[SyncOp, SyncOp]] = field(default_factory=list)
    unpaired: list[SyncOp] = field(default_factory=list)

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
