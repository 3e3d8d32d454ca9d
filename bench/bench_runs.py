"""Compact Runs: a Run's folder against the raw logs it holds; opening compressed logs.

Goals: a Run's folder <= 5% of its raw logs; opening it as fast as the raw log. Whole
processes, each baseline beside ours in the same run:
- size: every test kernel compiled with every pass (Run folder bytes / plain log bytes), and
  the Runs of an 8-config autotune sweep (the captured one, the cheap records, all);
- open a Run: `inspect`, `show RUN last`, `html` on a real Run and on a Run with a 200 MB log,
  as written (.log.zst) vs the same Run with plain logs, interleaved, best of 3; a large
  compressed log is decompressed once into a private cache and mapped afterwards (its first
  open is the "cold" line);
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

from ascend_ir_lab.dumps.zstd_log import compress_log
from ascend_ir_lab.toolchains.common.collection import folder_size

OPEN = (
    "import resource,sys\n"
    "from ascend_ir_lab.dumps import open_timeline\n"
    "tl=open_timeline(sys.argv[1]); tl.snapshot_count()\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
)


def _ratio_line(name: str, size: int, disk: int, raw: int) -> None:
    print(
        f"{name:<34} folder {size / 1e3:9.1f} KB ({disk / 1e3:7.1f} KB on disk)   raw logs "
        f"{raw / 1e3:9.1f} KB   ratio {100 * size / raw:5.1f}% ({100 * disk / raw:5.1f}% on "
        "disk)   goal <= 5%"
    )


def _disk(path: Path) -> int:
    """Bytes the folder takes on disk (whole blocks), as `du` counts them."""
    return sum(os.lstat(p).st_blocks * 512 for p in path.rglob("*") if not p.is_symlink())


def run_sizes() -> None:
    """Each test kernel compiled with every pass (MLIR passes, with locations), as a Run."""
    from ascend_ir_lab.toolchains.ascend.compile import compile_kernel
    from ascend_ir_lab.toolchains.triton.compile import compile_spec

    for kernel in sorted((ROOT / "tests" / "kernels").glob("*.py")):
        if "\nCOMPILE = " not in kernel.read_text():
            continue
        spec, sig, consts = compile_spec(str(kernel))
        out = WORK / f"run-{kernel.stem}"
        run = compile_kernel(
            spec, signature=sig, constexprs=consts, out=out, check=False, line_info=True
        )
        raw = sum(int(s.get("log_bytes") or 0) for s in run.stages)
        _ratio_line(f"Run of {kernel.stem} ({run.status})", folder_size(out), _disk(out), raw)


def sweep_size() -> None:
    """The Runs of bench_sweep's autotune sweep (8 configs: records, one with every pass)."""
    import json

    from bench_sweep import SCRIPT

    script, out = WORK / "sweep_script.py", WORK / "sizes-sweep"
    script.write_text(SCRIPT)
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run(
        [sys.executable, "-m", "ascend_ir_lab", "capture", "--no-interpret", "-o", str(out),
         "--", sys.executable, str(script)], check=True, capture_output=True,
    )  # fmt: skip
    names = json.loads((out / "capture.json").read_text())["runs"]
    totals = {True: [0, 0, 0, 0], False: [0, 0, 0, 0]}  # passes captured -> n, size, disk, raw
    for name in names:
        manifest = json.loads((out / name / "run.json").read_text())
        t = totals[bool(manifest["extra"].get("passes_captured", True))]
        t[0] += 1
        t[1] += folder_size(out / name)
        t[2] += _disk(out / name)
        t[3] += sum(int(s.get("log_bytes") or 0) for s in manifest["stages"])
    n, size, disk, raw = totals[True]
    _ratio_line(f"sweep: the {n} Run with passes", size, disk, raw)
    k, rsize, rdisk, rraw = totals[False]
    print(
        f"{'sweep: ' + str(k) + ' cheap records':<34} {rsize / k / 1e3:6.1f} KB each "
        f"({rdisk / k / 1e3:5.1f} KB on disk), raw logs {rraw / k / 1e3:5.1f} KB each: IR "
        "artifacts, no dumps"
    )
    _ratio_line(f"sweep: all {len(names)} Runs", size + rsize, disk + rdisk, raw + rraw)


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


