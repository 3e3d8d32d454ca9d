"""The virtual NPU: scripts written for an NPU host run unmodified on this CPU-only host.

Real components throughout: torch, triton-ascend, bishengir-opt/-compile, Triton's CPU
interpreter, and `ascend-ir-lab capture` as a user types it. The scripts under
tests/kernels/npu_host are written the way NPU-host scripts are."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import triton
import triton.language as tl

from ascend_ir_lab.toolchains.ascend.launch import interpret_launch
from ascend_ir_lab.toolchains.ascend.offline_script import capture_offline, split_python
from ascend_ir_lab.toolchains.ascend.virtual_npu import NPUOnlyError, summary_line, virtual_npu
from tests.toolchains.conftest import needs_ascend

pytestmark = [
    pytest.mark.ascend,
    needs_ascend,
    pytest.mark.filterwarnings("ignore:.*ccec:UserWarning"),  # triton-ascend's driver probe
]

SCRIPTS = Path(__file__).resolve().parents[1] / "kernels" / "npu_host"


@pytest.fixture
def scripts(tmp_path: Path) -> Path:
    """The NPU-host scripts, copied where a user would keep them (outside this repository)."""
    folder = tmp_path / "work"
    shutil.copytree(SCRIPTS, folder)
    return folder


def _state() -> dict[str, Any]:
    import torch
    from triton.runtime import driver

    return {
        "torch.npu": "npu" in vars(torch),
        "modules": sorted(k for k in sys.modules if k.split(".")[0] in ("torch_npu", "torch.npu")),
        "Tensor.npu": "npu" in vars(torch.Tensor),
        "Module.npu": "npu" in vars(torch.nn.Module),
        "driver": driver.active,
        "meta_path": list(sys.meta_path),
        "modes": torch._C._len_torch_function_stack(),
    }


def test_npu_host_code_runs_with_tensors_on_the_cpu() -> None:
    import torch

    before = _state()
    with virtual_npu("Ascend910B3") as device:
        import torch_npu
        import triton
        from torch_npu._C import _npu_getCurrentRawStream

        tensors = [
            torch.rand(4, device="npu"),
            torch.empty(2, device="npu:0"),
            torch.zeros(3, device=torch.device("npu")),
            torch.ones(2).npu(),
            torch.ones(2).to("npu"),
            torch.nn.Linear(2, 2).npu().weight,
        ]
        # on the CPU, and said to be on the NPU, as on its host
        assert {t.untyped_storage().device.type for t in tensors} == {"cpu"}
        assert {str(t.device) for t in tensors} == {"npu:0"} and all(t.is_npu for t in tensors)
        assert torch.npu is device and torch_npu.npu is device
        assert torch.npu.is_available() and torch.npu.device_count() == 1
        torch.npu.set_device("npu:0")
        assert torch.npu.current_device() == 0 and torch.npu.get_device_name() == "Ascend910B3"
        assert torch.npu.current_stream(0).npu_stream == _npu_getCurrentRawStream(0) == 0
        torch.npu.synchronize()
        active = triton.runtime.driver.active
        assert active.get_current_target().arch == "Ascend910B3"
        assert active.get_current_target().backend == "npu"
        assert active.get_current_device() == 0
    assert _state() == before


def test_torch_npu_utils_and_precision_switches_as_test_suites_use_them() -> None:
    import torch

    before = _state()
    with virtual_npu("Ascend910B3") as device:
        import torch_npu
        from torch_npu.npu import utils

        torch_npu.npu.utils.set_device(0)
        assert utils.current_device() == 0 and utils is device
        torch_npu.npu.matmul.allow_hf32 = False
        torch.npu.conv.allow_hf32 = False
        assert torch.npu.matmul.allow_hf32 is False
        torch_npu.npu.synchronize()
    assert _state() == before


def test_core_counts_come_from_the_toolchain_for_each_target() -> None:
    # bishengir-opt --hacc-append-device-spec states them; bishengir-compile plans with them
    counts = {}
    for target in ("Ascend910B3", "Ascend910B1"):
        with virtual_npu(target):
            from triton.runtime import driver

            props = driver.active.utils.get_device_properties(0)
            counts[target] = (props["num_aicore"], props["num_vectorcore"])
    assert counts["Ascend910B3"] == (20, 40)
    assert counts["Ascend910B1"] == (24, 48)


def test_everything_comes_back_after_an_exception() -> None:
    before = _state()
    with pytest.raises(ZeroDivisionError), virtual_npu():
        import torch_npu  # noqa: F401

        _ = 1 / 0
    assert _state() == before
    with pytest.raises(ModuleNotFoundError):
        import torch_npu  # noqa: F401


def test_npu_only_ops_fail_naming_the_op() -> None:
    with virtual_npu():
        import torch
        import torch_npu

        with pytest.raises(NPUOnlyError, match=r"torch_npu\.npu_fusion_attention exists only"):
            torch_npu.npu_fusion_attention(torch.ones(1))
        with pytest.raises(NPUOnlyError, match=r"torch_npu\.npu_format_cast exists only"):
            torch_npu.npu_format_cast(torch.ones(1), 29)
        assert not hasattr(torch.npu, "npu_format_cast")  # feature probes still work


def test_the_profiler_runs_its_block_and_profiles_nothing(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """As triton-ascend's `do_bench_npu` and its tutorials' `profiler_wrapper` use it."""
    for _cell in range(2):  # each virtual NPU says it once
        with virtual_npu():
            import torch
            import torch_npu

            called, ran = [], []
            config = torch_npu.profiler._ExperimentalConfig(
                aic_metrics=torch_npu.profiler.AiCMetrics.PipeUtilization,
                profiler_level=torch_npu.profiler.ProfilerLevel.Level1,
                l2_cache=False,
            )
            for _ in range(2):
                with torch_npu.profiler.profile(
                    activities=[torch_npu.profiler.ProfilerActivity.NPU],
                    schedule=torch_npu.profiler.schedule(wait=0, warmup=1, active=2, repeat=1),
                    on_trace_ready=called.append,
                    experimental_config=config,
                ) as prof:
                    for _ in range(3):
                        ran.append(torch.ones(2, device="npu").sum().item())
                        prof.step()
            assert ran == [2.0] * 6 and prof.step_num == 3
            assert called == [] and not any(tmp_path.iterdir())
            with pytest.raises(NPUOnlyError, match=r"profile\.key_averages exists only"):
                prof.key_averages()
            assert torch_npu.profiler.tensorboard_trace_handler(str(tmp_path)) is not None
        err = capfd.readouterr().err
        assert err.count("torch_npu.profiler: nothing profiled") == 1, err


def test_settings_scripts_make_are_taken() -> None:
    with virtual_npu():
        import torch
        import torch_npu

        torch.npu.set_compile_mode(jit_compile=False)
        torch.npu.config.allow_internal_format = False
        torch_npu.npu.matmul.allow_hf32 = False
        torch.npu.set_stream(torch.npu.current_stream())
        assert torch.npu.is_bf16_supported()
        assert torch.npu.config.allow_internal_format is False


def test_only_python_commands_run_offline() -> None:
    assert split_python(["python3", "-u", "-m", "pytest", "-q"]) == (
        "python3",
        ["-u"],
        ["-m", "pytest", "-q"],
    )
    with pytest.raises(Exception, match="capture runs Python itself"):
        split_python(["bash", "run.sh"])


# -- the interpreter runs what plain TRITON_INTERPRET=1 runs --------------------------------


@triton.jit
def twice(x):  # a helper, called from the kernel (as tl.max and tl.sum are)
    return x * 2


@triton.jit
def reduce_scan_atomic(x_ptr, out_ptr, acc_ptr, N: tl.constexpr):
    row, col = tl.program_id(0), tl.program_id(1)
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + row * N + offs)
    shifted = twice(tl.cumsum(x, axis=0)) - tl.max(x, axis=0)
    tl.store(out_ptr + row * N + offs, shifted)
    tl.atomic_add(acc_ptr + col, tl.sum(x, axis=0))


@triton.jit
def grid_3d(out_ptr, n, step):
    i, j, k = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    for m in tl.range(i, n, step):
        tl.store(out_ptr + (k * 2 + j) * n + m, m + 100 * (k * 2 + j))


def test_interpreter_runs_reductions_scans_atomics_and_3d_grids() -> None:
    import torch

    x = torch.rand(3, 16)
    out, acc = torch.empty(3, 16), torch.zeros(2)
    interpret_launch(reduce_scan_atomic, (3, 2), (x, out, acc), {"N": 16})
    assert torch.allclose(out, 2 * x.cumsum(1) - x.max(1).values[:, None], atol=1e-5)
    assert torch.allclose(acc, x.sum().expand(2), atol=1e-4)  # every row, once per column

    cells = torch.zeros(3 * 2 * 8, dtype=torch.int32)
    interpret_launch(grid_3d, (2, 2, 3), (cells, 8, 2), {})
    expected = torch.arange(8).repeat(6) + 100 * torch.arange(6).repeat_interleave(8)
    assert torch.equal(cells, expected.int())


def test_interpreting_leaves_the_kernels_module_as_it_was() -> None:
    import torch

    names = set(reduce_scan_atomic.fn.__globals__)
    x = torch.rand(1, 16)
    interpret_launch(reduce_scan_atomic, (1,), (x, torch.empty(1, 16), torch.zeros(1)), {"N": 16})
    assert set(reduce_scan_atomic.fn.__globals__) == names  # no np, interpreter_builder, ...


# -- capture on a host with no NPU ----------------------------------------------------------


@pytest.fixture(scope="module")
def softmax_capture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    folder = tmp_path_factory.mktemp("work")
    shutil.copytree(SCRIPTS, folder, dirs_exist_ok=True)
    cmd = [sys.executable, "-m", "ascend_ir_lab", "capture", "-o", str(folder / "runs"), "--",
           sys.executable, "softmax_rows.py"]  # fmt: skip
    yield subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=folder), folder


def test_capture_runs_an_unmodified_npu_script_offline(softmax_capture: Any) -> None:
    from ascend_ir_lab.toolchains.common.run import Run

    result, folder = softmax_capture
    assert result.returncode == 0, result.stderr[-3000:]
    assert "softmax on Ascend910B3 (Ascend910B3): PASSED" in result.stdout  # its own check
    assert summary_line(True) in result.stdout
    run = Run(folder / "runs" / "softmax_rows")
    assert [s["name"] for s in run.stages] == ["ttir", "adapter", "bishengir"]
    assert len(run.timeline.dumps) >= 250 and run.status == "ir-complete-no-binary"
    assert run.manifest["kernel"]["signature"]["out_ptr"] == "*fp32"


def test_capture_runs_pytest_offline(scripts: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(scripts)
    result = capture_offline(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "check_softmax_rows.py"],
        scripts / "runs",
    )
    assert result.returncode == 0 and not result.failures
    (run,) = result.runs
    assert run.manifest["kernel"]["constexprs"] == {"BLOCK": 64}  # the test's 64 columns
    assert len(run.timeline.dumps) >= 250


def test_npu_only_op_fails_the_capture_naming_the_op(scripts: Path) -> None:
    cmd = [sys.executable, "-m", "ascend_ir_lab", "capture", "-o", str(scripts / "runs"), "--",
           sys.executable, "npu_only_op.py"]  # fmt: skip
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=scripts)
    assert result.returncode == 1
    assert "NPUOnlyError: torch_npu.npu_fusion_attention exists only on a real NPU" in result.stderr
    assert "ascend_ir_lab/toolchains" not in result.stderr.split("NPUOnlyError")[0][-300:]


def test_a_python_without_the_compilers_is_said_in_one_line(scripts: Path) -> None:
    """`python` of another environment (here: this one without its site-packages) has no
    bishengir-compile: one line naming that Python, exit 2, the script not run."""
    (scripts / "touch.py").write_text("open('ran', 'w').close()\n")
    cmd = [sys.executable, "-m", "ascend_ir_lab", "capture", "-o", str(scripts / "runs"), "--",
           sys.executable, "-S", "touch.py"]  # fmt: skip
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=scripts)
    assert result.returncode == 2, result.stderr
    assert "bishengir-compile not found" in result.stderr
    assert f"for {sys.executable}, the Python the command runs" in result.stderr
    assert "Traceback" not in result.stderr and not (scripts / "ran").exists()


def test_a_failed_compile_sets_the_exit_status(scripts: Path) -> None:
    """A stage after triton's frontend that fails (triton-adapter-opt's own error on an
    atomic's result used as an offset) is reported; the script goes on, and the capture
    exits 1 for it (0 with --keep-going)."""
    (scripts / "bad.py").write_text(
        "import torch, torch_npu, triton, triton.language as tl\n"
        "@triton.jit\ndef bad(index_ptr, in_ptr, out_ptr):\n"
        "    index = tl.atomic_add(index_ptr, 1)\n"
        "    tl.store(out_ptr, tl.load(in_ptr + index))\n"
        "@triton.jit\ndef fill(x_ptr, N: tl.constexpr):\n"
        "    tl.store(x_ptr + tl.arange(0, N), 1.0)\n"
        "x = torch.zeros(8, device='npu')\n"
        "idx, src = torch.tensor([1], device='npu'), torch.arange(5.0, device='npu')\n"
        "bad[(1,)](idx, src, torch.zeros(1, device='npu'))\n"
        "fill[(1,)](x, N=8)\nprint('script went on', x.sum().item())\n"
    )
    base = [sys.executable, "-m", "ascend_ir_lab", "capture", "-o", str(scripts / "runs")]
    failed = subprocess.run([*base, "--", sys.executable, "bad.py"],
                            capture_output=True, text=True, timeout=300, cwd=scripts)  # fmt: skip
    assert failed.returncode == 1 and "script went on 8.0" in failed.stdout
    assert "1 failure in the launches" in failed.stderr
    assert "stage adapter failed (exit code 1)" in failed.stderr
    assert "(exit 1; with --keep-going, 0 all the same)" in failed.stderr
    assert "/fill: IR complete" in failed.stdout  # the good kernel still has its Run
    kept = subprocess.run([*base, "--keep-going", "--", sys.executable, "bad.py"],
                          capture_output=True, text=True, timeout=300, cwd=scripts)  # fmt: skip
    assert kept.returncode == 0 and "1 failure in the launches" in kept.stderr
    assert "(--keep-going: exit 0 all the same)" in kept.stderr


def test_a_kernel_the_frontend_refuses_stops_the_script_at_its_launch(scripts: Path) -> None:
    """As triton's own launch raises its frontend's error on an NPU host (triton 3.2 raises
    this one as the AttributeError itself)."""
    (scripts / "refused.py").write_text(
        "import torch, torch_npu, triton, triton.language as tl\n"
        "@triton.jit\ndef bad(x_ptr, N: tl.constexpr):\n"
        "    tl.store(x_ptr + tl.arange(0, N), tl.no_such_op(1))\n"
        "x = torch.zeros(8, device='npu')\n"
        "bad[(1,)](x, N=8)\nprint('script went on')\n"
    )
    cmd = [sys.executable, "-m", "ascend_ir_lab", "capture", "-o", str(scripts / "runs"), "--",
           sys.executable, "refused.py"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=scripts)
    assert done.returncode == 1 and "script went on" not in done.stdout
    assert 'File "refused.py", line 6, in <module>' in done.stderr
    assert "AttributeError: module 'triton.language' has no attribute 'no_such_op'" in done.stderr
    assert "triton's compile raised AttributeError, raised here as on the NPU" in done.stderr
    assert "failures in the launches" not in done.stderr  # the script's own error
    assert "/bad: stage ttir failed" in done.stdout  # its Run is kept


@triton.jit
def bf16_axpy(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x, y = tl.load(x_ptr + offs), tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, x + y)  # bf16 + bf16
    tl.store(out_ptr + N + offs, x.to(tl.float32) * 3.0)  # fp32 -> bf16 on store


def test_interpreter_computes_bf16_as_the_device_does() -> None:
    import torch

    x, y = torch.rand(64, dtype=torch.bfloat16), torch.rand(64, dtype=torch.bfloat16)
    out = torch.empty(128, dtype=torch.bfloat16)
    interpret_launch(bf16_axpy, (1,), (x, y, out), {"N": 64})
    assert torch.equal(out[:64], x + y)  # fp32 arithmetic, rounded to nearest even
    assert torch.equal(out[64:], (x.float() * 3.0).to(torch.bfloat16))


@triton.jit
def bf16_mix(x_ptr, w_ptr, out_ptr, peak_ptr, idx_ptr, N: tl.constexpr):
    rows, cols = tl.arange(0, N)[:, None], tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + rows * N + cols)
    w = tl.load(w_ptr + rows * N + cols)
    act = tl.where(x > 0, tl.exp(x), x * 0.5 + 1.0)  # math, select, bf16 scalars
    tl.store(out_ptr + rows * N + cols, act)
    tl.store(out_ptr + N * N + rows * N + cols, tl.dot(x, w).to(tl.bfloat16))
    tl.store(peak_ptr + tl.arange(0, N), tl.max(x, 1))  # rows of negative values too
    tl.store(idx_ptr + tl.arange(0, N), (tl.max(x, 1) * 4.0).to(tl.int32))  # bf16 -> int


def test_interpreter_computes_bf16_ops_on_their_values() -> None:
    """Plain TRITON_INTERPRET=1 computes these on the bits (or fails at `x * 0.5`)."""
    import torch

    n = 16
    x, w = torch.randn(n, n).to(torch.bfloat16), torch.randn(n, n).to(torch.bfloat16)
    x[3] = -x[3].abs() - 0.5
    out = torch.empty(2 * n * n, dtype=torch.bfloat16)
    peak, idx = torch.empty(n, dtype=torch.bfloat16), torch.empty(n, dtype=torch.int32)
    interpret_launch(bf16_mix, (1,), (x, w, out, peak, idx), {"N": n})
    xf = x.float()
    act = torch.where(xf > 0, xf.exp(), xf * 0.5 + 1.0).to(torch.bfloat16)
    assert torch.equal(out[: n * n].view(n, n), act)  # rounded once, as bishengir computes
    torch.testing.assert_close(out[n * n :].view(n, n).float(), xf @ w.float(), atol=0.1, rtol=0.01)
    assert torch.equal(peak, x.max(1).values)
    assert torch.equal(idx, (x.max(1).values.float() * 4.0).to(torch.int32))


def test_npu_tensors_stay_npu_tensors_through_the_ways_code_moves_them() -> None:
    import torch

    from ascend_ir_lab.toolchains.ascend import virtual_memory

    host = torch.arange(4.0)
    with virtual_npu("Ascend910B3"):
        x = host.npu()
        assert x.is_npu and not host.is_npu and not x.is_cpu and host.is_cpu
        x += 1  # a copy: the host tensor keeps its values
        assert host.tolist() == [0.0, 1.0, 2.0, 3.0]
        made = [x + 1, x[1:], x.view(2, 2), torch.empty_like(x), torch.cat([x, x]),
                torch.zeros(2, device=x.device), x.to(torch.float16), x.max(dim=0).values,
                torch.nn.Parameter(x), x.data, host.to(x), host.to(torch.device("npu:0"))]  # fmt: skip
        assert [str(t.device) for t in made] == ["npu:0"] * len(made)
        back = [x.cpu(), x.to("cpu"), x.to(host), torch.zeros(2), torch.from_numpy(host.numpy()),
                torch.empty_like(x, device="cpu")]  # fmt: skip
        assert [str(t.device) for t in back] == ["cpu"] * len(back)
        back[0].zero_()
        assert x.tolist() == [1.0, 2.0, 3.0, 4.0]  # `.cpu()` copied
        into = torch.zeros(4)
        into.copy_(x)  # in place: it stays where it was
        assert into.device.type == "cpu" and into.tolist() == x.tolist()
        layer = torch.nn.Linear(2, 2)
        layer.npu()
        assert layer.weight.is_npu and layer.bias.device.type == "npu"
        layer.cpu()
        assert layer.weight.device.type == "cpu"
        memory = virtual_memory.active()
        assert memory is not None
        with memory.host_view():  # the tool's own code sees where they are
            assert x.device.type == "cpu" and x.is_cpu
    assert virtual_memory.active() is None
    assert x.device.type == "cpu"  # outside, tensors are what they are


def test_a_launch_is_refused_only_where_it_mixes_host_and_npu_tensors() -> None:
    import torch
    import triton
    import triton.language as tl

    from ascend_ir_lab.toolchains.ascend import virtual_memory

    @triton.jit
    def copy(dst_ptr, src_ptr, BLOCK: tl.constexpr):
        tl.store(dst_ptr + tl.arange(0, BLOCK), tl.load(src_ptr + tl.arange(0, BLOCK)))

    host = torch.ones(8)
    assert virtual_memory.unreachable_argument(copy, (host, host), {}) is None  # no NPU here
    with virtual_npu("Ascend910B3"):
        npu = torch.zeros(8, device="npu")
        assert virtual_memory.unreachable_argument(copy, (host, torch.ones(8)), {}) is None
        assert virtual_memory.unreachable_argument(copy, (npu, npu.clone()), {}) is None
        refusal = virtual_memory.unreachable_argument(copy, (npu,), {"src_ptr": host})
        assert refusal == "Pointer argument (at 1) cannot be accessed from Triton (cpu tensor?)"
        empty = torch.empty(0)  # no address: passed as a null pointer, as the launcher does
        assert virtual_memory.unreachable_argument(copy, (npu, empty), {}) is None


def test_the_device_boundary_refuses_and_prints_as_torch_npu_does() -> None:
    """What an NPU host refuses is refused (a script passing here only is a trap); what it
    allows works; an NPU tensor prints with `device='npu:0'` where torch puts it."""
    import numpy as np
    import torch

    host = torch.arange(4.0)
    with virtual_npu("Ascend910B3"):
        x = host.npu()
        assert repr(x) == "tensor([0., 1., 2., 3.], device='npu:0')"
        assert str(torch.zeros(2, 2, dtype=torch.int32, device="npu")) == (
            "tensor([[0, 0],\n        [0, 0]], device='npu:0', dtype=torch.int32)"
        )
        assert (
            f"{x}" == repr(x)
            and f"{x[1]:.1f}" == "1.0"
            and repr(host) == "tensor([0., 1., 2., 3.])"
        )
        assert "device='npu:0', requires_grad=True" in repr(torch.nn.Parameter(x.clone()))
        refused = [lambda: x.numpy(), lambda: np.asarray(x), lambda: x.detach().numpy()]
        for convert in refused:
            with pytest.raises(
                TypeError, match=r"^can't convert npu:0 device type tensor to numpy"
            ):
                convert()
        mixed = [lambda: torch.allclose(x, host), lambda: x - host, lambda: host == x,
                 lambda: torch.cat([x, host]), lambda: torch.equal(x, host)]  # fmt: skip
        for op in mixed:
            with pytest.raises(RuntimeError, match=r"same device, but found at least two devices"):
                op()
        with pytest.raises(RuntimeError, match=r"devices, cpu and npu:0!$"):
            torch.maximum(host, x)
        # allowed on the device: copies, a host scalar, host indices, a forced numpy copy
        assert x.numpy(force=True).tolist() == x.cpu().numpy().tolist() == [0.0, 1.0, 2.0, 3.0]
        assert (x * torch.tensor(2.0)).is_npu and x[torch.tensor([0, 2])].tolist() == [0.0, 2.0]
        x[torch.tensor([1])] = torch.tensor([9.0])
        x.copy_(host)
        assert torch.allclose(x, host.npu()) and torch.allclose(x.cpu(), host)
        assert x.view_as(torch.empty(2, 2)).shape == (2, 2) and host.to(x).is_npu
    assert repr(x) == "tensor([0., 1., 2., 3.])"  # outside, a CPU tensor again
    assert torch.allclose(x, host)


def test_an_int_out_of_range_is_stored_wrapped_in_an_npu_tensor() -> None:
    """As the suites' boundary-value tests set `int32_max + 1` into an int32 NPU tensor."""
    import torch

    with virtual_npu("Ascend910B3"):
        x = torch.zeros(4, dtype=torch.int32, device="npu")
        x[1] = torch.iinfo(torch.int32).max + 1
        x[2] = -(2**31) - 2
        x[3:].fill_(2**32 + 7)
        assert x.tolist() == [0, -(2**31), 2**31 - 2, 7]
        small = torch.zeros(2, dtype=torch.uint8, device="npu")
        small[0] = 257
        assert small.tolist() == [1, 0]
        host = torch.zeros(2, dtype=torch.int32)
        with pytest.raises(RuntimeError, match="without overflow"):
            host[0] = 2**31  # a host tensor refuses it, as CPU torch does
        with pytest.raises(TypeError):
            x[0] = "a"  # anything else fails as before


def test_the_npu_as_default_device() -> None:
    """`torch.set_default_device("npu")`, as NPU suites write it: constructors without a
    device make NPU tensors (on the CPU); afterwards the default is the CPU again."""
    import torch

    with virtual_npu():
        torch.set_default_device("npu")
        x = torch.empty(3).fill_(2.0)
        y = torch.arange(3, dtype=torch.float32) + x
        assert str(x.device) == "npu:0" and str(y.device) == "npu:0"
        assert y.cpu().tolist() == [2.0, 3.0, 4.0]
    assert torch.empty(2).device.type == "cpu"
