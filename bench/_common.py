"""Small helpers shared by the benchmarks: timing by best-of-N, and the real fixtures."""

from __future__ import annotations

import gzip
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
WORK = Path(__file__).resolve().parent / ".work"


def best_of(
    fn: Callable[[], object], repeat: int = 5, clock: Callable[[], float] = time.perf_counter
) -> float:
    """Best time of `repeat` calls by `clock` (wall time unless told), in seconds."""
    best = float("inf")
    for _ in range(repeat):
        t = clock()
        fn()
        best = min(best, clock() - t)
    return best


def fixture(name: str) -> bytes:
    """A real fixture's bytes (gunzipped)."""
    p = DATA / name
    raw = p.read_bytes()
    return gzip.decompress(raw) if p.suffix == ".gz" else raw


def report(name: str, ours: float, baseline: float, baseline_name: str, goal: str) -> None:
    """One line: our time, the baseline's, their ratio and the goal."""
    print(
        f"{name:<34} ours {ours * 1000:9.2f} ms   {baseline_name} {baseline * 1000:9.2f} ms   "
        f"ratio {ours / baseline:6.2f}x   goal {goal}"
    )
