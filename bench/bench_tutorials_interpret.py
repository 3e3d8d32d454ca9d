"""NPU-host tutorial scripts on a host with no NPU, three ways, each a whole process:

- capture: `ascend-ir-lab capture -- python SCRIPT.py` (virtual NPU, each launch compiled
  offline into a Run and run in the CPU interpreter),
- cell: the script as one `%%triton_npu --interpret` cell in a real IPython shell,
- plain (the baseline): `TRITON_INTERPRET=1`, the virtual NPU's torch side only (else
  `import torch_npu` stops the script), Triton's own interpreter, no Runs.

For each: exit status, seconds, and for capture and cell the Runs made, how many are
complete (every stage ran) and the fewest dumps of a Run with passes. Prints a table and
writes it as JSON. Scripts are given by path (the tutorials are not part of this
repository).

    python bench/bench_tutorials_interpret.py [--timeout 900] [--out results.json]
        [--modes plain,capture,cell] [--count REGEX]... SCRIPT.py...

`--count REGEX` records, per way, how many output lines match: a script's own checks
(`--count 'error rate:' --count 'error rate: 0.0$'`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

PLAIN = """
import runpy, sys
from ascend_ir_lab.toolchains.ascend.virtual_npu import virtual_npu
sys.argv = [sys.argv[1]]
with virtual_npu():
    runpy.run_path(sys.argv[0], run_name="__main__")
"""

CELL = """
import sys
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
source, runs = open(sys.argv[1]).read(), sys.argv[2]
shell = InteractiveShell.instance()
shell.run_line_magic("load_ext", "ascend_ir_lab")
with capture_output() as seen:
    result = shell.run_cell(f"%%triton_npu --interpret --runs-dir {runs}\\n" + source)
print(seen.stdout)
print(seen.stderr, file=sys.stderr)
sys.exit(0 if result.success else 1)
"""


def _env(plain: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRITON_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    if plain:
        env["TRITON_INTERPRET"] = "1"
    return env


def _timed(
    command: list[str], cwd: Path, plain: bool, timeout: float, counts: Sequence[str] = ()
) -> dict[str, Any]:
    start = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=cwd, env=_env(plain), capture_output=True,
                              text=True, timeout=timeout, check=False)  # fmt: skip
        code: int | str = done.returncode
        output = done.stdout + done.stderr
    except subprocess.TimeoutExpired as stopped:
        code, output = "timeout", _text(stopped.stdout) + _text(stopped.stderr)
    row: dict[str, Any] = {
        "exit": code,
        "seconds": round(time.perf_counter() - start, 1),
        "tail": output[-600:],
    }
    if counts:
        lines = output.splitlines()
        row["lines_matching"] = {
            pattern: sum(1 for line in lines if re.search(pattern, line)) for pattern in counts
        }
    return row


def _text(stream: bytes | str | None) -> str:
    if isinstance(stream, bytes):
        return stream.decode(errors="replace")
    return stream or ""


def _runs(folder: Path) -> dict[str, Any]:
    from ascend_ir_lab.runs import Run

    found = [Run(p) for p in sorted(folder.glob("*")) if (p / "run.json").is_file()]
    complete = [r for r in found if [s.get("name") for s in r.stages][-1:] == ["bishengir"]]
    dumps = [len(r.timeline.dumps) for r in complete]
    passes = [n for n in dumps if n > 10]
    return {"runs": len(found), "complete": len(complete),
            "fewest_dumps_with_passes": min(passes) if passes else 0}  # fmt: skip


def bench(
    script: Path, timeout: float, modes: str = "plain,capture,cell", counts: Sequence[str] = ()
) -> dict[str, Any]:
    """The ways of running one script named in `modes` (see the module docstring)."""
    python = sys.executable
    cli = str(Path(python).with_name("ascend-ir-lab"))
    skipped = {"exit": "skipped", "seconds": 0.0, "tail": ""}
    row: dict[str, Any] = {"script": script.name, "plain": skipped, "capture": skipped,
                           "cell": skipped}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bench-tutorial-") as tmp:
        work = Path(tmp)
        if "plain" in modes:
            row["plain"] = _timed([python, "-c", PLAIN, str(script)], script.parent, True, timeout,
                                  counts)  # fmt: skip
        if "capture" in modes:
            out = work / "capture"
            row["capture"] = _timed([cli, "capture", "-o", str(out), "--", python, str(script)],
                                    script.parent, False, timeout, counts)  # fmt: skip
            row["capture"].update(_runs(out) if out.is_dir() else {})
        if "cell" in modes:
            out = work / "cell"
            row["cell"] = _timed([python, "-c", CELL, str(script), str(out)], script.parent,
                                 False, timeout, counts)  # fmt: skip
            row["cell"].update(_runs(out) if out.is_dir() else {})
    return row


def _line(row: dict[str, Any]) -> str:
    plain, cap, cell = row["plain"], row["capture"], row["cell"]
    ratio = (
        f"{cap['seconds'] / plain['seconds']:.2f}x"
        if plain["exit"] == 0 and cap["exit"] == 0 and plain["seconds"]
        else "-"
    )
    return (
        f"{row['script']:<40} plain {plain['exit']!s:>7} {plain['seconds']:7.1f}s | capture "
        f"{cap['exit']!s:>7} {cap['seconds']:7.1f}s runs {cap.get('complete', 0)}/"
        f"{cap.get('runs', 0)} dumps {cap.get('fewest_dumps_with_passes', 0)} | cell "
        f"{cell['exit']!s:>7} {cell['seconds']:7.1f}s runs {cell.get('complete', 0)}/"
        f"{cell.get('runs', 0)} | capture/plain {ratio}"
    )


def main() -> None:
    """Bench each script given and print one line per script."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scripts", nargs="+", type=Path)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--modes", default="plain,capture,cell", help="which ways to run")
    parser.add_argument("--count", action="append", default=[], metavar="REGEX",
                        help="record how many output lines match (a script's own checks)")  # fmt: skip
    args = parser.parse_args()
    rows = []
    for script in args.scripts:
        rows.append(bench(script.resolve(), args.timeout, args.modes, args.count))
        print(_line(rows[-1]), flush=True)
        if args.out:
            args.out.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