def raw_twin(run: Path) -> Path:
    """A copy of the Run `run` whose stage logs are plain `.log` files (as older Runs keep
    them): the baseline a compressed Run opens against."""
    import json

    from ascend_ir_lab.dumps.zstd_log import open_zstd

    twin = run.with_name(run.name + "-raw")
    shutil.rmtree(twin, ignore_errors=True)
    shutil.copytree(run, twin)
    manifest = json.loads((twin / "run.json").read_text())
    for stage in manifest["stages"]:
        log = stage.get("log")
        if isinstance(log, str) and log.endswith(".zst"):
            packed = twin / log
            with open(packed.with_suffix(""), "wb") as out:
                for chunk in open_zstd(packed).chunks():
                    out.write(chunk)
            packed.unlink()
            stage["log"] = log.removesuffix(".zst")
    (twin / "run.json").write_text(json.dumps(manifest, indent=2))
    return twin


def big_run(mb: int) -> Path:
    """A Run whose bishengir stage log is a real log repeated to about `mb` MB."""
    from ascend_ir_lab.toolchains.common.run import RunWriter

    out = WORK / f"run-big-{mb}mb"
    if (out / "run.json").is_file():
        return out
    writer = RunWriter.create("big", {"toolchain": "ascend", "target": "Ascend910B3"}, out)
    log = writer.log_path("bishengir")
    shutil.copyfile(big_log(mb), log)
    writer.add_stage({"name": "bishengir", "log": writer.relative(log), "artifact": None,
                      "command": ["bishengir-compile"], "returncode": 0, "seconds": 0.0})  # fmt: skip
    writer.finish("ir-complete-no-binary")
    return out


def commands_on(run: Path) -> dict[str, list[str]]:
    """The commands that open a Run: list its dumps, print the last one, write its page."""
    cli = [sys.executable, "-m", "ascend_ir_lab"]
    page = str(WORK / f"{run.name}.html")
    return {"inspect": [*cli, "inspect", str(run)], "show last": [*cli, "show", str(run), "last"],
            "html": [*cli, "html", str(run), "-o", page]}  # fmt: skip


def open_runs(run: Path, repeat: int = 3) -> None:
    """Each command on the Run as written (.log.zst) and on its raw twin, interleaved."""
    twin = raw_twin(run)
    ours, raw = commands_on(run), commands_on(twin)
    best: dict[tuple[str, str], float] = {}
    for _ in range(repeat):
        for name in ours:
            for side, argv in (("zst", ours[name]), ("raw", raw[name])):
                t = time.perf_counter()
                subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
                took = time.perf_counter() - t
                best[name, side] = min(best.get((name, side), took), took)
    for name in ours:
        report(f"{run.name}: {name}", best[name, "zst"], best[name, "raw"], "raw log",
               "<= 1x (as fast)")  # fmt: skip
    for log in (run / "stages").glob("*.zst"):
        os.utime(log)  # a log changed since: its kept copy no longer counts
    cold = []
    for argv in (ours["inspect"], raw["inspect"]):
        t = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        cold.append(time.perf_counter() - t)
    report(f"{run.name}: inspect, first open", cold[0], cold[1], "raw log", "(cold, once)")


def main() -> None:
    WORK.mkdir(exist_ok=True)
    print(f"load: {os.getloadavg()}")
    run_sizes()
    sweep_size()
    open_runs(WORK / "run-matmul")
    sizes = (sys.argv[1] if len(sys.argv) > 1 else "20,200").split(",")
    open_runs(big_run(int(sizes[-1])))
    for mb in sizes:
        open_speed(int(mb))


if __name__ == "__main__":
    main()
