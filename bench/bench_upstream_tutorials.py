"""Upstream Triton's tutorials as one cell each: plain vs under `%%triton_npu`, whole processes.

    python bench/bench_upstream_tutorials.py TUTORIAL.py [...] [--out results.json]
    python bench/bench_upstream_tutorials.py --show bench/results/upstream_tutorials_h200.json

Each tutorial file (upstream's `python/tutorials/0N-*.py`; bring your own copy, it is not part
of this project) becomes one IPython cell: the file as it is, less its performance sweeps
(top-level `<benchmark>.run(...)` calls and the `if __name__ == "__main__":` block, minutes of
timing loops that check nothing) and, for tutorials whose checks are pytest functions, with a
few of those called at the end. The cell runs twice, each time in a fresh process with a fresh
Triton cache: as a plain cell, then as a `%%triton_npu` cell. Printed per tutorial: both times,
their ratio, the Runs (how many, how many hold their passes, their size on disk), whether the
tutorial's own checks passed in both, and whether any dump text reached the console.

On a host with a GPU the launches run and are recorded; without one the magic cross-compiles
(launch skipped) and the plain cell cannot run at all (its `driver.active` has no GPU).
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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# Checks of tutorials that keep them in pytest functions: called at the end of the cell.
CALLS = {
    "05-layer-norm": "",  # calls test_layer_norm itself
    "06-fused-attention": (
        "\ntest_op(1, 2, 1024, 64, False, False, 'bwd', 'triton-fp16')"
        "\ntest_op(1, 2, 1024, 64, True, False, 'bwd', 'triton-fp16')"
        "\nif TORCH_HAS_FP8:\n    test_op(1, 2, 1024, 64, False, False, 'fwd', 'triton-fp8')"
        "\nprint('06: test_op checks passed')\n"
    ),
    # these keep their checks in the `__main__` block the sweep is cut with
    "09-persistent-matmul": (
        "\ntorch.manual_seed(0)\nvalidate(32, 32, 32, torch.float16)"
        "\nvalidate(8192, 8192, 512, torch.float16)\n"
    ),
    "11-programmatic-dependent-launch": "\nvalidate(1024) if supports_pdl() else print('no PDL')\n",
}
# What a tutorial prints when its own check passes (otherwise: the cell raising is a failure).
PASS_LINES = {
    "01-vector-add": (r"maximum difference between torch and triton is 0\.0", 1),
    "03-matrix-multiplication": (r"✅ Triton and Torch match", 1),
    "06-fused-attention": (r"06: test_op checks passed", 1),
    "09-persistent-matmul": (r"Persistent: ✅", 2),
    "11-programmatic-dependent-launch": (r"add: ✅", 1),
}
DUMP_TEXT = re.compile(
    r"IR Dump (Before|After)|^# \*\*\* IR Dump|^# Machine code for function", re.M
)

RUNNER = r"""
import json, sys, time, io, contextlib
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
shell.run_line_magic("load_ext", "ascend_ir_lab")
cell = open(sys.argv[1]).read()
start = time.perf_counter()
result = shell.run_cell(cell, store_history=False)
seconds = time.perf_counter() - start
error = result.error_in_exec or result.error_before_exec
json.dump({"seconds": round(seconds, 2), "ok": error is None,
           "error": None if error is None else f"{type(error).__name__}: {error}"[:400]},
          open(sys.argv[2], "w"))
"""


def cell_of(tutorial: Path) -> str:
    """The tutorial's text as one cell: its performance sweeps left out, its pytest checks
    called."""
    lines, kept, skipping = tutorial.read_text().splitlines(), [], False
    for line in lines:
        if re.match(r"if __name__ == .__main__.:", line):
            skipping = True
            continue
        if skipping and (not line.strip() or line[:1].isspace()):
            continue
        skipping = False
        if re.match(r"\w+\.run\(", line):  # a top-level perf_report sweep
            kept.append("pass  # performance sweep left out: " + line.strip())
            continue
        kept.append(line)
    return "\n".join(kept) + "\n" + CALLS.get(tutorial.stem, "")


def fresh(path: Path) -> Path:
    """`path`, or `path` numbered (-2, -3...) when a repeat already used it."""
    n, found = 1, path
    while found.exists():
        n += 1
        found = path.with_name(f"{path.name.removesuffix('-runs')}-{n}-runs")
    return found


def folder_bytes(path: Path) -> int:
    """Bytes of every file under `path`."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def runs_in(folder: Path) -> list[dict[str, Any]]:
    """Each Run folder under `folder`: name, status, whether it holds passes, size, stages."""
    found = []
    for manifest in sorted(folder.glob("*/run.json")):
        data = json.loads(manifest.read_text())
        extra = data.get("extra") or {}
        found.append({
            "run": manifest.parent.name,
            "status": (data.get("status") or {}).get("code"),
            "passes": bool(extra.get("passes_captured", True)),
            "launched": bool((extra.get("launch") or {}).get("launched")),
            "bytes": folder_bytes(manifest.parent),
            "stage_s": round(sum(float(s.get("seconds") or 0) for s in data.get("stages", [])), 3),
            "stages": [s.get("name") for s in data.get("stages", [])],
        })  # fmt: skip
    return found


