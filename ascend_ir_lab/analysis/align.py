"""Pass-aligned comparison of two Timelines: same stage, same pass, k-th occurrence, same scope."""

from __future__ import annotations

from dataclasses import dataclass

from ascend_ir_lab.analysis.normalize import Normalization, normalize_lines
from ascend_ir_lab.dumps import Dump, Timeline


def _keys(tl: Timeline) -> dict[tuple[str, str, str, int], Dump]:
    seen: dict[tuple[str, str, str], int] = {}
    out = {}
    for d in tl.dumps:
        base = (d.stage, d.label, d.scope)
        k = seen[base] = seen.get(base, 0) + 1
        out[(d.stage, d.label, d.scope, k)] = d
    return out


def counterpart(a: Timeline, dump: Dump, b: Timeline) -> Dump | None:
    """The Dump of `b` that corresponds to `dump` of `a` (None when `b` never ran it)."""
    k = sum(
        1 for e in a.dumps[: dump.index + 1]
        if (e.stage, e.label, e.scope) == (dump.stage, dump.label, dump.scope)
    )  # fmt: skip
    return _keys(b).get((dump.stage, dump.label, dump.scope, k))


@dataclass(frozen=True, slots=True)
class AlignedPair:
    """One pass as it ran in two Timelines, and whether its output differs."""

    a: Dump | None
    b: Dump | None
    differs: bool

    @property
    def label(self) -> str:
        """The pass argument (or name) of whichever side exists."""
        d = self.a or self.b
        assert d is not None
        return d.label


def align(a: Timeline, b: Timeline, norm: Normalization | None = None) -> list[AlignedPair]:
    """Every pass of either Timeline, paired, in `a`'s order with `b`-only passes after."""
    norm = norm or Normalization()
    ka, kb = _keys(a), _keys(b)
    pairs = []
    for key, da in ka.items():
        db = kb.get(key)
        differs = db is None or _differs(a, da, b, db, norm)
        pairs.append(AlignedPair(da, db, differs))
    pairs.extend(AlignedPair(None, db, True) for key, db in kb.items() if key not in ka)
    return pairs


def _differs(a: Timeline, da: Dump, b: Timeline, db: Dump, norm: Normalization) -> bool:
    if not norm.active:
        return a.raw(da) != b.raw(db)
    return normalize_lines(a.lines(da), norm) != normalize_lines(b.lines(db), norm)


def first_divergence(
    a: Timeline, b: Timeline, norm: Normalization | None = None
) -> AlignedPair | None:
    """The first pass, in `a`'s order, whose output differs between the two Timelines."""
    for pair in align(a, b, norm):
        if pair.differs:
            return pair
    return None
