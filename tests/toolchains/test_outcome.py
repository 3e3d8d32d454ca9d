"""A failed stage is listed with the compiler's own first word on it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import triton
import triton.language as tl

from ascend_ir_lab.errors import CompilerError
from ascend_ir_lab.runs import Run
from ascend_ir_lab.toolchains.common.outcome import failures
from tests.toolchains.conftest import needs_ascend

# what triton-adapter-opt of triton-ascend 3.2 prints when it aborts on a block pointer
ADAPTER_ABORT = """\
///------------------[ERROR][Triton][BEG]------------------
[ConvertTritonIRToLinalgIR] encounters error:
k.py:89:0: error: getFullShapeOp() only support ReinterpretCastOp and scf.for's block argument
triton-adapter-opt: Utils.cpp:307: getBoundarySizes: Assertion `fullShapeOp.has_value()' failed.
Stack dump:
"""


def test_a_failed_stage_says_what_the_compiler_said() -> None:
    error = CompilerError(["triton-adapter-opt", "k.ttir"], -6, ADAPTER_ABORT, stage="adapter")
    quiet = CompilerError(["bishengir-compile"], 1, "Segmentation fault\n", stage="bishengir")
    (said, plain) = failures(SimpleNamespace(errors=[error, quiet], launches=[]))
    assert said == (
        "stage adapter failed (exit code -6): k.py:89:0: error: getFullShapeOp() only support "
        "ReinterpretCastOp and scf.for's block argument"
    )
    assert plain == "stage bishengir failed (exit code 1)"


@triton.jit
def triangle_rows(x_ptr, out_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    root = tl.sqrt(9.0 + 4.0 * (3.0 - pid * 2))  # a scalar float of the program id
    row = tl.floor((root - 1.0) / 2.0).to(tl.int32)
    offs = row * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)


@pytest.mark.ascend
@needs_ascend
def test_the_compilers_reason_is_found_above_the_module_it_printed(tmp_path: Path) -> None:
    """triton-adapter-opt of triton-ascend 3.2 refuses this kernel and then prints the whole
    module, far more than the tail kept: the line still names the compiler's reason."""
    from ascend_ir_lab.toolchains.ascend.compile import StageFailedError, compile_kernel

    sig = {"x_ptr": "*fp32", "out_ptr": "*fp32"}
    with pytest.raises(StageFailedError) as caught:
        compile_kernel(triangle_rows, signature=sig, constexprs={"N": 512, "BLOCK": 128},
                       out=tmp_path / "run", line_info=True)  # fmt: skip
    (said,) = failures(SimpleNamespace(errors=[caught.value], launches=[]))
    assert said.startswith("stage adapter failed (exit code 1): ") and "test_outcome.py:" in said
    assert "error: failed to legalize unresolved materialization" in said


# An NPU-host test file written for a newer triton-ascend: the module it imports at the top
# is not in 3.2, so pytest reports the failure as its own collection error.
NEWER_TRITON_TESTS = """\
import pytest
import torch
import torch_npu
import triton
import triton.language as tl
import triton.language.extra.cann.libdevice as libdevice


@pytest.mark.parametrize("n", [16, 64])
def test_erf(n):
    x = torch.randn(n, device="npu")
    assert libdevice.erf is not None and x.numel() == n
"""

MOCKED_TUNER_TESTS = """\
from unittest import mock


def test_tiling_is_mocked():
    with mock.patch("triton.backends.ascend.runtime.autotuner.AutoTilingTuner.run", new=None):
        pass
"""


def test_missing_triton_modules_are_seen_however_the_import_fails() -> None:
    """Caught by the code, hidden behind a mock.patch AttributeError, or raised: each missing
    `triton.*` module is seen once; modules that exist and other packages are not."""
    from unittest import mock

    from ascend_ir_lab.toolchains.common.outcome import (
        missing_module_hint,
        missing_triton_modules,
    )

    finders = list(sys.meta_path)
    with missing_triton_modules() as missing:
        with pytest.raises(ModuleNotFoundError) as raised:
            import triton.language.extra.cann  # noqa: F401
        with pytest.raises(AttributeError), mock.patch("triton.backends.ascend.runtime.x.y"):
            pass
        with pytest.raises(ModuleNotFoundError):
            import no_such_package_here  # noqa: F401
        import triton.language.core  # noqa: F401
    assert sys.meta_path == finders
    assert missing == ["triton.language.extra.cann", "triton.backends.ascend.runtime"]
    hint = missing_module_hint(raised.value)
    assert hint == (
        f"triton.language.extra.cann is not part of the installed triton ({triton.__version__})"
        ": this code needs a newer triton-ascend"
    )
    assert missing_module_hint(AssertionError("pytest.main() != 0"), missing).startswith(
        "triton.language.extra.cann, triton.backends.ascend.runtime are not part of"
    )
    assert missing_module_hint(AssertionError("x")) == ""


@pytest.mark.ascend
@needs_ascend
@pytest.mark.parametrize(
    ("text", "module"),
    [
        (NEWER_TRITON_TESTS, "triton.language.extra.cann"),
        (MOCKED_TUNER_TESTS, "triton.backends.ascend.runtime"),
    ],  # fmt: skip
)
def test_capture_of_pytest_says_what_this_triton_lacks(
    tmp_path: Path, text: str, module: str
) -> None:
    """pytest turns the failed import into a collection error (or a failed test) of its own:
    capture still ends with the one line saying which triton is installed, and fails."""
    (tmp_path / "test_newer.py").write_text(text)
    cmd = [sys.executable, "-m", "ascend_ir_lab", "capture", "-o", str(tmp_path / "runs"), "--",
           sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_newer.py"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    said = [ln for ln in done.stderr.splitlines() if "is not part of the installed" in ln]
    assert done.returncode != 0
    assert said == [
        f"[ascend-ir-lab] {module} is not part of the installed triton ({triton.__version__}): "
        "this code needs a newer triton-ascend"
    ], done.stdout + done.stderr
    assert "ascend_ir_lab/" not in done.stderr  # nothing of ours in the traceback


FAILING_COMPILE = """
import torch, torch_npu, triton, triton.language as tl

@triton.jit
def wide_softmax(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.exp(tl.load(x_ptr + offs))
    tl.store(y_ptr + offs, x / tl.sum(x, 0))

x = torch.randn(1 << 18).npu()
wide_softmax[(1,)](x, torch.empty_like(x), BLOCK=1 << 18)  # 1 MiB a row: past the UB
"""


@needs_ascend
def test_a_compile_that_failed_is_listed_with_the_run_it_left(tmp_path: Path) -> None:
    """The Run of a failed compile (every Dump up to the failure, the stage's log) is the one
    a failure is debugged from: capture lists it, never says no Run was made."""
    (tmp_path / "wide.py").write_text(FAILING_COMPILE)
    cmd = [sys.executable, "-m", "ascend_ir_lab", "capture", "-o", str(tmp_path / "runs"), "--",
           sys.executable, "wide.py"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 1 and "no Run was made" not in done.stdout, done.stdout
    data = json.loads((tmp_path / "runs" / "capture.json").read_text())
    assert data["runs"] == ["wide_softmax"]
    assert data["failures"][0].startswith("stage bishengir failed (exit code 1)")
    run = Run(tmp_path / "runs" / "wide_softmax")
    assert run.status == "compile-error"
    assert {d.stage for d in run.timeline.dumps} == {"ttir", "adapter", "bishengir"}
    assert "wide_softmax" in done.stdout.split("kernel", 1)[1]  # in the table of Runs