def run_one(tutorial: Path, mode: str, work: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One whole process running the tutorial's cell, plain or under the magic."""
    runs = fresh(work / f"{tutorial.stem}-{mode}-runs")
    runs.mkdir(parents=True)
    head = f"%%triton_npu --runs-dir {runs} {args.magic_args}".rstrip() + "\n"
    cell = (head if mode == "magic" else "") + cell_of(tutorial)
    stem = runs.name.removesuffix("-runs")
    cell_file, result_file = work / f"{stem}.py", work / f"{stem}.json"
    cell_file.write_text(cell)
    log = work / f"{stem}.log"
    env = {**os.environ, "TRITON_CACHE_DIR": str(work / f"cache-{stem}"),
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "MPLBACKEND": "Agg"}  # fmt: skip
    start = time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.run(
            [sys.executable, "-c", RUNNER, str(cell_file), str(result_file)],
            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=work, timeout=args.timeout,
            check=False,
        )  # fmt: skip
    process = time.perf_counter() - start
    text = log.read_text(errors="replace")
    outcome = json.loads(result_file.read_text()) if result_file.is_file() else {"ok": False}
    pattern, count = PASS_LINES.get(tutorial.stem, (None, 0))
    checks = outcome.get("ok", False) and proc.returncode == 0
    if pattern is not None:
        checks = checks and len(re.findall(pattern, text)) >= count and "❌" not in text
    made = runs_in(runs)
    return {
        "tutorial": tutorial.stem, "mode": mode, "cell_s": outcome.get("seconds"),
        "process_s": round(process, 2), "ok": outcome.get("ok"), "error": outcome.get("error"),
        "checks_passed": bool(checks), "dump_lines_in_console": len(DUMP_TEXT.findall(text)),
        "runs": len(made), "runs_with_passes": sum(r["passes"] for r in made),
        "runs_bytes": sum(r["bytes"] for r in made), "run_list": made,
        "capture_s": round(sum(r["stage_s"] for r in made if r["passes"]), 2),
        "console_tail": text[-1500:],
    }  # fmt: skip


def table(results: list[dict[str, Any]]) -> str:
    """Per tutorial (the quickest of its repeats): plain s, magic s, their ratio, the seconds
    the magic spent compiling the Runs that keep their passes, the ratio against plain plus
    that capture, Runs (with passes), their MB, checks, dump lines in the console."""
    rows = ["tutorial                   plain s  magic s  ratio  capture s  vs plain+capture  "
            "Runs (passes)  Runs MB  checks plain/magic  dump lines in console"]  # fmt: skip
    for name in dict.fromkeys(r["tutorial"] for r in results):
        plain, magic = _best(results, name, "plain"), _best(results, name, "magic")
        p, m, c = plain.get("cell_s"), magic.get("cell_s"), magic.get("capture_s") or 0.0
        ratio = f"{m / p:5.2f}x" if p and m else "   - "
        with_capture = f"{m / (p + c):5.2f}x" if p and m else "   - "
        rows.append(
            f"{name:<26} {p if p is not None else '-':>7}  {m if m is not None else '-':>7}  "
            f"{ratio}  {c:9.2f}  {with_capture:>16}  "
            f"{magic.get('runs', '-'):>5} ({magic.get('runs_with_passes', '-'):>3})    "
            f"{magic.get('runs_bytes', 0) / 1e6:7.1f}  {_mark(plain)}/{_mark(magic)}"
            f"                  {magic.get('dump_lines_in_console', '-')}"
        )
    return "\n".join(rows)


def _best(results: list[dict[str, Any]], name: str, mode: str) -> dict[str, Any]:
    """The quickest of the repeats of one tutorial and mode (checks: all must pass)."""
    tries = [r for r in results if r["tutorial"] == name and r["mode"] == mode]
    timed = [r for r in tries if r.get("cell_s") is not None]
    if not timed:
        return tries[0] if tries else {}
    best = dict(min(timed, key=lambda r: r["cell_s"]))
    best["checks_passed"] = all(r.get("checks_passed") for r in tries)
    return best


def _mark(result: dict[str, Any]) -> str:
    if not result:
        return "-"
    return "pass" if result.get("checks_passed") else "FAIL"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tutorials", nargs="*", type=Path)
    parser.add_argument("--out", type=Path, help="write the results (JSON) here")
    parser.add_argument("--modes", default="plain,magic")
    parser.add_argument("--magic-args", default="", help="options for the %%triton_npu line")
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each mode, alternating")
    parser.add_argument("--show", type=Path, help="print the table of a results file and stop")
    args = parser.parse_args()
    if args.show:
        data = json.loads(args.show.read_text())
        print(data.get("host", ""))
        print(table(data["results"]))
        return
    work = Path(tempfile.mkdtemp(prefix="upstream-tutorials-"))
    results = []
    for tutorial in args.tutorials:
        for mode in args.modes.split(",") * args.repeat:
            try:
                results.append(run_one(tutorial.resolve(), mode, work, args))
            except subprocess.TimeoutExpired:
                results.append({"tutorial": tutorial.stem, "mode": mode, "error": "timed out"})
            print(json.dumps({k: v for k, v in results[-1].items() if k != "console_tail"}),
                  flush=True)  # fmt: skip
    print(table(results))
    if args.out:
        args.out.write_text(json.dumps({"host": _host(), "results": results}, indent=1))


def _host() -> str:
    try:
        import torch

        if torch.cuda.is_available():
            return f"{torch.cuda.get_device_name()}, torch {torch.__version__}"
    except ImportError:
        pass
    return "no GPU"


if __name__ == "__main__":
    main()
