"""A failed stage is listed with the compiler's own first word on it."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import triton
import triton.language as tl

from ascend_ir_lab.errors import CompilerError
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
