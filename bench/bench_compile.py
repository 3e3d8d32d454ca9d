"""Capture overhead of `compile_kernel` against the same tools run bare.

Bare = what a person does by hand: `triton.compile` with MLIR_ENABLE_DUMP=1 and its stderr
sent to a file, then `triton-adapter-opt ... --mlir-print-ir-after-all > log` and
`bishengir-compile ... --mlir-print-ir-after-all > log`, with the same options.
Capture = `ascend_ir_lab.toolchains.ascend.compile.compile_kernel` writing a whole Run (manifest,
versions, artifacts, timings). Goal (issue 3): ratio <= 1.3 on matmul and attention.

    python bench/bench_compile.py [--repeat 3] [KERNEL ...]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ascend_ir_lab.toolchains.ascend import options as opts  # noqa: E402
from ascend_ir_lab.toolchains.ascend.compile import compile_kernel  # noqa: E402
from ascend_ir_lab.toolchains.ascend.ttir_stage import stop_before_binary  # noqa: E402
from ascend_ir_lab.toolchains.common.env import patched_environ  # noqa: E402
from ascend_ir_lab.toolchains.common.kernels import load_kernel, parse_signature  # noqa: E402
from ascend_ir_lab.toolchains.common.tool_log import capture_fds  # noqa: E402
from ascend_ir_lab.toolchains.common.tools import find_tool  # noqa: E402

GOAL = 1.3


def kernel_info(name: str) -> dict[str, Any]:
    """COMPILE dict of tests/kernels/<name>.py with its FILE::KERNEL spec."""
    path = ROOT / "tests" / "kernels" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {**module.COMPILE, "spec": f"{path}::{module.COMPILE['kernel']}"}


def bare(info: dict[str, Any], work: Path) -> float:
    """Seconds for the three tools run by hand, output to files."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    fn = load_kernel(info["spec"])
    src = ASTSource(fn, parse_signature(info["signature"]), constants=dict(info["constexprs"]))
    cache = work / "cache"
    env = {"MLIR_ENABLE_DUMP": "1", "TRITON_ALWAYS_COMPILE": "1", "TRITON_CACHE_DIR": str(cache)}
    start = time.perf_counter()
    # both sides stop triton-ascend before its binary step, so only capture is compared
    with patched_environ(env), stop_before_binary(), capture_fds(work / "ttir.log"):
        try:
            triton.compile(src, target=GPUTarget("npu", "Ascend910B3", 0))
        except Exception:  # noqa: BLE001 - stopped before the binary step; the IR files exist
            pass
    ttir = next(cache.rglob("*.ttir"))
    o = opts.npu_options()
    adapter = work / "adapter.mlir"
    _tool(
        [
            find_tool("triton-adapter-opt"),
            ttir,
            *opts.adapter_args(o, os.environ),
            opts.PRINT_AFTER_ALL,
            "-o",
            adapter,
        ],
        work / "adapter.log",
    )
    text, _ = opts.bishengir_input(adapter.read_text())
    (work / "in.mlir").write_text(text)
    args = opts.bishengir_args(o, "Ascend910B3", os.environ)
    _tool(
        [
            find_tool("bishengir-compile"),
            work / "in.mlir",
            *args,
            opts.PRINT_AFTER_ALL,
            "-o",
            work / "kernel",
        ],
        work / "bishengir.log",
    )
    return time.perf_counter() - start


def _tool(cmd: list[Any], log: Path) -> None:
    with open(log, "wb") as out:
        subprocess.run(
            [str(c) for c in cmd], stdout=out, stderr=subprocess.STDOUT, check=False, timeout=600
        )


def captured(info: dict[str, Any], work: Path) -> float:
    """Seconds for compile_kernel writing a whole Run."""
    start = time.perf_counter()
    compile_kernel(
        info["spec"],
        signature=info["signature"],
        constexprs=info["constexprs"],
        out=work / "run",
    )
    return time.perf_counter() - start


def main() -> int:
    """Print bare vs capture seconds and their ratio for each kernel."""
    parser = argparse.ArgumentParser()
    parser.add_argument("kernels", nargs="*", default=["matmul", "attention"])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    worst = 0.0
    for name in args.kernels:
        info = kernel_info(name)
        with tempfile.TemporaryDirectory() as tmp:
            captured(info, Path(tmp) / "warmup")  # imports, version probes: once per process
            b, c = [], []
            for i in range(args.repeat):
                b.append(bare(info, Path(tmp) / f"bare{i}"))
                c.append(captured(info, Path(tmp) / f"cap{i}"))
        ratio = statistics.median(c) / statistics.median(b)
        worst = max(worst, ratio)
        print(
            f"{name:<10} bare {statistics.median(b):6.2f} s   capture "
            f"{statistics.median(c):6.2f} s   ratio {ratio:4.2f} (goal <= {GOAL})"
        )
    print(f"worst ratio {worst:.2f}: {'OK' if worst <= GOAL else 'OVER GOAL'}")
    return 0 if worst <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
