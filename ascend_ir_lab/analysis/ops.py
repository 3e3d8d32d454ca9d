"""Op census per Dump and op lifecycle across a Timeline."""

from __future__ import annotations

import functools
import re
from collections import Counter
from typing import TYPE_CHECKING, Protocol

from ascend_ir_lab.dumps import Dump, Timeline
from ascend_ir_lab.dumps.body import SYMBOL_GAP
from ascend_ir_lab.record import Frozen

if TYPE_CHECKING:
    from typing import Final

# `%a, %b = dialect.op`, `dialect.op ...`, `"dialect.op"(...)` at the start of a line.
_MLIR_OP = re.compile(
    r"^[ \t]*(?:%[\w$.#:-]+(?:[ \t]*,[ \t]*%[\w$.#:-]+)*[ \t]*=[ \t]*)?\"?"
    r"([a-z_][\w$]*(?:\.[\w$]+)+)\"?(?=[\s(<{\[:\"]|$)",
    re.M,
)
# LLVM IR instructions: `%x = add ...`, `store ...`, `call ...` inside a function body.
_LLVM_OP = re.compile(
    r"^[ \t]+(?:%[\w$.-]+[ \t]*=[ \t]*)?(?:tail |musttail |notail )?([a-z][a-z0-9_]*)\b", re.M
)


def census_text(text: str, family: str = "mlir") -> Counter[str]:
    """`dialect.op` counts (LLVM IR: instruction names) in one IR text."""
    pattern = _LLVM_OP if family.startswith("llvm") else _MLIR_OP
    return Counter(pattern.findall(text))


_OP_NAME = re.compile(r"[a-z_][\w$]*(?:\.[\w$]+)+")


@functools.lru_cache(maxsize=64)
def _op_line(op: str) -> re.Pattern[str]:
    """_MLIR_OP with its name fixed to `op`, matched at the start of a line."""
    return re.compile(
        r"[ \t]*(?:%[\w$.#:-]+(?:[ \t]*,[ \t]*%[\w$.#:-]+)*[ \t]*=[ \t]*)?\"?"
        + re.escape(op)
        + r"\"?(?=[\s(<{\[:\"]|$)",
        re.M,
    )


def count_op(text: str, op: str) -> int:
    """`census_text(text)[op]` for MLIR text, read only on the lines that hold `op`."""
    if _OP_NAME.fullmatch(op) is None:
        return 0  # no census counts a name that is not an op name
    at_line, find = _op_line(op).match, text.find
    n = 0
    pos = find(op)
    while pos >= 0:
        start = text.rfind("\n", 0, pos) + 1
        if at_line(text, start) is not None:
            n += 1
        nl = find("\n", pos)
        if nl < 0:
            break
        pos = find(op, nl + 1)
    return n


class Census:
    """Op counts of every Dump of a Timeline, computed once per distinct snapshot."""

    def __init__(self, timeline: Timeline) -> None:
        self.timeline = timeline
        self._by_snapshot: dict[int, Counter[str]] = {}
        self._by_scope: dict[tuple[int, str], Counter[str]] = {}
        self._one: dict[tuple[int, str, str], int] = {}  # (snapshot, scope, op): one op's count

    def of(self, dump: Dump | int) -> Counter[str]:
        """Op counts of one Dump."""
        tl = self.timeline
        d = tl.dumps[dump] if isinstance(dump, int) else dump
        snap = tl.snapshot(d)
        counts = self._by_snapshot.get(snap)
        if counts is None:
            counts = self._by_snapshot[snap] = census_text(tl.text(d), d.family)
        return counts

    def count(self, dump: Dump | int, op: str) -> int:
        """How many `op` a Dump holds (MLIR: read from the lines that hold `op` alone)."""
        tl = self.timeline
        d = tl.dumps[dump] if isinstance(dump, int) else dump
        snap = tl.snapshot(d)
        counts = self._by_snapshot.get(snap)
        if counts is not None or d.family.startswith("llvm"):
            return (counts or self.of(d)).get(op, 0)
        key = (snap, "", op)
        n = self._one.get(key)
        if n is None:
            n = self._one[key] = count_op(tl.text(d), op) if self._names(d, op) else 0
        return n

    def _names(self, dump: Dump, op: str) -> bool:
        """Whether the Dump's IR may hold `op`: most IR never names it, found absent in
        place (its text not decoded, not split into lines)."""
        return _OP_NAME.fullmatch(op) is not None and self.timeline.contains(dump, op.encode())

    def count_in(self, dump: Dump, op: str, scope: str) -> int:
        """How many `op` the Dump holds within `scope` (a function inside a module Dump)."""
        if dump.holds == scope or dump.holds not in _MODULES:
            return self.count(dump, op)
        key = (self.timeline.snapshot(dump), scope)
        counts = self._by_scope.get(key)
        if counts is None and not dump.family.startswith("llvm"):
            one = (key[0], scope, op)
            n = self._one.get(one)
            if n is None:
                n = self._one[one] = (
                    count_op(scope_text(self.timeline.lines(dump), scope), op)
                    if self._names(dump, op)
                    else 0
                )
            return n
        if counts is None:
            text = scope_text(self.timeline.lines(dump), scope)
            counts = self._by_scope[key] = census_text(text, dump.family)
        return counts.get(op, 0)

    def series(self, op: str) -> list[int]:
        """The count of `op` in every Dump, in Timeline order."""
        return [self.count(d, op) for d in self.timeline.dumps]


