"""`%%triton_npu --target cuda:90|hip:gfx942` (and `%%triton_ir`) through a real IPython shell.

In .venv-gpu (upstream Triton): launches with numpy arrays are cross-compiled, the launch
skipped; on a CUDA host, launches with CUDA tensors run for real and are recorded. In the
Ascend venv, the same cell gets a message that says where upstream Triton lives.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from upstream_skips import needs_cuda, upstream_triton_reason

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("IPython") is None,
    reason="IPython is not installed here: pip install -e '.[gpu,notebook]' (scripts/setup --all)",
)
needs_upstream = pytest.mark.skipif(
    upstream_triton_reason() is not None, reason=upstream_triton_reason() or ""
)
needs_triton_ascend = pytest.mark.skipif(
    importlib.util.find_spec("triton.backends.ascend") is None
    if importlib.util.find_spec("triton")
    else True,
    reason="the message for --target cuda:90 in the Ascend venv needs triton-ascend there",
)

SOFTMAX = """
import numpy as np, triton, triton.language as tl

@triton.jit
def softmax(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=mask)
"""

LAUNCH_NUMPY = """
x = np.random.rand(128, 1000).astype(np.float32)
y = np.zeros_like(x)
softmax[(128,)](y, x, x.shape[1], x.shape[1], BLOCK=1024)
softmax[(128,)](y, x, x.shape[1], x.shape[1], BLOCK=1024)
"""

LAUNCH_CUDA = """
import torch
xc = torch.randn(256, 1000, device="cuda")
yc = torch.empty_like(xc)
softmax[(256,)](yc, xc, xc.stride(0), xc.shape[1], BLOCK=1024)
softmax[(256,)](yc, xc, xc.stride(0), xc.shape[1], BLOCK=1024)
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
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("upstream-runs")


@pytest.fixture(scope="module")
def cross(shell: Any, runs_dir: Path) -> tuple[Any, str]:
    """A softmax cell launched twice with numpy arrays, under --target cuda:90."""
    return run_cell(shell, f"%%triton_npu --target cuda:90 --llvm --runs-dir {runs_dir}\n"
                           f"{SOFTMAX}{LAUNCH_NUMPY}")  # fmt: skip


@pytest.mark.gpu
@needs_upstream
def test_numpy_launch_is_cross_compiled_and_skipped(cross: tuple[Any, str], shell: Any) -> None:
    from ascend_ir_lab.notebook.explorer import RunView

    result, shown = cross
    view = result.result
    assert result.success and isinstance(view, RunView)
    assert shell.user_ns["_"] is view
    assert view.manifest["toolchain"] == "triton" and view.manifest["target"] == "cuda:90"
    assert [s["name"] for s in view.stages] == ["ttir", "ttgir", "llir", "ptx"]
    stages = {d.stage for d in view.timeline.dumps}
    assert stages == {"ttir", "ttgir", "llir", "ptx"} and len(view.timeline.dumps) > 100
    assert view.manifest["kernel"]["signature"] == {
        "out_ptr": "*fp32", "in_ptr": "*fp32", "stride": "i32", "n_cols": "i32"
    }  # fmt: skip
    launch = view.manifest["extra"]["launch"]
    assert launch["launched"] is False and launch["grid"] == [128]
    assert launch["args"][1]["shape"] == [128, 1000] and launch["args"][1]["dtype"] == "float32"
    # two launches, one compile; the launch was skipped and said so
    assert len(view.launches) == 2
    assert "launch of softmax[(128,)] skipped; cross-compiled for cuda:90" in shown
    assert (shell.user_ns["y"] == 0).all()
    # the whole cell is the Run's source, so IR locations (cell lines) match it
    assert "def softmax" in (view.path / "source.py").read_text()


@pytest.mark.gpu
@needs_upstream
def test_progress_names_upstream_stages(cross: tuple[Any, str]) -> None:
    _, shown = cross
    assert "softmax → cuda:90: compiling: ttir …" in shown
    assert "ttir ✓" in shown and "ttgir ✓" in shown and "llir ✓" in shown and "ptx ✓" in shown
    assert "adapter" not in shown  # the Ascend stage order is not used


@pytest.mark.gpu
@needs_upstream
def test_triton_ir_alias_compiles_a_defined_kernel_for_hip(shell: Any, runs_dir: Path) -> None:
    cell = (f"%%triton_ir --target hip:gfx942 --runs-dir {runs_dir} --name sm-hip "
            f"--signature out_ptr=*fp32,in_ptr=*fp32,stride=i32,n_cols=i32 "
            f"--constexpr BLOCK=1024\n{SOFTMAX}")  # fmt: skip
    result, shown = run_cell(shell, cell)
    view = result.result
    assert view is not None, shown
    assert view.name == "sm-hip" and view.manifest["target"] == "hip:gfx942"
    assert [s["name"] for s in view.stages] == ["ttir", "ttgir", "llir", "amdgcn"]
    assert "llir ✓" in shown and "amdgcn" in shown


