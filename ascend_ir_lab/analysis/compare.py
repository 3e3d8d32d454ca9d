"""Two Timelines side by side, pass by pass: what `diff --against` and `%ir_diff A B` show.

Pipeline differences come first: passes one side runs in place of another (for fine vs
barrier-all, hivm-graph-sync-solver against hivm-inject-sync) and passes only one side runs;
then the first pass whose output differs, then the differing passes in order.

Outputs are compared in canonical form (analysis.canonical) unless told otherwise. Given the
noise of A (analysis.noise: a second build of A, compared with A), passes that vary between
identical compiles are set apart, and the first *real* divergence is the first differing pass
that the identical compiles agree on.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ascend_ir_lab.analysis.align import AlignedPair, align
from ascend_ir_lab.analysis.noise import CanonicalCache, Noise
from ascend_ir_lab.analysis.normalize import Normalization
from ascend_ir_lab.dumps import Dump, Timeline

__all__ = ["Comparison", "compare"]


@dataclass
class Comparison:
    """The pass-aligned comparison of Timelines A and B."""

    a_name: str
    b_name: str
    pairs: list[AlignedPair]
    only_a: dict[str, list[Dump]] = field(default_factory=dict)  # pass label -> its dumps
    only_b: dict[str, list[Dump]] = field(default_factory=dict)
    noise: Noise | None = None  # what varies across identical compiles of A
    # with a noise: differing passes that changed the same lines on both sides (their input
    # differed) and those whose change varies between identical compiles of A
    inherited: set[int] = field(default_factory=set)
    unsteady: set[int] = field(default_factory=set)

    @property
    def noisy(self) -> list[AlignedPair]:
        """Differing passes whose change varies between identical compiles of A."""
        return [p for p in self.differing if p.a is not None and p.a.index in self.unsteady]

    @property
    def real(self) -> list[AlignedPair]:
        """Differing passes that changed something else in B than in A (and, with a noise,
        whose change is the same in identical compiles of A)."""
        quiet = self.unsteady | self.inherited
        return [p for p in self.differing if p.a is not None and p.a.index not in quiet]

    @property
    def first_real(self) -> AlignedPair | None:
        """The first differing pass that is not run-to-run noise."""
        real = self.real
        return real[0] if real else None

    @property
    def common(self) -> list[AlignedPair]:
        """Passes that ran on both sides."""
        return [p for p in self.pairs if p.a is not None and p.b is not None]

    @property
    def differing(self) -> list[AlignedPair]:
        """Passes on both sides whose output differs, in A's order."""
        return [p for p in self.common if p.differs]

    @property
    def substituted(self) -> dict[tuple[str, str], list[AlignedPair]]:
        """(pass in A, pass in B) -> the places where B runs another pass instead."""
        out: dict[tuple[str, str], list[AlignedPair]] = {}
        for p in self.pairs:
            if p.a is not None and p.b is not None and p.a.label != p.b.label:
                out.setdefault((p.a.label, p.b.label), []).append(p)
        return out

    @property
    def first_divergence(self) -> AlignedPair | None:
        """The first common pass whose output differs."""
        diff = self.differing
        return diff[0] if diff else None

    @property
    def identical(self) -> bool:
        """No pass differs, is one-sided or replaced by another."""
        return not self.differing and not self.only_a and not self.only_b and not self.substituted

    def lines(self, limit: int = 12) -> list[str]:
        """The comparison as text lines."""
        out = [
            f"{self.a_name} vs {self.b_name}: {len(self.pairs)} passes aligned, "
            f"{len(self.common)} on both sides, {len(self.differing)} of them differ"
        ]
        out += self._one_sided_lines()
        out += self._divergence_lines()
        out += _rows(self.real if self.noise is not None else self.differing, limit)
        if self.noise is not None:
            out.append(
                f"  noise (varies between {self.noise.builds} identical compiles of "
                f"{self.a_name}): {len(self.noisy)} of the differing passes"
            )
            out += _rows(self.noisy, min(limit, 5))
        if self.inherited:
            out.append(
                f"  {len(self.inherited)} differing passes made the same change on both sides, "
                "up to names and numbers"
            )
        return out

    def _one_sided_lines(self) -> list[str]:
        """Passes replaced by others, and passes that run on one side only."""
        out = []
        for (la, lb), subs in self.substituted.items():
            first_a = subs[0].a
            assert first_a is not None
            out.append(
                f"  {self.a_name} runs {la} where {self.b_name} runs {lb} x{len(subs)} "
                f"(first #{first_a.index}, {first_a.scope})"
            )
        for side, only in ((self.a_name, self.only_a), (self.b_name, self.only_b)):
            for label, dumps in only.items():
                out.append(
                    f"  only in {side}: {label} x{len(dumps)} "
                    f"(first #{dumps[0].index}, {dumps[0].scope})"
                )
        return out

    def _divergence_lines(self) -> list[str]:
        """Where the Runs first part, or why no pass changed anything else."""
        out = []
        first, word = self.first_real, "first real divergence"
        plain = self.first_divergence
        if self.noise is None and plain is not None and plain.a is not None and plain.b is not None:
            out.append(
                f"  first divergence: {plain.label} ({plain.a.scope}) #{plain.a.index} vs "
                f"#{plain.b.index}"
            )
            word = "first pass that changed something else"
        if first is not None and first.a is not None and first.b is not None:
            if first is not plain or self.noise is not None:
                out.append(
                    f"  {word}: {first.label} ({first.a.scope}) #{first.a.index} vs "
                    f"#{first.b.index}"
                )
        elif self.identical:
            out.append("  every pass prints the same IR on both sides (canonical form)")
        elif self.differing:
            out.append(
                "  no pass changed anything else (up to names and numbers): the differences "
                "are numbering or come with the input"
                + (", or vary between identical compiles of A" if self.noise is not None else "")
            )
        return out

    def __repr__(self) -> str:
        return "\n".join(self.lines())


