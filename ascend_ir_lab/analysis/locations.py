"""Source locations in MLIR text: `#locN = loc(...)` aliases, inline, fused, named and callsite locs.

`line_sources` resolves each IR line to the (file, line) pairs it came from, so a Python
source line can be mapped to the ops it produced in any Dump.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ascend_ir_lab.analysis.ops import scope_range
from ascend_ir_lab.dumps import Dump, Timeline

_ALIAS_DEF = re.compile(r"^(#loc\d*)\s*=\s*(loc\(.*\))\s*$")
_FILE_LOC = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')
_ALIAS_REF = re.compile(r"#loc\d*\b")
_TRAILING_LOC = re.compile(r"\bloc\((.*)\)\s*(?:\{|$)")

Place = tuple[str, int]  # (file, line)


def aliases(lines: Sequence[str]) -> dict[str, frozenset[Place]]:
    """`#locN` → the (file, line) places it stands for, references resolved transitively."""
    raw: dict[str, str] = {}
    for line in lines:
        if line.startswith("#loc"):
            m = _ALIAS_DEF.match(line)
            if m:
                raw[m.group(1)] = m.group(2)
    resolved: dict[str, frozenset[Place]] = {}

    def resolve(name: str, depth: int = 0) -> frozenset[Place]:
        if name in resolved:
            return resolved[name]
        body = raw.get(name, "")
        places = set(_places(body))
        if depth < 64:
            for ref in _ALIAS_REF.findall(body):
                if ref != name:
                    places |= resolve(ref, depth + 1)
        resolved[name] = frozenset(places)
        return resolved[name]

    for name in raw:
        resolve(name)
    return resolved


def _places(text: str) -> list[Place]:
    return [(m.group(1), int(m.group(2))) for m in _FILE_LOC.finditer(text)]


def line_sources(lines: Sequence[str]) -> list[frozenset[Place]]:
    """For each IR line, the places its `loc(...)` names (empty when it has none)."""
    table = aliases(lines)
    out: list[frozenset[Place]] = []
    empty: frozenset[Place] = frozenset()
    for line in lines:
        k = line.rfind("loc(")
        if k < 0 or line.startswith("#loc"):
            out.append(empty)
            continue
        tail = line[k:]
        places = set(_places(tail))
        for ref in _ALIAS_REF.findall(tail):
            places |= table.get(ref, empty)
        out.append(frozenset(places) if places else empty)
    return out


def _same_file(a: str, b: str | None) -> bool:
    if b is None:
        return True
    return (
        a == b or a.endswith("/" + b.rsplit("/", 1)[-1]) or b.endswith("/" + a.rsplit("/", 1)[-1])
    )


def ops_for_line(lines: Sequence[str], py_line: int, file: str | None = None) -> list[int]:
    """Indices of IR lines whose location is `py_line` (of `file`, matched by base name)."""
    return [
        i for i, places in enumerate(line_sources(lines))
        if any(ln == py_line and _same_file(f, file) for f, ln in places)
    ]  # fmt: skip


def source_map(lines: Sequence[str], file: str | None = None) -> list[tuple[int, int]]:
    """(IR line index, Python line) pairs, the first place of each located IR line."""
    out = []
    for i, places in enumerate(line_sources(lines)):
        hits = sorted(ln for f, ln in places if _same_file(f, file))
        if hits:
            out.append((i, hits[0]))
    return out


def source_files(lines: Sequence[str]) -> list[str]:
    """Every file named by a location, most frequent first."""
    counts: dict[str, int] = {}
    for places in line_sources(lines):
        for f, _ in places:
            counts[f] = counts.get(f, 0) + 1
    return sorted(counts, key=lambda f: (-counts[f], f))


class LineCensus:
    """How many IR lines of each Dump carry one Python line's location; fits `ops.lifecycle`,
    so "through which pass do this line's ops vanish" is one call."""

    def __init__(self, timeline: Timeline, py_line: int, file: str | None = None) -> None:
        self.timeline = timeline
        self.py_line = py_line
        self.file = file
        self._hits: dict[int, list[int]] = {}

    def lines_of(self, dump: Dump) -> list[int]:
        """IR line indices of `dump` located at the Python line."""
        snap = self.timeline.snapshot(dump)
        hits = self._hits.get(snap)
        if hits is None:
            hits = self._hits[snap] = ops_for_line(
                self.timeline.lines(dump), self.py_line, self.file
            )
        return hits

    def count(self, dump: Dump, _key: str = "") -> int:
        """Located IR lines in the whole Dump."""
        return len(self.lines_of(dump))

    def count_in(self, dump: Dump, _key: str, scope: str) -> int:
        """Located IR lines within one function of a module Dump."""
        if dump.holds == scope or dump.holds not in ("builtin.module", "module", ""):
            return self.count(dump)
        span = scope_range(self.timeline.lines(dump), scope)
        if span is None:
            return 0
        return sum(1 for i in self.lines_of(dump) if span[0] <= i < span[1])
