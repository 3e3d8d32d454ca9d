"""NPU-host pytest files of the kind test suites ship, run unmodified under
`ascend-ir-lab capture -- python -m pytest ...` on this CPU-only host (virtual NPU, real
triton-ascend, real bishengir, Triton's CPU interpreter). The files are tests/kernels/corpus,
written the way such suites are; each test here is about one thing those files need."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import triton
import triton.language as tl

from ascend_ir_lab.runs import Run
from ascend_ir_lab.toolchains.ascend.launch import interpret_launch
from tests.toolchains.conftest import needs_ascend

pytestmark = [pytest.mark.ascend, needs_ascend]

CORPUS = Path(__file__).resolve().parents[1] / "kernels" / "corpus"
FILES = [
    "check_atomic_narrow.py",
    "check_constexpr_objects.py",
    "check_bool_ops.py",
    "check_bf16_chain.py",
    "check_half_reductions.py",
    "check_pointer_table.py",
    "check_libdevice.py",
    "check_device_memory.py",
    "check_host_boundary.py",
    "check_refused_types.py",
    "check_loop_counters.py",
]


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The files, copied where a user keeps them, under one `capture` of pytest."""
    folder = tmp_path_factory.mktemp("suite")
    shutil.copytree(CORPUS, folder, dirs_exist_ok=True)
    runs = folder / "runs"
    cmd = [sys.executable, "-m", "ascend_ir_lab", "capture", "-o", str(runs), "--",
           sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", *FILES]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=folder)
    text = done.stdout + done.stderr
    verdicts = dict(
        (test, word) for word, test in re.findall(r"^(PASSED|FAILED|ERROR) (\S+)", text, re.M)
    )
    data = json.loads((runs / "capture.json").read_text())
    found = [Run(runs / name) for name in data["runs"]]
    return {"text": text, "verdicts": verdicts, "runs": found, "data": data}


def _runs(captured: dict[str, Any], kernel: str) -> list[Run]:
    return [r for r in captured["runs"] if r.manifest["kernel"]["name"] == kernel]


def _passed(captured: dict[str, Any], prefix: str) -> list[str]:
    tests = {t: v for t, v in captured["verdicts"].items() if t.startswith(prefix)}
    assert tests, captured["text"][-3000:]
    assert set(tests.values()) == {"PASSED"}, captured["text"][-3000:]
    return sorted(tests)


def _complete(run: Run) -> bool:
    stages = {s["name"] for s in run.stages}
    return run.status == "ir-complete-no-binary" and {"ttir", "adapter", "bishengir"} <= stages


def test_atomics_of_narrow_types_compute_in_the_interpreter(captured: dict[str, Any]) -> None:
    """int8/int16 atomic_or, float16 atomic_max/atomic_add: the C++ interpreter has none;
    bf16 atomic_add/atomic_max combine the values, not the bits the interpreter holds."""
    assert len(_passed(captured, "check_atomic_narrow.py::")) == 4
    bits, peak = _runs(captured, "atomic_bits"), _runs(captured, "atomic_peak")
    assert len(bits) == 2 and len(peak) == 2  # int8 and int16, fp16 and bf16: two compiles each
    assert all(_complete(r) for r in bits + peak)
    assert {r.manifest["kernel"]["signature"]["acc_ptr"] for r in bits} == {"*i8", "*i16"}
    assert {r.manifest["kernel"]["signature"]["peak_ptr"] for r in peak} == {"*fp16", "*bf16"}
    assert "Unsupported data type" not in captured["text"]


def test_half_sums_and_scans_round_once_as_on_the_device(captured: dict[str, Any]) -> None:
    """bishengir casts an fp16 or bf16 block to f32 around `tl.sum`, `tl.reduce` and
    `tl.cumsum` and rounds the result once; the suites' fp32 references at 1e-3 hold only for
    that (the interpreter's numpy sum of fp16 rounded at every row). A sum of a sum keeps
    f32 between the two, as the compiled kernel does."""
    assert len(_passed(captured, "check_half_reductions.py::")) == 4
    sums, scans = _runs(captured, "column_sums"), _runs(captured, "running_sums")
    (planes,) = _runs(captured, "plane_sums")
    assert len(sums) == 2 and len(scans) == 1
    assert all(_complete(r) for r in [*sums, *scans, planes])
    final = planes.timeline.text(planes.timeline.dumps[-1])
    assert final.count("call @vcast_half_to_float") == 1  # one cast up for both sums
    (half,) = [r for r in sums if r.manifest["kernel"]["signature"]["x_ptr"] == "*fp16"]
    final = half.timeline.text(half.timeline.dumps[-1])
    assert "vcast_half_to_float" in final and "reduce_sum_ra_float" in final  # the f32 sum


def test_constexpr_objects_compile_as_their_values(captured: dict[str, Any]) -> None:
    """`tl.constexpr` objects as launch arguments (triton-ascend 3.2's own launch path calls
    them "Callable constexpr", or has no type for one given to a plain parameter): compiled
    as their values are, a complete Run each, and run in the interpreter as plain
    TRITON_INTERPRET=1 runs them, so the tests' own checks pass."""
    assert len(_passed(captured, "check_constexpr_objects.py::")) == 2
    (rows,) = _runs(captured, "repeat_rows")
    (spread,) = _runs(captured, "spread")
    assert _complete(rows) and _complete(spread)
    assert rows.manifest["kernel"]["constexprs"] == {"M": 2, "N": 16}
    assert spread.manifest["kernel"]["signature"]["length"] == "i32"
    assert not [f for f in captured["data"]["failures"] if "repeat_rows" in f or "spread" in f]
    assert "no Triton pointer type" not in captured["text"]  # bfloat16 has one


def test_bool_tensors_invert_and_divide_as_on_the_device(captured: dict[str, Any]) -> None:
    """`~x` on a bool tensor in the kernel (the interpreter had no all-ones bool) and torch's
    `bool // bool` for the reference (CPU torch has no bool floor division)."""
    assert len(_passed(captured, "check_bool_ops.py::")) == 7
    runs = _runs(captured, "invert_mask") + _runs(captured, "floor_div")
    assert len(runs) == 4 and all(_complete(r) for r in runs)
    # `not x` of a tensor is its invert, `a and b` / `a or b` their logical and / or, as
    # compiled: the interpreter computed one Python bool for the whole block
    runs = _runs(captured, "not_and_or")
    assert len(runs) == 3 and all(_complete(r) for r in runs)
    assert not [f for f in captured["data"]["failures"] if "interpreter failed" in f]


def test_bf16_chains_are_rounded_once_as_on_the_device(captured: dict[str, Any]) -> None:
    """bishengir computes bf16 elementwise chains (a loop adding into a bf16 value, `x * 2.0
    + 1.0`, a select of them) in fp32 and rounds once: the suites' 1e-3 tolerance holds only
    for that. Scalars of the bf16 type and `tl.max` of negative values work too."""
    assert len(_passed(captured, "check_bf16_chain.py::")) == 3
    runs = _runs(captured, "accumulate") + _runs(captured, "shift_clip_peak")
    assert len(runs) == 3 and all(_complete(r) for r in runs)
    assert not [f for f in captured["data"]["failures"] if "interpreter failed" in f]


def test_a_table_of_addresses_reaches_its_buffers(captured: dict[str, Any]) -> None:
    """A kernel making pointers of `data_ptr()`s it loads writes the buffers they name (the
    launch's own tensors do not show them); one compile for both launches."""
    assert len(_passed(captured, "check_pointer_table.py::")) == 2
    (run,) = _runs(captured, "copy_slots")
    assert _complete(run) and run.manifest["kernel"]["signature"]["table_ptr"] == "*u64"
    assert "outside every tensor" not in captured["text"]


def test_libdevice_calls_run_interpreted(captured: dict[str, Any]) -> None:
    """`libdevice.relu(...)` of a module import and `reciprocal(...)` imported by name;
    `nextafter`, whose integer constants wrap to their width as the compiled IR's do;
    `tl.extra.ascend.libdevice.isnan`, reached through `tl`, of bf16 values; `set_element`,
    whose range bound is a shape's constexpr."""
    assert len(_passed(captured, "check_libdevice.py::")) == 8
    kernels = ("relu_residual", "inverse", "step_toward", "nan_flags", "put_one")
    runs = [r for k in kernels for r in _runs(captured, k)]
    assert len(runs) == 8 and all(_complete(r) for r in runs)
    assert "out of bounds for int" not in captured["text"]
    assert "Did you forget to add @triton.jit" not in captured["text"]
    assert "__index__ returned non-int" not in captured["text"]


def test_tensors_are_where_npu_code_expects_them(captured: dict[str, Any]) -> None:
    """NPU tensors say `npu:0` (`is_npu`, `device=x.device` makes another), `.cpu()` is a
    copy (a reference taken before an in-place kernel keeps its values), and a host tensor
    given to a kernel is refused with the NPU launcher's own ValueError, after its compile."""
    assert len(_passed(captured, "check_device_memory.py::")) == 3
    runs = _runs(captured, "add_into")
    assert len(runs) == 2 and all(_complete(r) for r in runs)  # the refused one compiled too
    assert "refused: Pointer argument (at 1) cannot be accessed" in captured["text"]


def test_results_cross_to_the_host_as_on_the_npu(captured: dict[str, Any]) -> None:
    """A kernel's result compared on one device passes; one compared with a reference left
    on the host, or turned to numpy without `.cpu()`, fails as on the NPU host."""
    assert len(_passed(captured, "check_host_boundary.py::")) == 2
    runs = _runs(captured, "scale_shift")
    assert len(runs) == 1 and _complete(runs[0])  # both tests launch the same specialisation


def test_an_op_the_cpu_lacks_for_bools_is_computed_wider() -> None:
    """Under the virtual NPU, and only there; an in-place op still says what the CPU lacks."""
    import torch

    from ascend_ir_lab.toolchains.ascend.virtual_npu import virtual_npu

    a = torch.tensor([True, False, True])
    with pytest.raises(NotImplementedError):
        a // a
    with virtual_npu("Ascend910B3"):
        got = a.npu() // torch.ones(3, dtype=torch.bool, device="npu")
        with pytest.raises(NotImplementedError, match="Bool"):
            a.clone().floor_divide_(a)
    assert got.dtype == torch.bool and got.tolist() == [True, False, True]
    with pytest.raises(NotImplementedError):
        torch.rand(4, dtype=torch.int32)
    with virtual_npu("Ascend910B3"):
        ints = torch.rand(4, device="npu", dtype=torch.int32)  # as torch_npu gives: [0, 1)
        with pytest.raises(NotImplementedError, match="Int"):
            torch.ones(2, dtype=torch.int32).uniform_()
    assert ints.dtype == torch.int32 and ints.tolist() == [0, 0, 0, 0]


@triton.jit
def small_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


def test_a_dot_smaller_than_a_gpu_tile_runs_interpreted() -> None:
    """triton-ascend's dot has no 16 x 16 x 16 minimum; the interpreter takes its bound."""
    import torch

    a, b, c = torch.randn(4, 8), torch.randn(8, 2), torch.zeros(4, 2)
    interpret_launch(small_dot, (1,), (a, b, c), {"M": 4, "N": 2, "K": 8})
    torch.testing.assert_close(c, a @ b)


@triton.jit
def larger_first(out_ptr, M: tl.constexpr, N: tl.constexpr):
    # as triton-ascend's tutorial 13 writes it: three values (the conditional binds tighter
    # than the commas) for two names, which the compiler pairs as zip does
    x, y = M, N if M > N else N, M
    offs = tl.arange(0, 2)
    tl.store(out_ptr + offs, tl.where(offs == 0, x, y))


def test_a_tuple_assignment_unpacks_as_compiled() -> None:
    """Python raises "too many values to unpack" where the compiler drops the extra value."""
    import torch

    out = torch.zeros(2, dtype=torch.int32)
    interpret_launch(larger_first, (1,), (out,), {"M": 3, "N": 5})
    assert out.tolist() == [3, 5]


@triton.jit
def broadcast_rows(x_ptr, out_ptr, R: tl.constexpr, N: tl.constexpr):
    cols = tl.arange(0, N)
    rows = tl.arange(0, R)[:, None] * N + cols[None, :]
    x = tl.load(x_ptr + cols[None, :])
    o = tl.load(out_ptr + rows)
    ret = tl.broadcast(x, o)  # a pair, given to one name: the compiler keeps the first
    tl.store(out_ptr + rows, ret)


def test_one_name_given_a_pair_takes_the_first_as_compiled() -> None:
    """Python keeps the pair (and the store of it fails), the compiler's zip takes `x`."""
    import torch

    x, out = torch.randn(8), torch.zeros(3, 8)
    interpret_launch(broadcast_rows, (1,), (x, out), {"R": 3, "N": 8})
    assert torch.equal(out, x.expand(3, 8))


def test_a_kernel_the_frontend_refuses_raises_from_the_launch(captured: dict[str, Any]) -> None:
    """`pytest.raises(CompilationError)` around the launch passes, as on an NPU host; the
    refused compile is a Run of its own, and not a failure of the capture (the script
    handled it)."""
    assert len(_passed(captured, "check_refused_types.py::")) == 2
    runs = _runs(captured, "nan_mask")
    assert sorted(r.status for r in runs) == ["compile-error", "ir-complete-no-binary"]
    refused = next(r for r in runs if r.status == "compile-error")
    assert "CompilationError" in refused.manifest["extra"]["ttir_error"]
    assert "triton's compile raised CompilationError, raised here as on the NPU" in captured["text"]
    assert not [f for f in captured["data"]["failures"] if "nan_mask" in f]


def test_loop_counters_are_values_as_compiled(captured: dict[str, Any]) -> None:
    """A loop's counter indexes `tl.get_element`, offsets `tl.insert_slice`, is given new
    axes (`(ii * 4 + jj)[None, None]`) and cast (`k.to(tl.int64)`): an i32 value in the
    compiled kernel, a Python int in the interpreter, which those calls, Python's subscript
    and its attributes would refuse."""
    assert len(_passed(captured, "check_loop_counters.py::")) == 3
    kernels = ("pick_rows", "weighted_taps", "strided_blocks")
    runs = [r for k in kernels for r in _runs(captured, k)]
    assert len(runs) == 3 and all(_complete(r) for r in runs)
    assert "object has no attribute 'handle'" not in captured["text"]
    assert "object is not subscriptable" not in captured["text"]
    assert "'int' object has no attribute 'to'" not in captured["text"]