def _rows(pairs: list[AlignedPair], limit: int) -> list[str]:
    out = []
    for p in pairs[:limit]:
        assert p.a is not None and p.b is not None
        out.append(f"    #{p.a.index:<5} #{p.b.index:<5} {p.a.stage}:{p.label} ({p.a.scope})")
    if len(pairs) > limit:
        out.append(f"    ... {len(pairs) - limit} more")
    return out


def compare(
    a: Timeline,
    b: Timeline,
    a_name: str = "A",
    b_name: str = "B",
    norm: Normalization | None = None,
    noise: Noise | None = None,
) -> Comparison:
    """Align `a` and `b` pass by pass (see analysis.align) and group what differs.

    Without `norm` outputs are compared in canonical form; `noise` (measure_noise of A and a
    second build of A) sets apart the passes that vary between identical compiles.
    """
    cache = noise.cache if noise is not None and noise.cache is not None else CanonicalCache()
    canon = norm is None or norm == Normalization(canonical=True)
    pairs = align(a, b, norm or Normalization(canonical=True), cache.memo if canon else None)
    result = Comparison(a_name, b_name, pairs, noise=noise)
    _sort_differences(result, a, b, noise, cache)
    for p in pairs:
        if p.b is None and p.a is not None:
            result.only_a.setdefault(p.a.label, []).append(p.a)
        elif p.a is None and p.b is not None:
            result.only_b.setdefault(p.b.label, []).append(p.b)
    return result


def _sort_differences(
    result: Comparison, a: Timeline, b: Timeline, noise: Noise | None, cache: CanonicalCache
) -> None:
    """Each differing pass: noise (its change varies across builds of A), inherited (the
    same change on both sides up to names and numbers, made to different inputs), or real."""
    for p in result.differing:
        assert p.a is not None and p.b is not None
        if noise is not None and p.a.index in noise.noisy and p.a.index not in noise.steady:
            result.unsteady.add(p.a.index)
        elif cache.delta(a, p.a) == cache.delta(b, p.b):
            result.inherited.add(p.a.index)
