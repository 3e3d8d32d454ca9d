"""Normalise IR lines before comparing them: drop locations, canonical SSA names, whitespace,
or the whole canonical form two identical compiles agree on (analysis.canonical)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ascend_ir_lab.analysis.loc_strip import strip_loc
from ascend_ir_lab.record import Frozen

if TYPE_CHECKING:
    from typing import Final

__all__ = ["Normalization", "normalize_lines", "strip_loc"]

# the same rules as the viewer's normalize.ts (tests/data/golden/normalize.json pins both)
_LOC_ALIAS = re.compile(r"^\s*#loc[A-Za-z0-9_$.-]*\s*=\s*loc\(")
_SSA = re.compile(r"%[A-Za-z0-9_$.-]+")
_BLOCK = re.compile(r"\^[A-Za-z0-9_$.-]+")
_SPACE = re.compile(r"\s+")


class Normalization(Frozen):
    """Which differences to ignore when comparing two snapshots."""

    __slots__ = ("locations", "ssa", "whitespace", "canonical")

    def __init__(
        self,
        locations: bool = False,
        ssa: bool = False,
        whitespace: bool = False,
        canonical: bool = False,
    ) -> None:
        self.locations: Final = locations  # drop `#locN = loc(...)` lines and ` loc(...)` suffixes
        self.ssa: Final = ssa  # rename %values and ^blocks in order of first appearance
        self.whitespace: Final = whitespace  # collapse runs of whitespace, strip line ends
        # names by content, #map inlined, iter_args and attributes sorted
        self.canonical: Final = canonical

    @classmethod
    def parse(cls, spec: str | Iterable[str] | bool | None) -> Normalization:
        """From `True` (all), a comma list such as "loc,ssa,canon", or None (nothing)."""
        if spec is True:
            return cls(True, True, True, True)
        if not spec:
            return cls()
        words = spec.split(",") if isinstance(spec, str) else list(spec)
        known = {"loc": "locations", "locs": "locations", "locations": "locations",
                 "ssa": "ssa", "ws": "whitespace", "whitespace": "whitespace",
                 "canon": "canonical", "canonical": "canonical"}  # fmt: skip
        bad = [w for w in words if w.strip() not in known and w.strip() != "all"]
        if bad:
            raise ValueError(
                f"unknown normalisation {bad[0]!r}: use loc, ssa, whitespace, canon or all"
            )
        if any(w.strip() == "all" for w in words):
            return cls(True, True, True, True)
        return cls(**{known[w.strip()]: True for w in words})

    @property
    def active(self) -> bool:
        """Whether anything is normalised at all."""
        return self.locations or self.ssa or self.whitespace or self.canonical


def normalize_lines(lines: list[str], norm: Normalization) -> list[str]:
    """Apply `norm` to the lines of one snapshot (names are canonical per snapshot)."""
    if not norm.active:
        return lines
    if norm.canonical:
        from ascend_ir_lab.analysis.canonical import canonical_lines

        return canonical_lines(lines)
    out = lines
    if norm.locations:
        out = [strip_loc(s) for s in out if not _LOC_ALIAS.match(s)]
    if norm.ssa:
        out = _canonical_names(out)
    if norm.whitespace:
        out = [_SPACE.sub(" ", s).strip() for s in out]
    return out


def _canonical_names(lines: list[str]) -> list[str]:
    values: dict[str, str] = {}
    blocks: dict[str, str] = {}

    def value(m: re.Match[str]) -> str:
        return values.setdefault(m.group(0), f"%v{len(values)}")

    def block(m: re.Match[str]) -> str:
        return blocks.setdefault(m.group(0), f"^bb{len(blocks)}")

    return [_BLOCK.sub(block, _SSA.sub(value, s)) for s in lines]
