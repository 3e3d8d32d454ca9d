"""Pass-aligned comparison of two Timelines.

Passes are paired by an edit script over their (stage, pass, scope) sequences, so the k-th run
of a pass meets the k-th run of the same pass, and a pass that one pipeline replaces with
another at the same place (barrier-all swaps `hivm-graph-sync-solver` for `hivm-inject-sync`)
is paired with its substitute.
"""

from __future__ import annotations

from dataclasses import dataclass

from ascend_ir_lab.analysis.canonical import comparable_lines
from ascend_ir_lab.analysis.diff import opcodes
from ascend_ir_lab.analysis.normalize import Normalization, normalize_lines
from ascend_ir_lab.dumps import Dump, Timeline


@dataclass(frozen=True, slots=True)
class AlignedPair:
    """One pass as it ran in two Timelines, and whether its output differs."""

    a: Dump | None
    b: Dump | None
    differs: bool

    @property
    def label(self) -> str:
        """The pass argument (or name) of whichever side exists (A's when both do)."""
        d = self.a or self.b
        assert d is not None
        return d.label

    @property
    def substituted(self) -> bool:
        """Both sides ran, but different passes at this place of the pipeline."""
        return self.a is not None and self.b is not None and self.a.label != self.b.label


def _key(d: Dump) -> str:
    return f"{d.stage}\0{d.label}\0{d.scope}"


def pairing(a: Timeline, b: Timeline) -> list[tuple[Dump | None, Dump | None]]:
    """Every Dump of either Timeline, paired with its counterpart (None when it has none)."""
    da, db = a.dumps, b.dumps
    out: list[tuple[Dump | None, Dump | None]] = []
    for tag, i1, i2, j1, j2 in opcodes([_key(d) for d in da], [_key(d) for d in db]):
        if tag == "equal":
            out.extend(zip(da[i1:i2], db[j1:j2], strict=True))
            continue
        out.extend(_substitutes(da[i1:i2], db[j1:j2]))
    return out


def _substitutes(xs: list[Dump], ys: list[Dump]) -> list[tuple[Dump | None, Dump | None]]:
    """Pair replaced passes in order where stage and scope agree; the rest stand alone."""
    out: list[tuple[Dump | None, Dump | None]] = []
    j = 0
    for x in xs:
        k = next(
            (k for k in range(j, len(ys)) if (ys[k].stage, ys[k].scope) == (x.stage, x.scope)), None
        )
        if k is None:
            out.append((x, None))
            continue
        out.extend((None, y) for y in ys[j:k])
        out.append((x, ys[k]))
        j = k + 1
    out.extend((None, y) for y in ys[j:])
    return out


def counterpart(a: Timeline, dump: Dump, b: Timeline) -> Dump | None:
    """The Dump of `b` that corresponds to `dump` of `a` (None when `b` has none)."""
    for x, y in pairing(a, b):
        if x is dump:
            return y
    return None


def align(
    a: Timeline, b: Timeline, norm: Normalization | None = None,
    memo: dict[tuple[int, int], list[str]] | None = None,
) -> list[AlignedPair]:  # fmt: skip
    """Every pass of either Timeline, paired, in pipeline order (`memo`: normalised lines by
    (id of Timeline, snapshot), shared with other questions about the same Timelines)."""
    norm = norm or Normalization()
    memo = {} if memo is None else memo
    return [
        AlignedPair(x, y, x is None or y is None or _differs(a, x, b, y, norm, memo))
        for x, y in pairing(a, b)
    ]


def _differs(
    a: Timeline, da: Dump, b: Timeline, db: Dump, norm: Normalization,
    memo: dict[tuple[int, int], list[str]],
) -> bool:  # fmt: skip
    if a.raw(da) == b.raw(db) or not norm.active:
        return a.raw(da) != b.raw(db)

    def lines(tl: Timeline, d: Dump) -> list[str]:
        key = (id(tl), tl.snapshot(d))
        if key not in memo:  # canonical alone: the comparable form (as CanonicalCache)
            memo[key] = (
                comparable_lines(tl.lines(d))
                if norm == Normalization(canonical=True)
                else normalize_lines(tl.lines(d), norm)
            )
        return memo[key]

    return lines(a, da) != lines(b, db)


def first_divergence(
    a: Timeline, b: Timeline, norm: Normalization | None = None
) -> AlignedPair | None:
    """The first pass, in pipeline order, whose output differs between the two Timelines."""
    for pair in align(a, b, norm):
        if pair.differs:
            return pair
    return None
