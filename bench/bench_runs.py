"""Compact Runs: a Run's folder against the raw logs it holds; opening compressed logs.

Goals (issue "Capture that scales"): a Run's folder <= 5% of its raw logs; opening it as fast
as the raw log. Whole processes, each baseline beside ours in the same run:
- size: a real matmul compile with every pass (Run folder bytes / plain log bytes);
- open: a ~20 MB and a ~200 MB log (sizes: argv, e.g. `20,200,1000`) as .log.zst (a Run's
  form) and .gz vs the plain log, whole processes, with each one's peak RSS. Under 32 MB a
  compressed log is read whole, as a plain one is; above, by block (plain: memory-mapped).
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from _common import ROOT, WORK, report
from bench_read import big_log

from ascend_ir_lab.dumps.blocks import compress_log
from ascend_ir_lab.toolchains.common.collection import folder_size

OPEN = (
    "import resource,sys\n"
    "from ascend_ir_lab.dumps import open_timeline\n"
    "tl=open_timeline(sys.argv[1]); tl.snapshot_count()\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
)


def run_size() -> None:
    from ascend_ir_lab.toolchains.ascend.compile import compile_kernel
    from ascend_ir_lab.toolchains.triton.compile import compile_spec

    spec, sig, consts = compile_spec(str(ROOT / "tests" / "kernels" / "matmul.py"))
    out = WORK / "run-matmul"
    run = compile_kernel(spec, signature=sig, constexprs=consts, out=out, check=False)
    raw = sum(int(s.get("log_bytes") or 0) for s in run.stages)
    size = folder_size(run.path)
    print(
        f"{'Run folder vs its raw logs':<34} folder {size / 1e3:9.1f} KB   raw logs "
        f"{raw / 1e3:9.1f} KB   ratio {100 * size / raw:5.1f}%   goal <= 5%"
    )


def opened(path: str) -> tuple[float, int]:
    best, rss = float("inf"), 0
    for _ in range(3):
        t = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", OPEN, path], capture_output=True, text=True, check=True
        )
        best = min(best, time.perf_counter() - t)
        rss = int(done.stdout.strip())
    return best, rss


def open_speed(mb: int) -> None:
    plain = big_log(mb)
    zst, gz = plain + ".zst", plain + ".gz"
    if not os.path.exists(zst):
        compress_log(Path(plain), Path(zst))
    if not os.path.exists(gz):
        with open(plain, "rb") as f, gzip.open(gz, "wb", compresslevel=6) as g:
            shutil.copyfileobj(f, g, 1 << 20)
    base, base_rss = opened(plain)
    for label, path in (("zst", zst), ("gz", gz)):
        ours, rss = opened(path)
        report(f"open {mb} MB log as .{label}", ours, base, "plain", "<= 1x (as fast)")
        print(
            f"{'  peak RSS':<34} .{label} {rss / 1024:7.0f} MB   plain (mmap) {base_rss / 1024:7.0f}"
            f" MB   file on disk {os.path.getsize(path) / 2**20:7.1f} MB"
        )


def main() -> None:
    WORK.mkdir(exist_ok=True)
    run_size()
    for mb in (sys.argv[1] if len(sys.argv) > 1 else "20,200").split(","):
        open_speed(int(mb))


if __name__ == "__main__":
    main()
