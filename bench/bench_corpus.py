"""Share of NPU-host pytest files that work unmodified offline, as `capture` runs them.

Each FILE runs as a user types it on a host with no NPU:

    ascend-ir-lab capture -o OUT/<stem> -- python -m pytest FILE -x -q

in the file's own folder (its conftest.py and helper modules beside it). Per file it records
the exit status, pytest's own verdict (its checks ran on the CPU interpreter's results), and
every Run the launches made: complete when its status is `ir-complete-no-binary` (or better)
and its ttir, adapter and bishengir stages all have dumps, bishengir at least --min-dumps
(an autotune config that did not run is a record of ttir and adapter, complete with those).
The shares printed at the end are over files; the failures are listed by cause.

With --baseline the same files also run under plain `python -m pytest FILE -x -q` beside
it (no virtual NPU, no capture): the share of tests passing there is what a user without the
tool gets on this host.

triton-ascend's own suites need what its python/test-requirements.txt lists beside torch:
pytest-xdist (their conftest.py asks for its `worker_id` fixture; without it every test
errors at setup) and scipy. An NPU host running them has both; here, install them aside
(`pip install --target DIR --no-deps pytest-xdist execnet scipy`) and put DIR on PYTHONPATH.

    python bench/bench_corpus.py                      # our own corpus, tests/kernels/corpus
    python bench/bench_corpus.py DIR_OR_FILES... [--timeout 300] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "kernels" / "corpus"
sys.path.insert(0, str(ROOT))

_VERDICT = re.compile(r"\d+ (passed|failed|errors?|skipped).* in [\d.]+s")
_SUMMARY = re.compile(r"(\d+) (passed|failed|error|errors|skipped)")
_CAUSE = (
    re.compile(r"^\[ascend-ir-lab\] (.*(?:Error|failed|exists only|is not part of).*)$", re.M),
    re.compile(r"^E[ \t]+(\S.*)$", re.M),
    re.compile(r"^(\w+(?:Error|Exception): .*)$", re.M),
)


def _files(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for p in map(Path, paths or [str(CORPUS)]):
        found += sorted([*p.glob("test_*.py"), *p.glob("check_*.py")]) if p.is_dir() else [p]
    return [f.resolve() for f in found]


def _env() -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path}


def _pytest(text: str) -> dict[str, int]:
    counts: Counter[str] = Counter()
    lines = [ln for ln in text.splitlines() if _VERDICT.search(ln)]
    for n, what in _SUMMARY.findall(lines[-1] if lines else ""):
        counts["errors" if what.startswith("error") else what] += int(n)
    return dict(counts)


def _cause(text: str) -> str:
    for pattern in _CAUSE:
        found = pattern.findall(text)
        if found:
            return str(found[0])[:160]
    return ""


def _run_record(folder: Path, min_dumps: int) -> dict[str, Any]:
    from ascend_ir_lab.runs import Run

    run = Run(folder)
    status = run.manifest.get("status", {}).get("code", "")
    stages: Counter[str] = Counter()
    try:
        for dump in run.timeline.dumps:
            stages[dump.stage] += 1
    except Exception as exc:  # noqa: BLE001 - an unreadable Run is an incomplete one
        return {"run": folder.name, "status": status, "complete": False, "error": str(exc)}
    # an autotune config that did not run is a cheap record by design (ttir and adapter only)
    record = not run.passes_captured
    complete = (
        status in ("ir-complete-no-binary", "complete", "ok")
        and all(stages[s] for s in ("ttir", "adapter"))
        and (record or stages["bishengir"] >= min_dumps)
    )
    return {"run": folder.name, "status": status, "dumps": dict(stages), "complete": complete,
            "record": record}  # fmt: skip


def _slot(file: Path, out: Path, suffix: str = "") -> Path:
    """The file's place under `out`: its stem, or with its folder's name too where another
    file of the same stem (another suite's test_add.py) has taken it."""
    name = f"{file.stem}{suffix}"
    if (out / name).exists() or (out / f"{name}.log").exists():
        name = f"{file.parent.name}-{name}"
    return out / name


def measure(file: Path, out: Path, timeout: float, min_dumps: int) -> dict[str, Any]:
    """One file under `capture`: exit status, pytest's verdict (a script's: its exit status),
    its Runs."""
    folder = _slot(file, out)
    script = not file.name.startswith(("test_", "check_"))
    # a script (a tutorial) runs as `python SCRIPT.py`; a test file under pytest
    user = (
        [str(file)] if script else ["-m", "pytest", str(file), "-x", "-q", "-p", "no:cacheprovider"]
    )
    cmd = [sys.executable, "-m", "ascend_ir_lab", "capture", "-o", str(folder), "--",
           sys.executable, *user]  # fmt: skip
    start = time.perf_counter()
    try:
        done = subprocess.run(
            cmd, cwd=file.parent, env=_env(), capture_output=True, text=True, timeout=timeout
        )
        text, code = done.stdout + done.stderr, done.returncode
    except subprocess.TimeoutExpired as exc:
        text, code = f"timed out after {timeout:.0f} s\n{exc.stdout or ''}", -1
    seconds = time.perf_counter() - start
    folder.with_name(f"{folder.name}.log").write_text(text if isinstance(text, str) else str(text))
    try:
        data = json.loads((folder / "capture.json").read_text())
    except (OSError, ValueError):
        data = {}
    names, launches = data.get("runs", []), int(data.get("launches", 0) or 0)
    if not data and folder.is_dir():  # stopped at the time limit: the Runs it had made
        names = sorted(d.name for d in folder.iterdir() if (d / "run.json").is_file())
    runs = [_run_record(folder / n, min_dumps) for n in names if (folder / n).is_dir()]
    verdict = _pytest(text)
    # pytest's own verdict; a compile failure shows in `complete` (and in the exit status)
    passed = verdict.get("passed", 0) > 0 and not (verdict.get("failed") or verdict.get("errors"))
    if script:  # a script's own checks: its exit status
        passed = code == 0
    return {
        "file": file.name,
        "exit": code,
        "seconds": round(seconds, 1),
        "pytest": verdict,
        "launches": launches,
        "runs": runs,
        # a launch whose compile failed has no Run: the file's Runs are then incomplete
        "compile_failures": [f for f in data.get("failures", []) if "interpreter" not in f],
        "complete": bool(runs)
        and all(r["complete"] for r in runs)
        and not [f for f in data.get("failures", []) if "interpreter" not in f],
        "passed": passed,
        # stopped at the time limit: pytest's verdict, where it got that far, still stands
        "cause": f"timed out ({timeout:.0f} s)"
        if code == -1 and not passed
        else _verdict_cause(passed, launches, runs, text, code),
    }


def _verdict_cause(passed: bool, launches: int, runs: list[Any], text: str, code: int) -> str:
    if passed and runs:
        return ""
    if not launches and (passed or "skipped" in text or "no tests ran" in text):
        return "no kernel launched (nothing to compile)"
    return _cause(text) or f"exit {code}"


_CELL_DRIVER = """
import json, sys
from IPython.core.interactiveshell import InteractiveShell
file, runs = sys.argv[1], sys.argv[2]
sys.argv = [file]
sys.path.insert(0, '.')
shell = InteractiveShell.instance()
shell.run_line_magic('load_ext', 'ascend_ir_lab')
if file.rsplit('/', 1)[-1].startswith(('test_', 'check_')):
    code = f"import pytest\\nassert pytest.main([{file!r}, '-x', '-q', '-p', 'no:cacheprovider']) == 0"
else:
    code = open(file).read()
result = shell.run_cell(f"%%triton_npu --interpret --runs-dir {runs}\\n{code}")
error = result.error_in_exec or result.error_before_exec
print(json.dumps({"cell_ok": bool(result.success), "error": repr(error)[:300] if error else ""}))
"""


def measure_cell(file: Path, out: Path, timeout: float, min_dumps: int) -> dict[str, Any]:
    """One file as one `%%triton_npu --interpret` cell of a real IPython shell: a script's
    text, or a test file's `pytest.main([...])`."""
    folder = _slot(file, out, "-cell")
    folder.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-c", _CELL_DRIVER, str(file), str(folder)]
    start = time.perf_counter()
    try:
        done = subprocess.run(
            cmd, cwd=file.parent, env=_env(), capture_output=True, text=True, timeout=timeout
        )
        text = done.stdout + done.stderr
        last = (done.stdout.strip().splitlines() or ["{}"])[-1]
        verdict = json.loads(last) if last.startswith("{") else {"cell_ok": False}
    except subprocess.TimeoutExpired:
        text, verdict = f"timed out after {timeout:.0f} s", {"cell_ok": False, "error": "timeout"}
    folder.with_name(f"{folder.name}.log").write_text(text)
    runs = [
        _run_record(d, min_dumps) for d in sorted(folder.iterdir()) if (d / "run.json").is_file()
    ]
    return {
        "file": file.name,
        "cell": True,
        "seconds": round(time.perf_counter() - start, 1),
        "runs": runs,
        "complete": bool(runs) and all(r["complete"] for r in runs),
        "passed": bool(verdict.get("cell_ok")),
        "cause": "" if verdict.get("cell_ok") else str(verdict.get("error") or _cause(text)),
    }


def baseline(file: Path, timeout: float) -> bool:
    """Whether the file's tests pass under plain pytest on this host (no tool)."""
    cmd = [sys.executable, "-m", "pytest", str(file), "-x", "-q", "-p", "no:cacheprovider"]
    try:
        done = subprocess.run(cmd, cwd=file.parent, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


def main(argv: list[str] | None = None) -> int:
    """Measure the files; print one line each, the shares and the failures by cause."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("paths", nargs="*", help="test files or folders (default: our corpus)")
    p.add_argument("--out", default=str(ROOT / "bench" / ".work" / "corpus"))
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--min-dumps", type=int, default=250)
    p.add_argument("--baseline", action="store_true", help="also run plain pytest beside it")
    p.add_argument("--json", help="write every record here")
    p.add_argument("--cells", action="store_true", help="each file as one %%%%triton_npu cell")
    args = p.parse_args(argv)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    records = []
    for file in _files(args.paths):
        how = measure_cell if args.cells else measure
        rec = how(file, out, args.timeout, args.min_dumps)
        if args.baseline:
            rec["baseline_passed"] = baseline(file, args.timeout)
        records.append(rec)
        runs = f"{sum(r['complete'] for r in rec['runs'])}/{len(rec['runs'])} complete"
        verdict = "pass" if rec["passed"] else "FAIL"
        print(f"{file.name:<44} {verdict:<4} runs {runs:<14} {rec['seconds']:7.1f} s  "
              f"{rec['cause']}", flush=True)  # fmt: skip
    _summary(records, args.baseline)
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=2) + "\n")
    return 0


def _summary(records: list[dict[str, Any]], with_baseline: bool) -> None:
    kept = [r for r in records if not r["cause"].startswith("no kernel launched")]
    n = len(kept) or 1
    complete = sum(r["complete"] for r in kept)
    passed = sum(r["passed"] for r in kept)
    both = sum(r["complete"] and r["passed"] for r in kept)
    print(f"\nfiles {len(records)}, {len(kept)} launching a kernel: complete Runs {complete} "
          f"({complete / n:.0%}), tests pass {passed} ({passed / n:.0%}), both {both} "
          f"({both / n:.0%})")  # fmt: skip
    if with_baseline:
        plain = sum(bool(r.get("baseline_passed")) for r in records)
        print(f"baseline, plain pytest with no tool: tests pass {plain} ({plain / n:.0%})")
    causes = Counter(_kind(r["cause"]) for r in records if not (r["complete"] and r["passed"]))
    for cause, count in causes.most_common():
        print(f"  {count:3d}  {cause}")


def _kind(cause: str) -> str:
    """A failure's cause without the numbers and names that differ from file to file."""
    return re.sub(r"\d+(\.\d+)?", "N", cause)[:120]


if __name__ == "__main__":
    sys.exit(main())
