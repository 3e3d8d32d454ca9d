"""Per-pass timings of an upstream Triton stage log: MLIR's and LLVM's timing reports.

MLIR_ENABLE_TIMING prints MLIR's `... Execution time report ...` after each pass manager
(parsed by `timing.parse_report`); LLVM_ENABLE_TIMING prints LLVM's legacy
`Pass execution timing report` (codegen, the ptx/amdgcn stage) with user, system and wall
columns. Both are keyed by pass argument where the stage's own dump headers name it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from ascend_ir_lab.dumps import timing
from ascend_ir_lab.dumps.sources import open_timeline

_LLVM_REPORT = "Pass execution timing report"
# "   0.0122 (  1.4%)   0.0805 (  1.7%)   0.0927 (  1.7%)   0.0926 (  1.7%)  Print Module IR #6"
_LLVM_ROW = re.compile(
    r"^\s*(?:\d+\.\d+ \(\s*[\d.]+%\)\s+)*(?P<wall>\d+\.\d+) \(\s*[\d.]+%\)"
    r"\s{2}(?P<name>\S.*?)\s*$"
)
_NUMBERED = re.compile(r" #\d+$")
# Rows that time the printing of dumps (or are totals), not a pass of the pipeline.
_LLVM_SKIP = (
    "Print Module IR",
    "Print Function IR",
    "MachineFunction Printer",
    "Print Loop IR",
    "Total",
    "Unnamed pass",
)


def parse_llvm_report(text: str) -> list[timing.PassTime]:
    """Wall-time rows of every LLVM legacy timing report in `text` (printers, totals left out)."""
    rows: list[timing.PassTime] = []
    inside = False
    for line in text.splitlines():
        if _LLVM_REPORT in line:
            inside = True
            continue
        if not inside:
            continue
        match = _LLVM_ROW.match(line)
        if match is None:
            if line.startswith("===") or "Total Execution Time" in line or "--- Name ---" in line:
                continue
            if line.strip():
                inside = False
            continue
        name = _NUMBERED.sub("", match.group("name"))
        if not name.startswith(_LLVM_SKIP):
            rows.append(timing.PassTime(name, float(match.group("wall")), 0))
    return rows


def stage_timings(log: Path) -> dict[str, float]:
    """Seconds per pass argument for one stage log (empty when it holds no timing report)."""
    text = log.read_text(errors="replace")
    rows = [*timing.parse_report(text), *parse_llvm_report(text)]
    if not rows:
        return {}
    return timing.by_argument(rows, pass_arguments(log, (row.name for row in rows)))


def pass_arguments(log: Path, names: Iterable[str]) -> dict[str, str]:
    """Display name -> pass argument, read from the dump headers of `log` by the engine."""
    wanted = set(names)
    try:
        timeline = open_timeline(str(log))
    except Exception:  # noqa: BLE001 - timings are a bonus; never fail a stage over them
        return {}
    return {d.pass_name: d.arg for d in timeline.dumps if d.pass_name in wanted and d.arg}
