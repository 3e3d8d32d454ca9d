"""Cross-core sync of a mix kernel: `sync_block_set` on one core, `sync_block_wait` on the
other, paired by the pipe and the flag they name (the cube and vector halves are separate
functions of one module)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from ascend_ir_lab.analysis.hivm_ops import parse_op
from ascend_ir_lab.analysis.ir_tree import Function, value_set
from ascend_ir_lab.analysis.sync_findings import Finding

__all__ = ["cross_core"]


def _ops(
    lines: Sequence[str], fn: Function, end: int
) -> list[tuple[int, str, str, frozenset[int] | None]]:
    """(line, set/wait, pipe, flag values) of the function's block-sync ops."""
    out = []
    for i in range(fn.line, end):
        if "sync_block_" not in lines[i]:
            continue
        op = parse_op(lines[i])
        if op is None or op.name not in ("sync_block_set", "sync_block_wait") or len(op.args) < 2:
            continue
        out.append((i, op.name, op.args[1], value_set(fn, op.flag) if op.flag else None))
    return out


def cross_core(lines: Sequence[str], fns: Sequence[Function]) -> tuple[list[Finding], list[int]]:
    """Findings for block waits no set in the module may satisfy, and sets no wait takes;
    also the lines of every block-sync op."""
    ends = [f.line for f in fns[1:]] + [len(lines)] if fns else []  # none: no ops either
    per_fn = {fn.name: _ops(lines, fn, end) for fn, end in zip(fns, ends, strict=True)}
    every = [o for ops in per_fn.values() for o in ops]
    findings = []
    for name, ops in per_fn.items():
        for line, kind, pipe, flags in ops:
            want = "sync_block_set" if kind == "sync_block_wait" else "sync_block_wait"
            partner = [o for o in every if o[1] == want and o[2] == pipe and _meet(o[3], flags)]
            if partner:
                continue
            if kind == "sync_block_wait":
                findings.append(Finding(
                    line, "definite" if flags is not None else "possible", "cross-core-hang",
                    f"sync_block_wait (flag {_flags(flags)}) that no sync_block_set of the "
                    "module can satisfy", (pipe, pipe), function=name))  # fmt: skip
            else:
                findings.append(Finding(
                    line, "possible", "cross-core-unwaited",
                    f"sync_block_set (flag {_flags(flags)}) that no sync_block_wait of the "
                    "module takes", (pipe, pipe), function=name))  # fmt: skip
    findings += _counts(per_fn, every)
    return findings, sorted(o[0] for o in every)


def _counts(per_fn: dict[str, list[Any]], every: list[Any]) -> list[Finding]:
    """As many block sets as waits per pipe and flag (written once each, outside loops or in
    the same loop on both cores); a difference is worth a look."""
    owner = {o[0]: name for name, ops in per_fn.items() for o in ops}
    sets = Counter((o[2], o[3]) for o in every if o[1] == "sync_block_set")
    waits = Counter((o[2], o[3]) for o in every if o[1] == "sync_block_wait")
    out = []
    for key in sorted(set(sets) | set(waits), key=lambda k: (k[0], sorted(k[1] or ()))):
        if sets[key] == waits[key] or key[1] is None:
            continue
        more = "sync_block_set" if sets[key] > waits[key] else "sync_block_wait"
        line = next(o[0] for o in every if (o[2], o[3]) == key and o[1] == more)
        out.append(Finding(
            line, "possible", "cross-core-count",
            f"{sets[key]} sync_block_set but {waits[key]} sync_block_wait of flag "
            f"{_flags(key[1])} in the module", (key[0], key[0]), function=owner[line]))  # fmt: skip
    return out


def _meet(a: frozenset[int] | None, b: frozenset[int] | None) -> bool:
    return a is None or b is None or bool(a & b)


def _flags(v: frozenset[int] | None) -> str:
    return "unknown" if v is None else " or ".join(str(x) for x in sorted(v))
