"""Per-pass timings from MLIR's `... Execution time report ...` (MLIR_ENABLE_TIMING, --mlir-timing).

The report names passes by their display name ("Canonicalizer"); a Run stores timings per
pass argument ("canonicalize"), a pass that runs k times getting keys `arg`, `arg#2`, ...
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

_REPORT_START = "... Execution time report ..."
# "    0.0020 ( 14.4%)  Inliner"  or, with user time, "  0.01 ( 3.1%)  0.01 ( 3.0%)  CSE"
_ROW = re.compile(
    r"^\s*(?P<secs>\d+\.\d+) \(\s*[\d.]+%\)(?:\s+\d+\.\d+ \(\s*[\d.]+%\))*"
    r"(?P<indent>\s{2,})(?P<name>\S.*?)\s*$"
)
_SKIPPED = re.compile(r"^(\(A\) |Rest$|Total$|'.*' Pipeline$|Pipeline Collection)")


@dataclass(frozen=True)
class PassTime:
    """One row of a timing report."""

    name: str
    seconds: float
    depth: int


def parse_report(text: str) -> list[PassTime]:
    """The pass rows of every timing report in `text` (analyses, pipelines, totals dropped)."""
    rows: list[PassTime] = []
    inside = False
    for line in text.splitlines():
        if _REPORT_START in line:
            inside = True
            continue
        if not inside:
            continue
        match = _ROW.match(line)
        if match is None:
            if line.startswith("===") or not line.strip() or "Wall Time" in line:
                continue
            if "Total Execution Time" not in line:
                inside = False
            continue
        name = match.group("name")
        if not _SKIPPED.match(name):
            rows.append(
                PassTime(name, float(match.group("secs")), (len(match.group("indent")) - 2) // 2)
            )
    return rows


def by_argument(rows: Iterable[PassTime], name_to_arg: Mapping[str, str]) -> dict[str, float]:
    """Timings keyed by pass argument (or the display name where no argument is known)."""
    result: dict[str, float] = {}
    for row in rows:
        key = name_to_arg.get(row.name) or row.name
        numbered, k = key, 1
        while numbered in result:
            k += 1
            numbered = f"{key}#{k}"
        result[numbered] = row.seconds
    return result