class OpChange(Frozen):
    """A Dump whose pass changed the count of an op within its scope."""

    __slots__ = ("index", "stage", "pass_name", "arg", "scope", "count", "delta")

    def __init__(
        self, index: int, stage: str, pass_name: str, arg: str, scope: str, count: int, delta: int
    ) -> None:
        self.index: Final = index
        self.stage: Final = stage
        self.pass_name: Final = pass_name
        self.arg: Final = arg
        self.scope: Final = scope
        self.count: Final = count  # count after the pass
        self.delta: Final = delta

    def as_json(self) -> dict[str, object]:
        """The CLI's `find --json` record."""
        return {
            "index": self.index, "stage": self.stage, "pass": self.arg or self.pass_name,
            "scope": self.scope, "count": self.count, "delta": self.delta,
        }  # fmt: skip


class Counts(Protocol):
    """What lifecycle needs: a count per Dump, and within one function of a module Dump."""

    def count(self, dump: Dump, op: str) -> int: ...  # noqa: D102

    def count_in(self, dump: Dump, op: str, scope: str) -> int: ...  # noqa: D102


def lifecycle(timeline: Timeline, op: str, census: Counts | None = None) -> list[OpChange]:
    """Every Dump whose pass changed how many `op` its scope holds (first Dumps included).

    The change of a pass is measured as `Timeline.change` defines it, so before-only logs
    credit the pass that ran between two Before dumps. A function's state is the later of
    its own previous Dump and the last module Dump (which shows it too); a module Dump is
    only credited with what function Dumps since the previous module Dump did not report.
    A stage's first module Dump is measured against the previous stage's last module Dump
    (its input), so a Run's lifecycle runs across its stages.
    """
    c = census or Census(timeline)
    nested_since: dict[str, int] = {}
    last_module: dict[str, Dump] = {}
    handed_over: Dump | None = None  # the previous stage's output
    out = []
    for d in timeline.dumps:
        if last_module and d.stage not in last_module and d.stage not in nested_since:
            handed_over = max(last_module.values(), key=lambda m: m.index)
        old, new = timeline.change(d)
        if new is not None:
            if old is None and new.holds in _MODULES and d.stage not in last_module:
                old = handed_over
                nested_since.pop(d.stage, None)
            delta, after = _delta(c, op, old, new, last_module.get(d.stage), nested_since, d.stage)
            if delta:
                out.append(OpChange(d.index, d.stage, d.pass_name, d.arg, d.scope, after, delta))
        if d.holds in _MODULES:
            last_module[d.stage] = d
    return out


def _delta(
    c: Counts, op: str, old: Dump | None, new: Dump, module: Dump | None,
    nested_since: dict[str, int], stage: str,
) -> tuple[int, int]:  # fmt: skip
    scope = new.holds
    if scope in _MODULES:
        after = c.count(new, op)
        if old is None:
            return after, after
        return after - c.count(old, op) - nested_since.pop(stage, 0), after
    base = old
    if module is not None and module is not new and (base is None or module.index > base.index):
        base = module
    after = c.count_in(new, op, scope)
    delta = after - (c.count_in(base, op, scope) if base is not None else 0)
    nested_since[stage] = nested_since.get(stage, 0) + delta
    return delta, after


def scope_text(lines: list[str], scope: str) -> str:
    """The text of one symbol op (`func.func @k`) inside a module's lines ("" if absent)."""
    span = scope_range(lines, scope)
    return "\n".join(lines[span[0] : span[1]]) if span else ""


def scope_range(lines: list[str], scope: str) -> tuple[int, int] | None:
    """[start, end) line indices of one symbol op (`func.func @k`) inside a module's lines."""
    op, _, sym = scope.partition(" @")
    head = re.compile(rf"^(\s*)\"?{re.escape(op)}\"?{SYMBOL_GAP}@\"?{re.escape(sym)}\b")
    for i, line in enumerate(lines):
        m = head.match(line)
        if m is None:
            continue
        close = m.group(1) + "}"
        for j in range(i + 1, len(lines)):
            rest = lines[j][len(close) :] if lines[j].startswith(close) else None
            if rest is not None and (not rest or rest.startswith((" loc(", ")"))):
                return i, j + 1
        return i, len(lines)
    return None


_MODULES = ("builtin.module", "module", "")


def known_ops(timeline: Timeline, census: Census | None = None) -> Counter[str]:
    """Every op name seen anywhere, with its largest count in any one Dump."""
    c = census or Census(timeline)
    seen: Counter[str] = Counter()
    for d in timeline.dumps:
        for op, n in c.of(d).items():
            if n > seen[op]:
                seen[op] = n
    return seen
