"""Verify the sync checker the way compiler people verify one: break the sync of a real
snapshot in each of four ways and see whether the checker finds the break, by line.

- delete-wait: one `wait_flag` removed; found by a leak, a reuse or a hazard on its pipes.
- delete-set: one `set_flag` removed; found by a hang (or a hazard) on its pipes.
- move-wait: one `wait_flag` moved after the op it guards (the next op of the same block
  on the waiting pipe); found by a hazard at that op.
- drop-barrier: one `pipe_barrier` removed from between two ops that name the same buffer
  (judged from the text alone); found by a hazard after it.

A mutant counts as found when the checker reports something it did not report on the
unmutated snapshot, of the expected kind, at the expected place.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ascend_ir_lab.analysis.hivm_ops import parse_op
from ascend_ir_lab.analysis.ir_tree import functions
from ascend_ir_lab.analysis.loc_strip import strip_loc
from ascend_ir_lab.analysis.sync_check import Finding, check_sync

__all__ = ["Mutant", "MutationResult", "mutants", "run_mutations"]

KINDS = ("delete-wait", "delete-set", "move-wait", "drop-barrier")
_SYNC = re.compile(r"\bhivm\.hir\.(set_flag|wait_flag|pipe_barrier)\[([^\]]*)\]")


@dataclass(frozen=True)
class Mutant:
    """One broken copy of a snapshot: what was done where, and where to look."""

    kind: str
    line: int  # 0-based line of the mutated op in the original text
    lines: tuple[str, ...]
    expect: int  # 0-based line in the mutant where the break shows (the guarded op...)
    pipes: tuple[str, str]


@dataclass(frozen=True)
class MutationResult:
    """Whether the checker found a mutant, and with which finding."""

    mutant: Mutant
    finding: Finding | None

    @property
    def found(self) -> bool:
        """The checker reported the break."""
        return self.finding is not None


def _args(line: str) -> tuple[str, ...]:
    m = _SYNC.search(line)
    return tuple(a.strip().strip("<>") for a in m.group(2).split(",")) if m else ()


def _access(line: str) -> tuple[str, list[str]] | None:
    """(pipe, operand values) of an HIVM op that runs on a pipe, else None."""
    op = parse_op(line)
    if op is None or op.kind not in ("access", "macro") or not op.pipe:
        return None
    return op.pipe, [v for v, _ in op.reads + op.writes]


def mutants(lines: Sequence[str], scope: str = "") -> Iterator[Mutant]:
    """Every mutant of the four kinds the snapshot allows (in the function `scope` names)."""
    text = list(lines)
    span = _span(text, scope)
    for i, line in enumerate(text):
        kind = _SYNC.search(line) if span[0] <= i < span[1] else None
        if kind is None:
            continue
        args = _args(line)
        rest = tuple(text[:i] + text[i + 1 :])
        if kind.group(1) == "wait_flag" and len(args) >= 2:
            yield Mutant("delete-wait", i, rest, i, (args[0], args[1]))
            moved = _move_after_guarded(text, i, args[1])
            if moved is not None:
                yield Mutant("move-wait", i, moved[0], moved[1], (args[0], args[1]))
        elif kind.group(1) == "set_flag" and len(args) >= 2:
            yield Mutant("delete-set", i, rest, i, (args[0], args[1]))
        elif kind.group(1) == "pipe_barrier" and args and _between_dependent_ops(text, i):
            yield Mutant("drop-barrier", i, rest, i, (args[0], args[0]))


def _span(text: list[str], scope: str) -> tuple[int, int]:
    """The lines of the function a `func.func @f` scope names (all lines otherwise)."""
    symbol = scope.partition(" @")[2] if scope and not scope.startswith("builtin.module") else ""
    fns = functions(text)
    for k, fn in enumerate(fns):
        if fn.name == symbol:
            return fn.line, fns[k + 1].line if k + 1 < len(fns) else len(text)
    return 0, len(text)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _move_after_guarded(text: list[str], i: int, pipe: str) -> tuple[tuple[str, ...], int] | None:
    """The text with line i moved after the next op of its block on `pipe`."""
    depth = _indent(text[i])
    for j in range(i + 1, len(text)):
        if _indent(text[j]) < depth or strip_loc(text[j]).strip().startswith("}"):
            return None
        if _indent(text[j]) > depth or _SYNC.search(text[j]):
            if _SYNC.search(text[j]) and _args(text[j])[:2] == _args(text[i])[:2]:
                return None
            continue
        acc = _access(text[j])
        if acc is not None and pipe in (acc[0], "PIPE_M" if acc[0] == "PIPE_MTE1" else ""):
            moved = text[:i] + text[i + 1 : j + 1] + [text[i]] + text[j + 1 :]
            return tuple(moved), j - 1
    return None


def _between_dependent_ops(text: list[str], i: int) -> bool:
    """Whether line i is the only sync between two ops that name a common buffer root."""
    fns = [f for f in functions(text) if f.line < i]
    if not fns:
        return False
    fn = fns[-1]
    before = _neighbour(text, range(i - 1, fn.line, -1))
    after = _neighbour(text, range(i + 1, len(text)))
    if before is None or after is None:
        return False
    roots_a = {b.root for v in before[1] for b in fn.buffers(v)}
    roots_b = {b.root for v in after[1] for b in fn.buffers(v)}
    return bool(roots_a & roots_b)


def _neighbour(text: list[str], where: range) -> tuple[str, list[str]] | None:
    """The nearest op on a pipe in `where`, unless another sync op or a region edge is met."""
    for j in where:
        stripped = strip_loc(text[j]).strip()
        if _SYNC.search(text[j]) or stripped.startswith("}") or stripped.endswith("{"):
            return None
        acc = _access(text[j])
        if acc is not None:
            return acc
    return None


def _key(f: Finding, shift: int, at: int) -> tuple[str, int, tuple[str, str]]:
    """A finding of the mutant in the original's line numbers."""
    line = f.line + shift if f.line >= at else f.line
    return (f.kind, line, f.pipes)


def run_mutations(
    lines: Sequence[str], *, scope: str = "", limit: int | None = None
) -> list[MutationResult]:
    """Check every mutant (or the first `limit` of each kind) against the unmutated result;
    with `scope`, only the function it names is mutated and checked."""
    base = {(f.kind, f.line, f.pipes) for f in check_sync(lines, scope=scope).findings}
    counts: dict[str, int] = {}
    out = []
    for m in mutants(lines, scope):
        counts[m.kind] = counts.get(m.kind, 0) + 1
        if limit is not None and counts[m.kind] > limit:
            continue
        new = [
            f for f in check_sync(list(m.lines), scope=scope).findings
            if _key(f, 1 if m.kind.startswith(("delete", "drop")) else 0, m.line) not in base
        ]  # fmt: skip
        out.append(MutationResult(m, _matching(m, new)))
    return out


def _matching(m: Mutant, new: list[Finding]) -> Finding | None:
    """The new finding that shows the break, if any."""
    if m.kind == "move-wait":
        hits = [f for f in new if f.kind == "hazard" and f.line == m.expect and f.pipes == m.pipes]
    elif m.kind == "drop-barrier":
        hits = [f for f in new if f.kind == "hazard" and f.line >= m.line]
    else:
        hits = [f for f in new if f.pipes == m.pipes]
    return min(hits, key=lambda f: abs(f.line - m.expect)) if hits else None
