"""Per-pass timings from MLIR's `... Execution time report ...` (MLIR_ENABLE_TIMING, --mlir-timing).

The report names passes by their display name ("Canonicalizer"); a Run stores timings per
pass argument ("canonicalize"), a pass that runs k times getting keys `arg`, `arg#2`, ...
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from ascend_ir_lab.dumps.model import Dump
from ascend_ir_lab.record import Frozen

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from typing import Any, Final

_REPORT_START = "... Execution time report ..."
# "    0.0020 ( 14.4%)  Inliner"  or, with user time, "  0.01 ( 3.1%)  0.01 ( 3.0%)  CSE"
_ROW = re.compile(
    r"^\s*(?P<secs>\d+\.\d+) \(\s*[\d.]+%\)(?:\s+\d+\.\d+ \(\s*[\d.]+%\))*"
    r"(?P<indent>\s{2,})(?P<name>\S.*?)\s*$"
)
_SKIPPED = re.compile(r"^(\(A\) |Rest$|Total$|'.*' Pipeline$|Pipeline Collection)")


class PassTime(Frozen):
    """One row of a timing report."""

    __slots__ = ("name", "seconds", "depth")

    def __init__(self, name: str, seconds: float, depth: int) -> None:
        self.name: Final = name
        self.seconds: Final = seconds
        self.depth: Final = depth


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


def match_timings(dumps: Sequence[Dump], run: Mapping[str, Any] | None) -> dict[int, float]:
    """The seconds a Run's stage `timings` give each Dump, by Dump index: keyed by pass
    argument, `arg#k` for its k-th run in the stage."""
    # A report counts a pass nested under a function pipeline once, however many
    # functions it ran on: consecutive Dumps of one pass on other scopes are that one run.
    stages = {s.get("name"): s.get("timings") or {} for s in (run or {}).get("stages", [])}
    if not any(stages.values()):
        return {}
    seen: dict[tuple[str, str], int] = {}
    out: dict[int, float] = {}
    last: Dump | None = None
    for d in dumps:
        table = stages.get(d.stage)
        same_run = last is not None and (last.stage, last.label) == (d.stage, d.label)
        last = d
        if not table or d.phase == "artifact" or same_run:
            continue
        k = seen[(d.stage, d.label)] = seen.get((d.stage, d.label), 0) + 1
        value = table.get(d.label if k == 1 else f"{d.label}#{k}")
        if isinstance(value, int | float):
            out[d.index] = float(value)
    return out
