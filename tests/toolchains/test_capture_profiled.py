"""A benchmark script under `capture`, written as NPU-host scripts time their kernels: the
launch checked once, then launched again and again inside `torch_npu.profiler.profile`
(triton-ascend's tutorials and `do_bench_npu` do this). Under the virtual NPU the profiled
block runs, the script ends as it would, and the repeated launches are said once with their
count. Real tools."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from ascend_ir_lab.runs import Run
from tests.toolchains.conftest import needs_ascend

SCRIPT = """
import torch
import torch_npu
import triton
import triton.language as tl


@triton.jit
def add(x_ptr, y_ptr, out_ptr, XS: tl.constexpr):
    idx = tl.arange(0, XS)
    tl.store(out_ptr + idx, tl.load(x_ptr + idx) + tl.load(y_ptr + idx))


def profiled(fn, *args):
    config = torch_npu.profiler._ExperimentalConfig(
        aic_metrics=torch_npu.profiler.AiCMetrics.PipeUtilization,
        profiler_level=torch_npu.profiler.ProfilerLevel.Level1,
        l2_cache=False, data_simplification=False,
    )
    stream = torch.npu.current_stream()
    with torch_npu.profiler.profile(
        activities=[torch_npu.profiler.ProfilerActivity.CPU, torch_npu.profiler.ProfilerActivity.NPU],
        schedule=torch_npu.profiler.schedule(wait=0, warmup=1, active=5, repeat=1, skip_first=1),
        on_trace_ready=torch_npu.profiler.tensorboard_trace_handler("./result_profiling"),
        record_shapes=True, experimental_config=config,
    ) as prof:
        stream.synchronize()
        for _ in range(7):
            fn(*args)
            prof.step()
        stream.synchronize()


def run(x, y):
    out = torch.empty_like(x)
    add[1, 1, 1](x, y, out, 256)
    return out


x = torch.rand(256, device="npu")
y = torch.rand(256, device="npu")
torch.testing.assert_close(run(x, y), x + y)
profiled(run, x, y)
print("profiled: done")
"""


@needs_ascend
def test_a_profiled_loop_runs_and_is_said_once(tmp_path: Path) -> None:
    (tmp_path / "bench_add.py").write_text(SCRIPT)
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    cmd = [sys.executable, "-m", "ascend_ir_lab", "capture", "-o", str(tmp_path / "runs"), "--",
           sys.executable, "bench_add.py"]  # fmt: skip
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "profiled: done" in done.stdout
    err = done.stderr.splitlines()
    said = [line for line in err if "torch_npu.profiler: nothing profiled" in line]
    assert said == [
        "[ascend-ir-lab] torch_npu.profiler: nothing profiled (the virtual NPU has no device "
        "timeline); the block ran, no trace was written (a timing read from one finds none: "
        "triton.testing.do_bench_npu gives inf)"
    ]
    assert not (tmp_path / "result_profiling").exists()  # no trace handler was called
    notes = [line for line in err if "launch of add[(1, 1, 1)]" in line]
    # eight launches: each distinct note is one line, said where it first happens, and
    # how many more launches said it is said at the end
    firsts = [line for line in notes if " as above: " not in line]
    assert len(firsts) == len(set(firsts)) >= 1
    more = [re.fullmatch(r"\[ascend-ir-lab\] (\d+) more launch(?:es)? as above: (.*)", line)
            for line in notes if " as above: " in line]  # fmt: skip
    assert all(m and f"[ascend-ir-lab] {m[2]}" in firsts for m in more), "\n".join(err)
    assert len(firsts) + sum(int(m[1]) for m in more if m) == 8, "\n".join(err)
    assert Run(tmp_path / "runs" / "add").status == "ir-complete-no-binary"


TUNED = """
import torch
import torch_npu
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})], key=["n"])
@triton.jit
def tuned_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


x = torch.rand(1000, device="npu")
out = torch.empty_like(x)
tuned_copy[lambda meta: (triton.cdiv(1000, meta["BLOCK"]),)](x, out, 1000)
torch.testing.assert_close(out, x)
"""


@needs_ascend
def test_an_autotuned_launch_says_when_its_passes_are_captured(tmp_path: Path) -> None:
    """Interpreted, the configs are records first; the picked one gets every pass before it
    runs, and the terminal says so (else a slow interpretation after it seems to hang there)."""
    (tmp_path / "tuned.py").write_text(TUNED)
    root = Path(__file__).resolve().parents[2]
    cmd = [sys.executable, "-m", "ascend_ir_lab", "capture", "-o", str(tmp_path / "runs"), "--",
           sys.executable, "tuned.py"]  # fmt: skip
    done = subprocess.run(cmd, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(root)},
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stderr.splitlines()
    records = [k for k, t in enumerate(lines) if ": record only: " in t]
    captured = [k for k, t in enumerate(lines) if ": every pass captured: IR complete" in t]
    launched = [k for k, t in enumerate(lines) if "launch of tuned_copy" in t]
    assert len(records) == 2 and len(captured) == 1 and launched, done.stderr
    assert records[-1] < captured[0] < launched[0]
