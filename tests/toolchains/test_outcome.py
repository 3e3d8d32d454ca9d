"""A failed stage is listed with the compiler's own first word on it."""

from __future__ import annotations

from types import SimpleNamespace

from ascend_ir_lab.errors import CompilerError
from ascend_ir_lab.toolchains.common.outcome import failures

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
