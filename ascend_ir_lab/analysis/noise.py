"""Run-to-run noise: which passes print different IR when the same kernel is compiled again.

Builds are compared pass by pass with the reference (the first Timeline) twice: byte for byte,
and in canonical form (analysis.canonical). A pass whose canonical output differs in some build
is *noisy*; it is a *source* of noise when its input (the previous state of its scope) agreed
in every build, so the variation starts there rather than being inherited.

A noisy pass can still be *steady*: what it changed (the lines it removed and added, in
canonical form, names and numbers blanked) is the same in every build, only its input
differed. Comparing another
Timeline with the reference, a steady pass that changed something else there is a real
divergence, noise or not.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ascend_ir_lab.analysis.align import pairing
from ascend_ir_lab.analysis.canonical import comparable_lines
from ascend_ir_lab.dumps import Dump, Timeline

_NAME = re.compile(r"%(?:v|iv|p|b)\d+")
_NUMBER = re.compile(r"(?<![\w#%])-?\d+\b")

__all__ = ["CanonicalCache", "Noise", "measure_noise", "pass_delta"]


class CanonicalCache:
    """Canonical lines per (Timeline, snapshot), computed once."""

    def __init__(self) -> None:
        self.memo: dict[tuple[int, int], list[str]] = {}
        self._blanked: dict[tuple[int, int], Counter[str]] = {}

    def lines(self, tl: Timeline, d: Dump) -> list[str]:
        """The canonical form of Dump `d` of `tl`."""
        key = (id(tl), tl.snapshot(d))
        got = self.memo.get(key)
        if got is None:
            got = self.memo[key] = comparable_lines(tl.lines(d))
        return got

    def delta(self, tl: Timeline, d: Dump) -> tuple[tuple[str, int], ...]:
        """What the pass of `d` changed: canonical lines added (+n) and removed (-n), value
        names and numbers blanked (names follow the order of the whole snapshot, and numbers
        such as planned offsets follow the noise upstream)."""
        old, new = tl.change(d)
        after = Counter(self._blank(tl, new)) if new is not None else Counter[str]()
        if old is not None and old is not new:
            after.subtract(self._blank(tl, old))
        return tuple(sorted((line, n) for line, n in after.items() if n))

    def _blank(self, tl: Timeline, d: Dump) -> Counter[str]:
        key = (id(tl), tl.snapshot(d))
        got = self._blanked.get(key)
        if got is None:
            got = self._blanked[key] = Counter(
                _NUMBER.sub("0", _NAME.sub("%", s)) for s in self.lines(tl, d)
            )
        return got

    def equal(self, a: Timeline, da: Dump, b: Timeline, db: Dump) -> bool:
        """Whether two Dumps agree in canonical form."""
        return a.raw(da) == b.raw(db) or self.lines(a, da) == self.lines(b, db)


@dataclass
class Noise:
    """What varies across identical compiles, by Dump index of the reference build."""

    builds: int
    dumps: int
    raw: set[int] = field(default_factory=set)  # printed differently in some build
    noisy: set[int] = field(default_factory=set)  # still different in canonical form
    sources: set[int] = field(default_factory=set)  # noisy while their input agreed
    steady: set[int] = field(default_factory=set)  # noisy, but changed the same in every build
    unaligned: int = 0  # Dumps of another build with no counterpart in the reference
    labels: dict[int, str] = field(default_factory=dict)
    cache: CanonicalCache | None = field(default=None, repr=False, compare=False)

    @property
    def deterministic(self) -> bool:
        """No pass varies (in canonical form) and every build ran the same passes."""
        return not self.noisy and not self.unaligned

    def as_json(self) -> dict[str, Any]:
        """The measurement as plain data (`determinism --json`)."""
        return {
            "builds": self.builds, "dumps": self.dumps, "deterministic": self.deterministic,
            "raw": sorted(self.raw), "noisy": sorted(self.noisy), "steady": sorted(self.steady),
            "sources": [{"dump": i, "pass": self.labels.get(i, "")} for i in sorted(self.sources)],
            "unaligned": self.unaligned,
        }  # fmt: skip

    def lines(self) -> list[str]:
        """The measurement for people."""
        head = (
            f"{self.builds} identical compiles, {self.dumps} dumps each: "
            f"{len(self.raw)} print differently, {len(self.noisy)} differ in canonical form"
        )
        out = [head]
        if self.unaligned:
            out.append(f"  {self.unaligned} dumps of other builds have no counterpart")
        if not self.noisy:
            out.append(
                "  every pass gives the same canonical IR"
                + (" (the raw differences are numbering and order only)" if self.raw else "")
            )
        for i in sorted(self.sources):
            out.append(f"  noise starts at #{i} {self.labels.get(i, '')}")
        raw_only = sorted(self.raw - self.noisy)
        if raw_only:
            out.append(
                f"  numbering/order only (equal in canonical form): first #{raw_only[0]} "
                f"{self.labels.get(raw_only[0], '')}"
            )
        return out

    def __repr__(self) -> str:
        return "\n".join(self.lines())


def measure_noise(builds: Sequence[Timeline], cache: CanonicalCache | None = None) -> Noise:
    """Compare every build with the first, pass by pass (see the module docstring)."""
    ref = builds[0]
    cache = cache or CanonicalCache()
    noise = Noise(len(builds), len(ref.dumps))
    unsteady: set[int] = set()
    for other in builds[1:]:
        for x, y in pairing(ref, other):
            if x is None or y is None:
                noise.unaligned += x is None
                if y is None and x is not None:
                    noise.noisy.add(x.index)
                continue
            if ref.raw(x) != other.raw(y):
                noise.raw.add(x.index)
                if cache.lines(ref, x) != cache.lines(other, y):
                    noise.noisy.add(x.index)
                    if cache.delta(ref, x) != cache.delta(other, y):
                        unsteady.add(x.index)
    noise.steady = noise.noisy - unsteady
    for i in noise.noisy:
        prev = ref.previous(i)
        if prev is None or prev.index not in noise.noisy:
            noise.sources.add(i)
    noise.labels = {i: f"{ref.dumps[i].label} ({ref.dumps[i].scope})" for i in noise.raw}
    noise.cache = cache
    return noise


def pass_delta(
    a: Timeline, da: Dump, b: Timeline, db: Dump, cache: CanonicalCache | None = None
) -> bool:
    """Whether the passes of `da` and `db` changed different things (canonical form)."""
    cache = cache or CanonicalCache()
    return cache.delta(a, da) != cache.delta(b, db)
