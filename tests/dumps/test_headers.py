"""Every header family, as real tools print it."""

from __future__ import annotations

import pytest

from ascend_ir_lab.dumps import parse_header

CASES = [
    # bishengir-compile, older MLIR form
    ("// -----// IR Dump After CanonicalizeModule (canonicalize-module) //----- //",
     ("mlir", "after", "CanonicalizeModule", "canonicalize-module", "", "")),
    # module-scope printing adds the op and symbol
    ("// -----// IR Dump After EraseSymbol (erase-symbol) ('func.func' operation: @add_kernel) //----- //",
     ("mlir", "after", "EraseSymbol", "erase-symbol", "", "func.func @add_kernel")),
    ("// -----// IR Dump Before Inliner (inline) ('builtin.module' operation) //----- //",
     ("mlir", "before", "Inliner", "inline", "", "builtin.module")),
    ("// -----// IR Dump After PlanMemory Failed (hivm-plan-memory) //----- //",
     ("mlir", "failed", "PlanMemory", "hivm-plan-memory", "", "")),
    # newer MLIR form with options
    ("// -----// IR Dump Before TritonGPUCoalesce: tritongpu-coalesce{num-warps=4} ('tt.func' operation: @f) //----- //",
     ("mlir", "before", "TritonGPUCoalesce", "tritongpu-coalesce", "num-warps=4", "tt.func @f")),
    ("// -----// IR Dump Before Canonicalizer: canonicalize ('builtin.module' operation) //----- //",
     ("mlir", "before", "Canonicalizer", "canonicalize", "", "builtin.module")),
    ("// -----// SoftwarePipeliner internal IR Dump After: LoadPipeliner",
     ("mlir-internal", "after", "SoftwarePipeliner: LoadPipeliner", "SoftwarePipeliner", "", "")),
    ("// -----// SoftwarePipeliner internal IR Dump After: CoarseSchedule //----- //",
     ("mlir-internal", "after", "SoftwarePipeliner: CoarseSchedule", "SoftwarePipeliner", "", "")),
    # LLVM new pass manager
    ("; *** IR Dump After InstCombinePass on kernel ***",
     ("llvm", "after", "InstCombinePass", "InstCombinePass", "", "function @kernel")),
    ("; *** IR Dump After VerifierPass on [module] ***",
     ("llvm", "after", "VerifierPass", "VerifierPass", "", "module")),
    ("; *** IR Dump After GlobalDCEPass on [module] (invalidated) ***",
     ("llvm", "after", "GlobalDCEPass", "GlobalDCEPass", "invalidated", "module")),
    # legacy and machine IR
    ("*** IR Dump After Expand Atomic instructions (atomic-expand) ***",
     ("llvm-legacy", "after", "Expand Atomic instructions", "atomic-expand", "", "")),
    ("# *** IR Dump After Finalize ISel and expand pseudo-instructions (finalize-isel) ***:",
     ("llvm-legacy", "after", "Finalize ISel and expand pseudo-instructions", "finalize-isel", "", "")),
    ("*** IR Dump Before Module Verifier ***",
     ("llvm-legacy", "before", "Module Verifier", "", "", "")),
]  # fmt: skip


@pytest.mark.parametrize(("line", "expected"), CASES)
def test_header_families(line: str, expected: tuple[str, ...]) -> None:
    h = parse_header(line)
    assert h is not None
    assert (h.family, h.phase, h.pass_name, h.arg, h.options, h.scope) == expected


@pytest.mark.parametrize(
    "line",
    [
        'loc("x.py":1:2): error: IR Dump After something went wrong',
        "  // IR Dump After comment inside IR",
        "[ERROR] IR Dump failed",
        "// -----// IR Dump After",
    ],
)
def test_lines_that_mention_ir_dump_are_not_headers(line: str) -> None:
    assert parse_header(line) is None