@pytest.mark.gpu
@needs_upstream
@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("--target cuda:90 --barrier-all", "--barrier-all is an Ascend option"),
        ("--target cuda:xx", "expected cuda:<capability> or hip:<gfx arch>"),
        ("--target cuda:90 --interpret", "--interpret is an Ascend option"),
    ],
)
def test_bad_options_show_a_panel_and_run_nothing(shell: Any, line: str, message: str) -> None:
    result, shown = run_cell(shell, f"%%triton_npu {line}\nprint('body ran')")
    assert result.success and result.result is None
    assert message in shown
    assert "body ran" not in shown and "Traceback" not in shown


@pytest.mark.gpu
@needs_upstream
def test_a_cell_without_launches_says_so(shell: Any) -> None:
    result, shown = run_cell(shell, "%%triton_npu --target cuda:90\nz = 1")
    assert result.result is None and shell.user_ns["z"] == 1
    assert "no Triton launch in this cell" in shown


@needs_triton_ascend
def test_in_the_ascend_venv_an_upstream_target_says_where_to_go(shell: Any) -> None:
    result, shown = run_cell(shell, "%%triton_npu --target cuda:90\nprint('body ran')")
    assert result.success and result.result is None
    assert "needs upstream Triton" in shown and "triton-ascend" in shown
    assert ".venv-gpu" in shown and "ascend-ir-lab-gpu" in shown
    assert "ascend-ir-lab compile FILE.py --target cuda:90" in shown
    assert "body ran" not in shown


# -- on a CUDA host ------------------------------------------------------------------------


@pytest.mark.gpu
@needs_cuda
def test_cuda_launch_runs_for_real_and_is_recorded(shell: Any, runs_dir: Path) -> None:
    import torch

    result, shown = run_cell(shell, f"%%triton_npu --runs-dir {runs_dir} --name sm-gpu\n"
                                    f"{SOFTMAX}{LAUNCH_CUDA}")  # fmt: skip
    view = result.result
    assert view is not None, shown
    ns = shell.user_ns
    torch.testing.assert_close(ns["yc"], torch.softmax(ns["xc"], dim=-1))
    assert view.manifest["target"] == "cuda:90" and view.status == "ok"
    assert [s["name"] for s in view.stages] == ["ttir", "ttgir", "llir", "ptx"]
    launch = view.manifest["extra"]["launch"]
    assert launch["launched"] is True and launch["grid"] == [256]
    assert launch["args"][1] == {"name": "in_ptr", "kind": "tensor", "shape": [256, 1000],
                                 "dtype": "float32", "device": "cuda:0"}  # fmt: skip
    assert [ln.launched for ln in view.launches] == [True, True]
    assert "launch recorded in the Run" in shown and "skipped" not in shown
    print(f"GPU launch recorded: {len(view.timeline.dumps)} dumps, {launch.get('seconds')} s")


@pytest.mark.gpu
@needs_cuda
def test_cuda_launch_for_another_target_runs_and_cross_compiles(shell: Any, runs_dir: Path) -> None:
    import torch

    result, shown = run_cell(shell, f"%%triton_npu --target hip:gfx942 --runs-dir {runs_dir}\n"
                                    f"{SOFTMAX}{LAUNCH_CUDA}")  # fmt: skip
    view = result.result
    assert view is not None, shown
    torch.testing.assert_close(shell.user_ns["yc"], torch.softmax(shell.user_ns["xc"], dim=-1))
    assert view.manifest["target"] == "hip:gfx942" and view.stages[-1]["name"] == "amdgcn"
    assert all(ln.launched for ln in view.launches)
    assert all("IR cross-compiled for hip:gfx942" in ln.note for ln in view.launches)


TUNED_CUDA = """
import torch, triton, triton.language as tl

@triton.autotune(
    configs=[triton.Config({"BLOCK": b}, num_warps=w) for b, w in ((128, 4), (256, 4), (512, 8))],
    key=["n"],
)
@triton.jit
def plus_one(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)

xt = torch.rand(100_000, device="cuda")
yt = torch.empty_like(xt)
plus_one[lambda meta: (triton.cdiv(100_000, meta["BLOCK"]),)](xt, yt, 100_000)
plus_one[lambda meta: (triton.cdiv(100_000, meta["BLOCK"]),)](xt.half(), yt.half(), 100_000)
"""


@pytest.mark.gpu
@needs_cuda
def test_cuda_autotune_each_config_a_record_the_picked_one_with_passes(
    shell: Any, tmp_path: Path
) -> None:
    import torch

    from ascend_ir_lab.runs import Run

    result, shown = run_cell(shell, f"%%triton_npu --runs-dir {tmp_path}\n{TUNED_CUDA}")
    assert result.error_in_exec is None, shown
    torch.testing.assert_close(shell.user_ns["yt"], shell.user_ns["xt"] + 1)
    runs = [Run(p.parent) for p in sorted(tmp_path.glob("*/run.json"))]
    assert len(runs) == 6  # three configs timed, for fp32 and for fp16
    picked = [r for r in runs if "autotune" in r.manifest["extra"]]
    assert len(picked) == 2 and all(r.passes_captured for r in picked)
    assert sum(r.passes_captured for r in runs) == 2
    sweep = picked[0].manifest["extra"]["autotune"]
    assert sweep["timed"] is True and len(sweep["configs"]) == 3
    assert all(c["run"] and c["ms"] and all(t > 0 for t in c["ms"]) for c in sweep["configs"])
    cheap = next(r for r in runs if not r.passes_captured)
    assert cheap.capture().passes_captured
