"""`%%triton_npu` cells written for an NPU host run here on the virtual NPU (real IPython
shell, real compilers, Triton's CPU interpreter)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from nb_helpers import needs_ascend, run_cell, shown

from ascend_ir_lab.errors import LaunchFailedError
from ascend_ir_lab.toolchains.ascend.virtual_npu import summary_line

pytestmark = [needs_ascend, pytest.mark.filterwarnings("ignore:.*ccec:UserWarning")]

NPU_CELL = """
import torch
import torch_npu
import triton
import triton.language as tl
from triton.runtime import driver

@triton.jit
def row_softmax(out_ptr, in_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        cols = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(out_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)

torch.npu.set_device(0)
cores = driver.active.utils.get_device_properties(torch.npu.current_device())["num_vectorcore"]
x = torch.randn(50, 30, device="npu")
y = torch.empty_like(x).npu()
row_softmax[(min(cores, 50),)](y, x, 50, 30, BLOCK=32)
torch.npu.synchronize()
assert torch.allclose(y, torch.softmax(x, dim=1), atol=1e-6), "softmax differs"
print("checked on", triton.runtime.driver.active.get_current_target().arch)
"""


@pytest.fixture(scope="module")
def npu_cell(shell: InteractiveShell, runs_dir: Path) -> tuple[Any, Any]:
    return run_cell(
        shell, f"%%triton_npu --interpret --name npu-cell --runs-dir {runs_dir}\n{NPU_CELL}"
    )


def test_an_npu_host_cell_runs_unmodified(npu_cell: tuple[Any, Any]) -> None:
    result, io = npu_cell
    assert result.success, shown(io)[-3000:]
    assert summary_line(True) in io.stdout
    assert "checked on Ascend910B3" in io.stdout  # the cell's own check passed
    view = result.result
    assert [s["name"] for s in view.run.stages] == ["ttir", "adapter", "bishengir"]
    assert len(view.run.timeline.dumps) >= 250
    assert view.manifest["kernel"]["signature"]["out_ptr"] == "*fp32"


def test_after_the_cell_the_notebook_has_no_npu(
    shell: InteractiveShell, npu_cell: tuple[Any, Any]
) -> None:
    result, _ = run_cell(shell, "import torch_npu")
    assert isinstance(result.error_in_exec, ModuleNotFoundError)
    result, _ = run_cell(shell, "import torch\nhas_npu = hasattr(torch, 'npu')")
    assert shell.user_ns["has_npu"] is False


def test_without_the_virtual_npu_the_cell_fails(shell: InteractiveShell, runs_dir: Path) -> None:
    result, io = run_cell(
        shell, f"%%triton_npu --no-virtual-npu --runs-dir {runs_dir}\nimport torch_npu"
    )
    assert isinstance(result.error_in_exec, LaunchFailedError)
    assert "the cell raised ModuleNotFoundError: No module named 'torch_npu'" in str(
        result.error_in_exec
    )
    assert "virtual NPU" not in io.stdout


def test_keep_going_lets_a_failed_compile_pass(
    shell: InteractiveShell, runs_dir: Path, npu_cell: tuple[Any, Any]
) -> None:
    line = f"%%triton_npu --keep-going --flag=--no-such-option=1 --runs-dir {runs_dir}"
    cell = "row_softmax[(1,)](y, x, 50, 30, BLOCK=32)\nprint('went on')"
    result, io = run_cell(shell, f"{line}\n{cell}")
    assert result.success and "went on" in io.stdout
    assert "stage bishengir failed (exit code 1)" in shown(io)  # the panel is still there


NEWER_SUITE = """
import pytest
import torch
import torch_npu
import triton.language.extra.cann.libdevice as libdevice


def test_erf():
    assert libdevice.erf(torch.zeros(4, device="npu")) is not None
"""


def test_a_suite_for_a_newer_triton_says_what_this_one_lacks(
    shell: InteractiveShell, runs_dir: Path, tmp_path: Path
) -> None:
    """pytest run from a cell reports the failed import as its own collection error; the
    cell's failure still names the module the installed triton lacks."""
    import triton

    suite = tmp_path / "test_newer_suite.py"
    suite.write_text(NEWER_SUITE)
    cell = (
        f"import pytest\nassert pytest.main([{str(suite)!r}, '-q', '-p', 'no:cacheprovider']) == 0"
    )
    result, _ = run_cell(shell, f"%%triton_npu --interpret --runs-dir {runs_dir}\n{cell}")
    assert isinstance(result.error_in_exec, LaunchFailedError)
    assert (
        f"the cell raised AssertionError (triton.language.extra.cann is not part of the "
        f"installed triton ({triton.__version__}): this code needs a newer triton-ascend)"
    ) in str(result.error_in_exec)


HOST_TENSOR_CELL = """
import torch
import torch_npu
import triton
import triton.language as tl

@triton.jit
def axpy(y_ptr, x_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, y + a * tl.load(x_ptr + offs, mask=mask), mask=mask)

y = torch.zeros(256, device="npu")
x_host = torch.arange(256.0)   # forgot .npu()
print("y on", y.device, "x on", x_host.device)
axpy[(2,)](y, x_host, 2.0, 256, BLOCK=128)
"""


def test_a_host_tensor_fails_the_cell_as_the_npu_launcher_does(
    shell: InteractiveShell, runs_dir: Path
) -> None:
    result, io = run_cell(
        shell, f"%%triton_npu --interpret --runs-dir {runs_dir}\n{HOST_TENSOR_CELL}"
    )
    # the cell fails (Run All stops), naming the launcher's own error
    assert isinstance(result.error_in_exec, LaunchFailedError), shown(io)[-3000:]
    refusal = "Pointer argument (at 1) cannot be accessed from Triton (cpu tensor?)"
    assert f"the cell raised ValueError: {refusal}" in str(result.error_in_exec)
    assert f"launch of axpy refused: {refusal}" in shown(io)
    assert "y on npu:0 x on cpu" in io.stdout
    # compiled before the launcher refused it, as on the NPU host: its Run is there
    assert [p.name for p in runs_dir.iterdir() if (p / "run.json").is_file() and "axpy" in p.name]


REFUSED_TYPE_CELL = """
import torch, torch_npu, triton, triton.language as tl

@triton.jit
def nan_mask(x_ptr, out_ptr, N: tl.constexpr):
    idx = tl.arange(0, N)
    tl.store(out_ptr + idx, tl.extra.ascend.libdevice.isnan(tl.load(x_ptr + idx)))

x = torch.arange(16, dtype=torch.int32, device="npu")
out = torch.zeros(16, dtype=torch.bool, device="npu")
nan_mask[(1,)](x, out, 16)
after = "reached"
"""


def test_a_kernel_the_frontend_refuses_stops_the_cell_at_its_launch(
    shell: InteractiveShell, runs_dir: Path
) -> None:
    shell.user_ns.pop("after", None)
    result, io = run_cell(
        shell, f"%%triton_npu --interpret --runs-dir {runs_dir}\n{REFUSED_TYPE_CELL}"
    )
    assert isinstance(result.error_in_exec, LaunchFailedError), shown(io)[-3000:]
    assert "the cell raised CompilationError" in str(result.error_in_exec)
    assert "after" not in shell.user_ns  # stopped at the launch, as triton's launch stops it
    assert "triton's compile raised CompilationError, raised here as on the NPU" in shown(io)
