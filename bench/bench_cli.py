"""Every read command as the user waits for it, against `grep -c 'IR Dump'` on the same file.

Whole processes: start-up, reading, analysis and output included. The log is real logs of the
real compilers (bishengir-compile, triton-adapter-opt, upstream Triton's MLIR and LLVM dumps,
LLVM's opt) concatenated to about SIZE MB.

    python bench/bench_cli.py [SIZE_MB ...] [--repeat N] [--json OUT]   (default: 200 and 1024 MB)

Goals: each command <= 3x grep; the reader alone <= 2x grep; start-up <= 150 ms; every command
under 2 GB peak RSS. Each command is timed twice over: on its first open of the log ("first",
no index kept: each run gets an empty temporary folder) and again ("again", the index the
first read kept, as a user's second command on the same log finds it). The commands run as an installed CLI runs: Python writes and reuses its
bytecode cache (the warm-up run writes it), whatever PYTHONDONTWRITEBYTECODE says here.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import DATA, ROOT, WORK, fixture

SOURCES = (
    "ascend/matmul.bishengir.log.gz",
    "ascend/vadd.bishengir.module-scope.log.gz",
    "ascend/softmax.bishengir.before-all.log.gz",
    "ascend/failed.log",
    "ascend/vadd.adapter.log",
    "ascend/vadd.ttir-passes.log",
    "triton/attention.cuda90.mlir-dump.txt.gz",
    "triton/softmax.cuda90.llvm-dump.txt.gz",
    "llvm/loop.after-all.log",
    "llvm/changed.log",
    "ascend/matmul.bishengir.barrier-all.log.gz",
)


def big_log(target_mb: int) -> Path:
    """Real logs concatenated, round after round, to about `target_mb` MB."""
    WORK.mkdir(exist_ok=True)
    path = WORK / f"mixed-{target_mb}mb.log"
    if path.exists() and path.stat().st_size >= target_mb << 20:
        return path
    chunk = b"".join(fixture(name) for name in SOURCES if (DATA / name).exists())
    with path.open("wb") as f:
        for _ in range((target_mb << 20) // len(chunk) + 1):
            f.write(chunk)
        # on disk before any timing: no writeback of a fresh file's pages during the runs
        f.flush()
        os.fsync(f.fileno())
    return path


def _cli() -> list[str]:
    script = Path(sys.executable).with_name("ascend-ir-lab")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ascend_ir_lab"]


def _code_under_test(env: dict[str, str]) -> str:
    """Where the timed processes import ascend_ir_lab from: this checkout, or refuse."""
    probe = "import ascend_ir_lab, os; print(os.path.dirname(ascend_ir_lab.__file__))"
    cmds = [[sys.executable, "-c", probe]]
    script = _cli()[0]
    if script != sys.executable:  # the console script runs under its own interpreter
        with open(script, "rb") as f:
            shebang = f.readline().decode(errors="replace")
        if shebang.startswith("#!"):
            cmds.append([shebang[2:].strip(), "-c", probe])
    for cmd in cmds:
        where = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        found = Path(where.stdout.strip()).resolve()
        if found != ROOT / "ascend_ir_lab":
            raise SystemExit(f"{cmd[0]} imports ascend_ir_lab from {found}, not from {ROOT}")
    return str(ROOT / "ascend_ir_lab")


def run_once(cmd: list[str], env: dict[str, str], fresh: bool = False) -> tuple[float, int, float]:
    """`_run_once`; with `fresh`, in an empty temporary folder of its own (no kept index)."""
    if not fresh:
        return _run_once(cmd, env)
    with tempfile.TemporaryDirectory(prefix="bench-cli-tmp-") as tmp:
        return _run_once(cmd, {**env, "TMPDIR": tmp})


def _run_once(cmd: list[str], env: dict[str, str]) -> tuple[float, int, float]:
    """Wall seconds, peak RSS (bytes) and CPU seconds of one whole process, its output
    written to a file.

    Not /dev/null: GNU grep stops at the first match when its output is /dev/null.
    """
    with tempfile.TemporaryFile() as sink:
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)}: exit code {proc.returncode}")
    return wall, usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime


def compare(
    cmd: list[str], base: list[str], env: dict[str, str], repeat: int, fresh: bool = False
) -> tuple:
    """Runs A B A B ...; returns medians of A's and B's wall time, of the pairwise wall
    ratios and CPU-time ratios (steadier on a shared machine), and A's peak RSS."""
    run_once(cmd, env, fresh), run_once(base, env, fresh)  # warm-up
    ours, theirs, ratios, cpu, rss = [], [], [], [], 0
    for _ in range(repeat):
        a, mem, a_cpu = run_once(cmd, env, fresh)
        b, _, b_cpu = run_once(base, env, fresh)
        ours.append(a), theirs.append(b), ratios.append(a / b), cpu.append(a_cpu / b_cpu)
        rss = max(rss, mem)
    return (
        statistics.median(ours), statistics.median(theirs), statistics.median(ratios),
        statistics.median(cpu), rss,
    )  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("size_mb", nargs="*", type=int, default=[200, 1024])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", metavar="OUT", help="also write every figure here")
    args = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs")
    print(f"code: {_code_under_test(env)}")
    figures: list[dict[str, object]] = []
    for size_mb in args.size_mb:
        figures += bench_size(size_mb, env, args.repeat)
    bare = [sys.executable, "-c", "pass"]
    cli = _cli()
    start, py, *_ = compare([*cli, "--version"], bare, env, args.repeat)
    print(
        f"{'start-up (--version)':<26} {start * 1000:9.0f} {'python -c pass':>14} {py * 1000:.0f} ms"
        f"   goal <= 150 ms  {'ok' if start <= 0.150 else 'OVER'}"
    )
    end = os.getloadavg()
    print(f"load average {end[0]:.2f} {end[1]:.2f} {end[2]:.2f} at the end")
    if args.json:
        record = {
            "host": {"cpus": os.cpu_count(), "load_start": load[:2], "load_end": end[:2]},
            "repeat": args.repeat, "rows": figures,
            "start_up_ms": round(start * 1000), "python_ms": round(py * 1000),
        }  # fmt: skip
        Path(args.json).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def bench_size(size_mb: int, env: dict[str, str], repeat: int) -> list[dict[str, object]]:
    """Every command on a log of about `size_mb` MB, against grep on the same file; its
    figures, a row each."""
    path = big_log(size_mb)
    size = path.stat().st_size
    subprocess.run(["cat", str(path)], stdout=subprocess.DEVNULL, check=True)  # page cache
    grep = ["grep", "-c", "IR Dump", str(path)]
    cli, p = _cli(), str(path)
    out = Path(tempfile.mkdtemp(prefix="bench-cli-")) / "page.html"
    reader = [sys.executable, "-c", f"from ascend_ir_lab.dumps import open_timeline; open_timeline({p!r})"]  # fmt: skip
    rows = [
        ("reader (open_timeline)", reader, 2),
        ("inspect", [*cli, "inspect", p], 3),
        ("inspect --json", [*cli, "inspect", "--json", p], 3),
        ("find hivm.hir.set_flag", [*cli, "find", p, "hivm.hir.set_flag"], 3),
        ("search PIPE_ALL", [*cli, "search", p, "PIPE_ALL"], 3),
        ("sync", [*cli, "sync", p], 3),
        ("show last", [*cli, "show", p, "last"], 3),
        ("html", [*cli, "html", p, "-o", str(out)], 3),
    ]
    print(f"log: {size / 2**20:.0f} MB of real logs ({', '.join(Path(s).name for s in SOURCES)})")
    print(
        f"{'command, open':<30} {'ours ms':>9} {'grep ms':>9} {'wall':>7} {'cpu':>7}  goal  "
        f"{'peak RSS MB':>11}"
    )
    figures: list[dict[str, object]] = []
    for name, cmd, goal in rows:
        for when, fresh in (("first", True), ("again", False)):
            ours, theirs, ratio, cpu, rss = compare(cmd, grep, env, repeat, fresh)
            mark = "ok" if ratio <= goal and rss < 2 << 30 else "OVER"
            figures.append({
                "log_mb": round(size / 2**20), "command": name, "open": when,
                "ours_ms": round(ours * 1000), "grep_ms": round(theirs * 1000),
                "wall_ratio": round(ratio, 2), "cpu_ratio": round(cpu, 2), "goal": goal,
                "peak_rss_mb": round(rss / 2**20), "met": mark == "ok",
            })  # fmt: skip
            print(
                f"{name + ', ' + when:<30} {ours * 1000:9.0f} {theirs * 1000:9.0f} {ratio:6.2f}x "
                f"{cpu:6.2f}x  <={goal}x {rss / 2**20:11.0f}  {mark}"
            )
    shutil.rmtree(out.parent, ignore_errors=True)
    return figures


if __name__ == "__main__":
    main()
