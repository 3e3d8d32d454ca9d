#!/usr/bin/env python3
"""On a CUDA host: launch the softmax and attention kernels through ascend_ir_lab, check them.

    python -m venv .venv-gpu && .venv-gpu/bin/pip install triton torch numpy
    .venv-gpu/bin/pip install -e . --no-deps && .venv-gpu/bin/pip install rapidfuzz
    .venv-gpu/bin/python scripts/gpu_check.py [--out DIR] [--no-llvm-dumps]

For each kernel: one recorded launch (`capture`: Run with stages ttir/ttgir/llir/ptx, launch
grid, argument shapes and dtypes), the result against torch, then timed launches of the
compiled kernel. Prints one line per kernel (dumps per stage, Run MB, max error, µs/launch)
and writes the same as JSON to DIR/gpu_check.json. Exit code 1 when a result is wrong.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def folder_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def dumps_per_stage(run_path: Path) -> dict[str, int]:
    from ascend_ir_lab.dumps import open_timeline

    counts: dict[str, int] = {}
    for d in open_timeline(run_path).dumps:
        counts[d.stage] = counts.get(d.stage, 0) + 1
    return counts


def time_us(launch, repeat: int = 50) -> float:  # type: ignore[no-untyped-def]
    import torch

    launch()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeat):
        launch()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1000 / repeat


def check_softmax(out: Path, llvm: bool) -> dict[str, object]:
    import torch

    from ascend_ir_lab.toolchains.common.kernels import load_kernel
    from ascend_ir_lab.toolchains.triton.records import capture

    kernel = load_kernel(f"{ROOT}/tests/kernels/upstream/softmax.py::softmax")
    x = torch.randn(4096, 1000, device="cuda")
    y = torch.empty_like(x)
    args = (y, x, x.stride(0), y.stride(0), x.shape[1])
    run = capture(kernel, (x.shape[0],), *args, BLOCK=1024, out=out / "softmax", llvm_dumps=llvm)
    err = (y - torch.softmax(x, dim=-1)).abs().max().item()
    us = time_us(lambda: kernel[(x.shape[0],)](*args, BLOCK=1024))
    return {
        "kernel": "softmax",
        "run": str(run.path),
        "max_error": err,
        "tolerance": 1e-5,
        "us_per_launch": us,
        "launch": run.manifest["extra"]["launch"],
    }


def check_attention(out: Path, llvm: bool) -> dict[str, object]:
    import torch

    from ascend_ir_lab.toolchains.common.kernels import load_kernel
    from ascend_ir_lab.toolchains.triton.records import capture

    kernel = load_kernel(f"{ROOT}/tests/kernels/upstream/attention.py::attention")
    bh, n, d = 32, 2048, 64
    q, k, v = (torch.randn(bh, n, d, device="cuda", dtype=torch.float16) for _ in range(3))
    o = torch.empty_like(q)
    scale = 1 / math.sqrt(d)
    grid = ((n + 63) // 64, bh)
    meta = {"BLOCK_M": 64, "BLOCK_N": 64, "HEAD_DIM": d}
    run = capture(
        kernel, grid, q, k, v, o, scale, n, out=out / "attention", llvm_dumps=llvm, **meta
    )
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=scale)
    err = (o.float() - ref.float()).abs().max().item()
    us = time_us(lambda: kernel[grid](q, k, v, o, scale, n, **meta))
    flops = 4 * bh * n * n * d
    return {
        "kernel": "attention",
        "run": str(run.path),
        "max_error": err,
        "tolerance": 2e-2,
        "us_per_launch": us,
        "tflops": flops / us / 1e6,
        "launch": run.manifest["extra"]["launch"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("gpu-check-runs"))
    parser.add_argument("--no-llvm-dumps", action="store_true")
    args = parser.parse_args()
    try:
        import torch
        import triton
    except ImportError as exc:
        print(f"gpu_check: {exc}; install torch and upstream triton in this venv", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("gpu_check: no CUDA device here; nothing to launch", file=sys.stderr)
        return 2
    print(
        f"device {torch.cuda.get_device_name()}  triton {triton.__version__}  "
        f"torch {torch.__version__}"
    )
    args.out.mkdir(parents=True, exist_ok=True)
    results, ok = [], True
    for check in (check_softmax, check_attention):
        start = time.perf_counter()
        result = check(args.out, not args.no_llvm_dumps)
        result["seconds_with_capture"] = round(time.perf_counter() - start, 2)
        result["dumps"] = dumps_per_stage(Path(str(result["run"])))
        result["run_mb"] = round(folder_mb(Path(str(result["run"]))), 2)
        good = bool(result["launch"]["launched"]) and result["max_error"] <= result["tolerance"]  # type: ignore[index,operator]
        ok &= good
        verdict = "OK " if good else "BAD"
        print(
            f"{result['kernel']:<10} {verdict} max|err| {result['max_error']:.2e}"
            f"  {result['us_per_launch']:.1f} us/launch  dumps {result['dumps']} "
            f"(total {sum(result['dumps'].values())})  run {result['run_mb']} MB  "  # type: ignore[union-attr]
            f"capture {result['seconds_with_capture']} s  grid {result['launch']['grid']}"
        )  # type: ignore[index]
        results.append(result)
    (args.out / "gpu_check.json").write_text(json.dumps(results, indent=2, default=str) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
