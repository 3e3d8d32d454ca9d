"""The sync lens: HIVM synchronisation ops and distributed primitives in one snapshot.

`set_flag[<src>, <dst>, <event>]` is paired with the next `wait_flag` of the same
(src, dst, event) in text order; what stays unpaired is where a sync bug would hide.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ascend_ir_lab.analysis.sync_ops import DIALECT, DISTRIBUTED_OPS, sync_op_pattern

_SYNC = re.compile(
    rf"\b(?:{re.escape(DIALECT)}\.)?(?P<kind>{sync_op_pattern()})\b(?:\[(?P<args>[^\]]*)\])?"
)
# triton-distributed primitives (wait, notify, symm_at) as op names: `dist.wait`, `tdl.notify`
_DIST = re.compile(rf"\b[a-z_][\w]*\.(?P<kind>{'|'.join(DISTRIBUTED_OPS)})\b")
# ... and after conversion to HIVM: `hivm.hir.custom "dist.aclshmem_barrier_all"`
_SHMEM = re.compile(r'\bhivm\.hir\.custom\s+"dist\.(?P<kind>aclshmem_\w*)"')


def _args(text: str | None) -> tuple[str, ...]:
    """`<PIPE_V>, <PIPE_MTE2>, %38` -> ("PIPE_V", "PIPE_MTE2", "%"): a runtime event id
    (multi-buffering) is `%`, which pairs with any other runtime id of the same pipes."""
    if not text:
        return ()
    items = (a.strip() for a in text.split(","))
    return tuple("%" if a.startswith("%") else a.strip("<>") for a in items if a)


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
        shmem = _SHMEM.search(line)
        if shmem:
            lens.ops.append(SyncOp(i, shmem["kind"], ()))
            continue
        m = _SYNC.search(line)
        if m and ("hivm" in line or m["args"] is not None):
            lens.ops.append(SyncOp(i, m["kind"], _args(m["args"])))
            continue
        d = _DIST.search(line)
        if d and "=" in line[: d.start()] or (d and line.lstrip().startswith(d.group(0))):
            lens.ops.append(SyncOp(i, d["kind"], ()))
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
