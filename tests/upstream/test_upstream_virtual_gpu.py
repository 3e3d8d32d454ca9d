"""GPU scripts in a `%%triton_npu` cell on a host with no GPU: the virtual GPU, cheap records.

The cells are written the way upstream Triton's tutorials are (the device from triton's
driver, grids sized from the device's properties, `kernel.warmup(...)` and the handle it
returns launched with a register-based occupancy, `@triton.autotune` over configs, code paths
chosen by `torch.cuda.get_device_capability()`), with kernels of our own. Here each launch is
cross-compiled for cuda:90 and skipped; the first compile of each kernel and argument types
keeps its passes, the others are cheap records one `run.capture()` away.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from upstream_skips import cuda_device_reason, needs_upstream

pytestmark = [
    pytest.mark.gpu,
    needs_upstream,
    pytest.mark.skipif(
        importlib.util.find_spec("IPython") is None or importlib.util.find_spec("torch") is None,
        reason="needs IPython and (CPU) torch in .venv-gpu (scripts/setup --all)",
    ),
    pytest.mark.skipif(
        cuda_device_reason() is None, reason="a real GPU here: launches run, no virtual GPU"
    ),
]

SCRIPT = """
import torch, triton, triton.language as tl
from triton.runtime import driver

DEVICE = driver.active.get_active_torch_device()
props = driver.active.utils.get_device_properties(DEVICE.index)
hopper = torch.cuda.get_device_capability()[0] == 9


@triton.jit
def scale_rows(out_ptr, in_ptr, n_rows, n_cols, BLOCK: tl.constexpr, num_stages: tl.constexpr):
    start = tl.program_id(0)
    for row in tl.range(start, n_rows, tl.num_programs(0), num_stages=num_stages):
        cols = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
        tl.store(out_ptr + row * n_cols + cols, x * 2.0, mask=cols < n_cols)


@triton.autotune(
    configs=[triton.Config({"BLOCK": b}, num_warps=w) for b, w in ((64, 2), (128, 4), (32, 1))],
    key=["n"],
)
@triton.jit
def shifted(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)


x = torch.rand(100, 200, device=DEVICE)
y = torch.empty_like(x)
handle = scale_rows.warmup(y, x, 100, 200, BLOCK=256, num_stages=2, num_warps=4, grid=(1,))
handle._init_handles()
n_regs = handle.n_regs
occupancy = props["max_num_regs"] // (n_regs * props["warpSize"] * 4)
handle[(props["multiprocessor_count"] * occupancy, 1, 1)](y, x, 100, 200)

v = torch.rand(1000, device=DEVICE)
w = torch.empty_like(v)
grid = lambda meta: (triton.cdiv(1000, meta["BLOCK"]),)
shifted[grid](v, w, 1000)
shifted[grid](v.half(), w.half(), 1000)
"""


def run_cell(shell: Any, code: str) -> tuple[Any, str]:
    """Run `code` as a cell: (its result, everything a plain-text frontend showed)."""
    from IPython.utils.capture import capture_output

    with capture_output() as io:
        result = shell.run_cell(code, store_history=True)
    texts = [o.data.get("text/plain", "") for o in io.outputs]
    return result, "\n".join([io.stdout, io.stderr, *texts])


@pytest.fixture(scope="module")
def shell() -> Iterator[Any]:
    from IPython.core.interactiveshell import InteractiveShell

    sh = InteractiveShell.instance()
    sh.run_line_magic("load_ext", "ascend_ir_lab")
    yield sh


@pytest.fixture(scope="module")
def script(shell: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, str, Path, Any]:
    """The script as one cell; (result, output, runs folder, triton's driver before it)."""
    from triton.runtime import driver

    runs = tmp_path_factory.mktemp("virtual-gpu-runs")
    before = driver._active
    result, out = run_cell(shell, f"%%triton_npu --runs-dir {runs}\n{SCRIPT}")
    return result, out, runs, before


def _runs(folder: Path) -> list[Any]:
    from ascend_ir_lab.runs import Run

    return [Run(p.parent) for p in sorted(folder.glob("*/run.json"))]


def test_the_script_runs_on_the_virtual_gpu_and_says_so(
    script: tuple[Any, str, Path, Any], shell: Any
) -> None:
    result, out, _runs_dir, _before = script
    assert result.error_in_exec is None, out
    assert "virtual GPU (cuda:90): tensors on the CPU" in out
    assert "results not computed" in out
    assert "launch of shifted[" in out and "skipped" in out
    ns = shell.user_ns
    assert ns["DEVICE"].type == "cpu"
    assert ns["props"]["multiprocessor_count"] == 132 and ns["hopper"] is True
    assert ns["n_regs"] > 0  # read from the cubin by cuobjdump


def test_the_first_compile_of_each_kernel_and_types_keeps_its_passes(
    script: tuple[Any, str, Path, Any],
) -> None:
    runs = _runs(script[2])
    by_kernel: dict[str, list[Any]] = {}
    for run in runs:
        by_kernel.setdefault(run.manifest["kernel"]["name"], []).append(run)
    assert len(by_kernel["scale_rows"]) == 1 and by_kernel["scale_rows"][0].passes_captured
    sweep = by_kernel["shifted"]
    assert len(sweep) == 6  # three configs for fp32, three for fp16
    with_passes = [r for r in sweep if r.passes_captured]
    assert {r.manifest["kernel"]["signature"]["x_ptr"] for r in with_passes} == {"*fp32", "*fp16"}
    assert len(with_passes) == 2
    for run in sweep:
        assert run.status == "ok" and [s["name"] for s in run.stages][:2] == ["ttir", "ttgir"]


def test_an_untimed_sweep_is_listed_in_the_run_of_the_config_that_stood_in(
    script: tuple[Any, str, Path, Any],
) -> None:
    chosen = [r for r in _runs(script[2]) if "autotune" in (r.manifest.get("extra") or {})]
    assert len(chosen) == 2
    record = chosen[0].manifest["extra"]["autotune"]
    assert record["timed"] is False and record["chosen"] == 0
    assert [c["config"]["BLOCK"] for c in record["configs"]] == [64, 128, 32]
    assert all(Path(c["run"]).is_dir() and c["ms"] is None for c in record["configs"])
    assert record["configs"][0]["passes_captured"] is True


def test_a_cheap_record_captures_its_passes_on_demand(script: tuple[Any, str, Path, Any]) -> None:
    cheap = next(r for r in _runs(script[2]) if not r.passes_captured)
    launch = cheap.manifest["extra"]["launch"]
    full = cheap.capture()
    assert full.passes_captured and full.path == cheap.path
    assert len(full.timeline.dumps) > 4 * len(full.stages)  # every MLIR pass, not 1 a stage
    assert full.manifest["extra"]["launch"] == launch


def test_the_driver_and_torch_cuda_come_back(script: tuple[Any, str, Path, Any]) -> None:
    import torch
    from triton.runtime import driver

    assert driver._active is script[3]
    with pytest.raises((AssertionError, RuntimeError)):
        torch.cuda.get_device_capability()


def test_a_kernel_that_does_not_compile_fails_the_cell(shell: Any, tmp_path: Path) -> None:
    cell = (
        f"%%triton_npu --runs-dir {tmp_path}\n"
        "import torch, triton, triton.language as tl\n"
        "@triton.jit\n"
        "def broken(x_ptr, BLOCK: tl.constexpr):\n"
        "    tl.store(x_ptr + tl.arange(0, BLOCK), tl.no_such_op(1))\n"
        "broken[(1,)](torch.zeros(8), BLOCK=8)\n"
        "after = True\n"
    )
    result, out = run_cell(shell, cell)
    assert type(result.error_in_exec).__name__ == "LaunchFailedError", out
    assert "no_such_op" in out
