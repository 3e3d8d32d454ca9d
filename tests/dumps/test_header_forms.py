"""Every header form MLIR's and LLVM's printers produce, each as a tiny log between two
ordinary dumps; real `opt` logs for the LLVM units; change states that say what is known."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascend_ir_lab.dumps import Timeline, index_log, open_timeline, read_log
from tests.conftest import DATA

LLVM = DATA / "llvm"

MLIR_A = b"// -----// IR Dump After CSE (cse) //----- //\nmodule {\n  func.func @f() {\n    return\n  }\n}\n\n"
MLIR_B = b"// -----// IR Dump After Canonicalizer (canonicalize) //----- //\nmodule {\n  func.func @f() {\n    return\n  }\n}\n\n"
LLVM_A = b"; *** IR Dump After VerifierPass on [module] ***\n; ModuleID = 'm'\ndefine void @f() {\n  ret void\n}\n"
LLVM_B = b"; *** IR Dump After GlobalDCEPass on [module] ***\n; ModuleID = 'm'\ndefine void @f() {\n  ret void\n}\n"
MODULE = b"; ModuleID = 'm'\ndefine void @f() {\n  ret void\n}\n"
LOOP = b"\n; Preheader:\nentry:\n  br label %loop\n\n; Loop:\nloop:\n  br i1 %c, label %loop, label %exit\n\n; Exit blocks\nexit:\n  ret void\n"

# (name, the form, the ordinary dumps around it, the middle's Dumps as
#  (pass_name, arg, phase, scope, holds, options), the middle's banners as (pass, banner))
FORMS = [
    ("llvm no-change banner",
     b"*** IR Dump After InstSimplifyPass on f omitted because no change ***\n", "llvm",
     [], [("InstSimplifyPass", "unchanged")]),
    ("llvm filtered banner",
     b"*** IR Dump After InstSimplifyPass on g filtered out ***\n", "llvm",
     [], [("InstSimplifyPass", "filtered")]),
    ("llvm older no-change banner",
     b"*** IR Dump After VerifierPass (module) omitted because no change ***\n", "llvm",
     [], [("VerifierPass", "unchanged")]),
    ("llvm ignored and invalidated banners",
     b"*** IR Pass PassManager<llvm::Function> on f ignored ***\n*** IR Pass LoopDeletionPass invalidated ***\n", "llvm",
     [], [("PassManager<llvm::Function>", "ignored"), ("LoopDeletionPass", "invalidated")]),
    ("llvm 12 banners naming their unit inside",
     b"*** IR Dump After InlinerPass (scc: (f, g)) omitted because no change ***\n"
     b"*** IR Dump After LoopRotatePass (loop: %loop) filtered out ***\n"
     b"*** IR Pass PassManager<llvm::Function> (function: f) ignored ***\n", "llvm",
     [], [("InlinerPass", "unchanged"), ("LoopRotatePass", "filtered"), ("PassManager<llvm::Function>", "ignored")]),
    ("llvm 12 cgscc dump naming its unit after the stars",
     b"*** IR Dump After InlinerPass *** (scc: (f, g))\ndefine void @f() {\n  ret void\n}\n", "llvm",
     [("InlinerPass", "", "after", "cgscc (f, g)", "cgscc (f, g)", "")], []),
    ("llvm deleted banner", b"*** IR Deleted After GlobalDCEPass on g ***\n", "llvm",
     [], [("GlobalDCEPass", "deleted")]),
    ("llvm dump at start", b"*** IR Dump At Start ***\n" + MODULE, "llvm",
     [("At Start", "", "start", "module", "module", "")], []),
    ("llvm dump at start, older", b"*** IR Dump At Start: ***\n" + MODULE, "llvm",
     [("At Start", "", "start", "module", "module", "")], []),
    ("legacy module scope", b"*** IR Dump After SROA (sroa) *** (function: f)\n" + MODULE, "llvm",
     [("SROA", "sroa", "after", "function @f", "module", "")], []),
    ("new pm older module scope", b"*** IR Dump After InstSimplifyPass *** (function: g)\n" + MODULE, "llvm",
     [("InstSimplifyPass", "", "after", "function @g", "module", "")], []),
    ("llvm 11 module scope naming its loop without %", b"*** IR Dump After Loop Rotate *** (loop: for.body)\n" + MODULE, "llvm",
     [("Loop Rotate", "", "after", "loop %for.body", "module", "")], []),
    ("llvm 11 module scope, new pm, loop named without %", b"*** IR Dump After LoopRotatePass *** (loop: loop)\n" + MODULE, "llvm",
     [("LoopRotatePass", "", "after", "loop %loop", "module", "")], []),
    ("llvm 11 module scope, loop of an unnamed header", b"*** IR Dump After LoopRotatePass *** (loop: <unnamed loop>)\n" + MODULE, "llvm",
     [("LoopRotatePass", "", "after", "loop <unnamed>", "module", "")], []),
    ("pass number", b"; *** IR Dump Before 2-NoOpModulePass on [module] ***\n" + MODULE, "llvm",
     [("NoOpModulePass", "NoOpModulePass", "before", "module", "module", "")], []),
    ("print at pass number", b"*** IR Dump At 3-IndVarSimplifyPass on f ***\ndefine void @f() {\n  ret void\n}\n", "llvm",
     [("IndVarSimplifyPass", "IndVarSimplifyPass", "after", "function @f", "function @f", "")], []),
    ("loop unit", b"; *** IR Dump After LICMPass on loop %loop in function f ***\n" + LOOP, "llvm",
     [("LICMPass", "LICMPass", "after", "loop %loop in function @f", "loop %loop in function @f", "")], []),
    ("loop unit, LLVM 14", b"*** IR Dump After LICMPass on Loop at depth 1 containing: %loop<header><latch><exiting> ***\n" + LOOP, "llvm",
     [("LICMPass", "LICMPass", "after", "loop %loop at depth 1", "loop %loop at depth 1", "")], []),
    ("loop unit named by its header block", b"*** IR Dump After LoopRotatePass on loop ***\n" + LOOP, "llvm",
     [("LoopRotatePass", "LoopRotatePass", "after", "loop %loop", "loop %loop", "")], []),
    ("invalidated loop", b"; *** IR Dump After LoopDeletionPass on loop %loop in function f (invalidated) ***\n" + MODULE, "llvm",
     [("LoopDeletionPass", "LoopDeletionPass", "after", "loop %loop in function @f", "module", "invalidated")], []),
    ("cgscc unit", b"; *** IR Dump After InlinerPass on (f, g) ***\ndefine void @f() {\n  ret void\n}\n\ndefine void @g() {\n  ret void\n}\n", "llvm",
     [("InlinerPass", "InlinerPass", "after", "cgscc (f, g)", "cgscc (f, g)", "")], []),
    ("mlir anonymous pass without argument",
     b"// -----// IR Dump After (anonymous namespace)::P: unknown<(anonymous namespace)::P> //----- //\nmodule {\n}\n\n", "mlir",
     [("(anonymous namespace)::P", "", "after", "builtin.module", "builtin.module", "")], []),
    ("mlir anonymous pass, older form",
     b"// -----// IR Dump After (anonymous namespace)::FuncOpLoweringPass () //----- //\nmodule {\n}\n\n", "mlir",
     [("(anonymous namespace)::FuncOpLoweringPass", "", "after", "builtin.module", "builtin.module", "")], []),
    ("mlir anonymous pass with argument and scope",
     b"// -----// IR Dump After (anonymous namespace)::Lower: lower-std{a=1 b={x y}} ('builtin.module' operation) //----- //\nmodule {\n}\n\n", "mlir",
     [("(anonymous namespace)::Lower", "lower-std", "after", "builtin.module", "builtin.module", "a=1 b={x y}")], []),
    ("oldest mlir form", b"*** IR Dump Before CSE *** (function: foo)\nfunc @foo() {\n  return\n}\n\n", "mlir",
     [("CSE", "", "before", "func @foo", "func @foo", "")], []),
    ("oldest mlir form, module scope", b"*** IR Dump After CSE *** ('func' operation: @foo)\nmodule {\n  func @foo() {\n    return\n  }\n}\n\n", "mlir",
     [("CSE", "", "after", "func @foo", "builtin.module", "")], []),
    ("mlir 2020-2021 form", b"// *** IR Dump After CSE ***\nfunc @foo() {\n  return\n}\n\n\n", "mlir",
     [("CSE", "", "after", "func @foo", "func @foo", "")], []),
    ("mlir 2020-2021 form, module scope",
     b"// *** IR Dump Before Canonicalizer *** ('func' operation: @foo)\nmodule {\n  func @foo() {\n    return\n  }\n}\n\n\n", "mlir",
     [("Canonicalizer", "", "before", "func @foo", "builtin.module", "")], []),
    ("mlir 2020-2021 form, after failure",
     b"// *** IR Dump After TestFailurePass Failed *** ('func' operation: @foo)\nmodule {\n  func @foo() {\n    return\n  }\n}\n\n\n", "mlir",
     [("TestFailurePass", "", "failed", "func @foo", "builtin.module", "")], []),
    ("oldest mlir form, after failure", b"*** IR Dump After TestFailurePass Failed ***\nfunc @foo() {\n  return\n}\n\n\n", "mlir",
     [("TestFailurePass", "", "failed", "func @foo", "func @foo", "")], []),
    ("mlir 2021 form, after failure, no argument",
     b"// -----// IR Dump After TestFailurePass Failed ('func.func' operation: @foo) //----- //\nmodule {\n  func.func @foo() {\n    return\n  }\n}\n\n\n", "mlir",
     [("TestFailurePass", "", "failed", "func.func @foo", "builtin.module", "")], []),
    ("llvm print-on-crash", b"*** Dump of IR Before Last Pass InstSimplifyPass Started ***\ndefine void @f() {\n  ret void\n}\n", "llvm",
     [("InstSimplifyPass", "InstSimplifyPass", "before", "function @f", "function @f", "crash")], []),
    ("llvm print-on-crash, module scope, newest", b"; *** Dump of Module IR Before Last Pass RequireAnalysisPass<llvm::GlobalsAA, llvm::Module> Started ***\n" + MODULE, "llvm",
     [("RequireAnalysisPass<llvm::GlobalsAA, llvm::Module>", "RequireAnalysisPass<llvm::GlobalsAA, llvm::Module>", "before", "module", "module", "crash")], []),
    ("llvm print-on-crash, pass filtered out", b"*** Dump of Module IR Before Last Pass GVNPass Filtered Out ***\n", "llvm",
     [], [("GVNPass", "filtered")]),
    ("llvm print-on-crash before any pass", b"*** Dump of IR Before Last Pass Unknown ***", "llvm", [], []),
    ("triton llvm ir dump (older and out-of-tree backends)", b"// -----// LLVM IR Dump //----- //\n" + MODULE + b"\n", "mlir",
     [("LLVM IR", "", "after", "module", "module", "")], []),
    ("mlir pattern driver's dump, inside a pass",
     b"  } -> success : pattern applied successfully\n// *** IR Dump After Pattern Application ***\n"
     b"func.func @f() {\n  return\n}\n\n\n} -> success : pattern matched\n", "mlir",
     [("Pattern Application", "", "after", "func.func @f", "func.func @f", "")], []),
    ("pre-2022 bodies scoped by symbol",
     b"// -----// IR Dump After CSE (cse) //----- //\nfunc @foo() {\n  return\n}\n\n"
     b"// -----// IR Dump After CSE (cse) //----- //\nfunc private @bar() {\n  return\n}\n\n", "mlir",
     [("CSE", "cse", "after", "func @foo", "func @foo", ""), ("CSE", "cse", "after", "func @bar", "func @bar", "")], []),
    ("mlir print-ir pass", b"// -----// IR Dump //----- //\nmodule {\n}\n\n", "mlir",
     [("PrintIRPass", "print-ir", "after", "builtin.module", "builtin.module", "")], []),
    ("mlir print-ir pass with a label", b"// -----// IR Dump after tiling //----- //\nfunc.func @f() {\n  return\n}\n\n", "mlir",
     [("PrintIRPass", "print-ir", "after", "func.func @f", "func.func @f", "label=after tiling")], []),
    ("stage llvm ir without closing marks (MUSA)", b"// -----// LLVM IR\n" + MODULE + b"\n", "mlir",
     [("LLVM IR", "", "after", "module", "module", "")], []),
    ("stage llvm ir without closing marks, between llvm dumps", b"// -----// LLVM IR\n" + MODULE + b"\n", "llvm",
     [("LLVM IR", "", "after", "module", "module", "")], []),
    ("stage llvm ir named in one word", b"// -----// MUSA LLVMIR Dump //----- //\n" + MODULE + b"\n", "mlir",
     [("MUSA LLVMIR", "", "after", "module", "module", "")], []),
    ("stage assembly without closing marks", b"// -----// MTGPU ASM\n\t.text\n\t.globl\tk\nk:\n\tEXIT\n\n", "mlir",
     [("MTGPU ASM", "", "after", "mtgpu asm module", "mtgpu asm module", "")], []),
    ("a frontend's dumped ir", b"// -----// Dumped CudaTile IR //----- //\ncuda_tile.module @m {\n}\n\n", "mlir",
     [("CudaTile IR", "", "after", "cuda_tile.module @m", "cuda_tile.module @m", "")], []),
    ("codegen's machine-code printer (llc -print-after-isel)",
     b"# After Instruction Selection:\n# Machine code for function f: IsSSA, TracksLiveness\n\nbb.0.entry:\n  RET 0\n\n# End machine code for function f.\n\n", "llvm",
     [("Instruction Selection", "", "after", "function @f", "function @f", "")], []),
]  # fmt: skip


def _read(data: bytes) -> Timeline:
    idx = index_log(data, stage="s", log_id=0)
    assert b"".join(data[s.start : s.end] for s in idx.segments) == data
    return Timeline([(_info(data, idx), data)], idx.dumps, idx.messages, idx.warnings)


def _info(data: bytes, idx):  # type: ignore[no-untyped-def]
    from ascend_ir_lab.dumps import LogInfo

    return LogInfo("tiny.log", "s", len(data), idx.segments)


@pytest.mark.parametrize(
    ("name", "form", "lang", "dumps", "banners"), FORMS, ids=[f[0] for f in FORMS]
)
def test_each_form_between_two_ordinary_dumps(
    name: str, form: bytes, lang: str, dumps: list[tuple[str, ...]], banners: list[tuple[str, str]]
) -> None:
    a, b = (MLIR_A, MLIR_B) if lang == "mlir" else (LLVM_A, LLVM_B)
    tl = _read(a + form + b)
    first, *middle, last = tl.dumps
    assert (first.pass_name, last.pass_name) == (
        ("CSE", "Canonicalizer") if lang == "mlir" else ("VerifierPass", "GlobalDCEPass")
    )
    assert tl.text(first) == tl.text(last)  # the ordinary dumps keep their IR, nothing more
    got = [(d.pass_name, d.arg, d.phase, d.scope, d.holds, d.options) for d in middle]
    assert got == dumps
    assert not any(d.truncated for d in tl.dumps)
    assert [(m.pass_name, m.banner) for m in tl.messages if m.banner] == banners
    if not dumps and banners:  # a banner is no Dump: the last dump follows the first, unchanged
        assert tl.previous(last) is first
        assert tl.change_states()[last.index] == "unchanged"


def test_no_change_banner_is_a_message_tied_to_the_dump_before_it() -> None:
    tl = read_log(LLVM / "changed.log")
    assert [d.phase for d in tl.dumps] == ["start", "after"]
    assert tl.change_states() == ["unknown", "changed"]
    unchanged = [m.pass_name for m in tl.messages if m.banner == "unchanged"]
    assert unchanged == ["VerifierPass", "InstSimplifyPass", "GlobalDCEPass", "VerifierPass"]
    assert tl.messages[1].after == 0 and "omitted because no change" in tl.messages[1].text
    assert tl.text(tl.dumps[0]).startswith("; ModuleID = 'loop.ll'")


def test_real_loop_and_cgscc_units() -> None:
    tl = read_log(LLVM / "loop.after-all.log")
    loops = [d for d in tl.dumps if d.scope.startswith("loop")]
    assert [d.pass_name for d in loops] == [
        "LICMPass", "LoopRotatePass", "IndVarSimplifyPass", "LoopDeletionPass",
    ]  # fmt: skip
    assert not any(d.truncated for d in tl.dumps)
    assert all(tl.text(d).rstrip().endswith("ret i32 %acc.next.lcssa") for d in loops[:2])
    deleted = loops[-1]
    assert deleted.options == "invalidated" and deleted.holds == "module"
    cg = read_log(LLVM / "cgscc.log")
    assert [d.scope for d in cg.dumps if d.pass_name == "InlinerPass"] == [
        "cgscc (sum)", "cgscc (caller)",
    ]  # fmt: skip
    legacy = read_log(LLVM / "legacy-loop.log")
    assert legacy.select("loop-rotate").scope == "loop %loop"
    assert not any(d.truncated for d in legacy.dumps)


def test_real_legacy_module_scope_names_the_function_and_holds_the_module() -> None:
    tl = read_log(LLVM / "legacy-modscope.log")
    d = tl.select("sroa")
    assert (d.pass_name, d.arg, d.scope, d.holds) == ("SROA", "sroa", "function @sum", "module")
    assert len(tl.dumps) == 6 and tl.previous(tl.dumps[3]) is tl.dumps[2]


def test_last_mlir_dump_before_an_llvm_section_is_unknown() -> None:
    mlir = b"// -----// IR Dump Before Inliner (inline) ('builtin.module' operation) //----- //\nmodule {\n}\n\n"
    mlir += b"// -----// IR Dump Before CSE (cse) ('builtin.module' operation) //----- //\nmodule {\n}\n\n"
    tl = _read(mlir + LLVM_A + LLVM_B)
    assert tl.change_states() == ["unchanged", "unknown", "changed", "unchanged"]
    assert tl.changed_flags() == [False, False, True, False]


def test_pipeliner_internal_dump_is_not_the_predecessor_of_the_pass_output() -> None:
    a = b"// -----// IR Dump After Coalesce (tritongpu-coalesce) ('builtin.module' operation) //----- //\nmodule {\n}\n\n"
    internal = b"// -----// SoftwarePipeliner internal IR Dump After: LoadPipeliner\nmodule {\n  tt.func @f() {\n  }\n}\n\n"
    out = b"// -----// IR Dump After Pipeline (tritongpu-pipeline) ('builtin.module' operation) //----- //\nmodule {\n}\n\n"
    tl = _read(a + internal + out)
    first, mid, last = tl.dumps
    assert tl.previous(mid) is first and tl.previous(last) is first
    assert tl.change_states() == ["changed", "changed", "unchanged"]


def test_before_only_dump_without_a_later_state_is_unknown(tmp_path: Path) -> None:
    tl = read_log(DATA / "ascend" / "vadd.ttir-passes.log")
    states = tl.change_states()
    assert states[-1] == "unknown"
    assert "unknown" not in states[:-1]


NVPTX = b"//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 8.4\n.target sm_90a\n\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\tret;\n\n}\n"
AMDGCN = b'\t.text\n\t.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n\t.globl\tk\nk:\n\ts_endpgm\n\t.end_amdgpu_metadata\n'


@pytest.mark.parametrize(("what", "text"), [(b"NVPTX", NVPTX), (b"AMDGCN", AMDGCN)])
def test_stage_dumps_after_each_compile(what: bytes, text: bytes) -> None:
    """Triton's NVPTX_ENABLE_DUMP / AMDGCN_ENABLE_DUMP print the stage's assembly after the
    last LLVM pass (`print(header); print(asm)`): a Dump of its own, before the next compile
    and at the end of the log, not IR of the machine-code dump before it."""
    stage = b"// -----// " + what + b" Dump //----- //\n" + text + b"\n"
    compile_ = MLIR_A + LLVM_A + stage
    tl = _read(compile_ + compile_)
    got = [(d.pass_name, d.phase, d.family, d.scope) for d in tl.dumps]
    asm = (what.decode(), "after", "asm", f"{what.decode().lower()} module")
    assert (
        got
        == [
            ("CSE", "after", "mlir", "builtin.module"),
            ("VerifierPass", "after", "llvm", "module"),
            asm,
        ]
        * 2
    )
    assert [tl.raw(d) for d in tl.dumps[2::3]] == [text, text]
    assert tl.raw(tl.dumps[1]) == LLVM_A.partition(b"\n")[2]
    assert not any(d.truncated for d in tl.dumps) and not tl.warnings
    assert tl.change_states()[2] == "changed" and tl.change_states()[5] == "unchanged"


def test_llvm_ir_dump_directory_in_printed_order(tmp_path: Path) -> None:
    """`-ir-dump-directory` writes one file per dump, named `<pass number>-<module hash>-
    <unit>-<PassID>-before.ll` (`-after`, `-invalidated`): read in the order printed,
    pass 10 after pass 9, a pass's before-dump before its after-dump."""
    fn = "define void @f() {\n  ret void\n}\n"
    files = {
        "1-9d4e1e23bd5b7271-module-VerifierPass-before.ll": "; *** IR Dump Before VerifierPass on [module] ***\n; ModuleID = 'm'\n" + fn,
        "1-9d4e1e23bd5b7271-module-VerifierPass-after.ll": "; *** IR Dump After VerifierPass on [module] ***\n; ModuleID = 'm'\n" + fn,
        "9-9d4e1e23bd5b7271-function-8b1c9a0e6f1f2d3c-SROAPass-after.ll": "; *** IR Dump After SROAPass on f ***\n" + fn,
        "10-9d4e1e23bd5b7271-function-8b1c9a0e6f1f2d3c-InstCombinePass-before.ll": "; *** IR Dump Before InstCombinePass on f ***\n" + fn,
        "10-9d4e1e23bd5b7271-function-8b1c9a0e6f1f2d3c-InstCombinePass-after.ll": "; *** IR Dump After InstCombinePass on f ***\n" + fn,
        "12-9d4e1e23bd5b7271-loop-77aa01c3e5b9f420-LoopDeletionPass-invalidated.ll":
            "; *** IR Dump After LoopDeletionPass on loop %loop in function f (invalidated) ***\n; ModuleID = 'm'\n" + fn,
    }  # fmt: skip
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    tl = open_timeline(tmp_path)
    got = [(d.pass_name, d.phase, d.scope) for d in tl.dumps]
    assert got == [
        ("VerifierPass", "before", "module"), ("VerifierPass", "after", "module"),
        ("SROAPass", "after", "function @f"), ("InstCombinePass", "before", "function @f"),
        ("InstCombinePass", "after", "function @f"),
        ("LoopDeletionPass", "after", "loop %loop in function @f"),
    ]  # fmt: skip
    assert tl.change_states()[:2] == ["unchanged", "unchanged"]


MACHINE = b"# *** IR Dump After Machine code sinking (machine-sink) ***:\n# Machine code for function f: IsSSA, TracksLiveness\n\nbb.0:\n  RET 0\n\n# End machine code for function f.\n\n"
MIR = (
    b"---\nname:            f\nalignment:       16\nbody:             |\n  bb.0:\n    RET 0\n...\n"
)
MIR_MODULE = b"--- |\n  define void @f() {\n    ret void\n  }\n...\n" + MIR


@pytest.mark.parametrize("body", [MIR, MIR_MODULE], ids=["machine function", "with its module"])
def test_mir_yaml_body_holds_its_function(body: bytes) -> None:
    """A machine pass printed as MIR (`---`, `name: f`; after `--- |` the LLVM module it
    was compiled from): the function it names, as the machine dumps around it."""
    header = b"# *** IR Dump After Prologue/Epilogue Insertion & Frame Finalization (prologepilog) ***:\n"
    tl = _read(MACHINE + header + body + b"\n" + MACHINE)
    assert [d.arg for d in tl.dumps] == ["machine-sink", "prologepilog", "machine-sink"]
    assert [d.scope for d in tl.dumps] == ["function @f"] * 3
    assert tl.raw(tl.dumps[1]) == body and not tl.messages


STAGE_MESSAGES = b"compiled k in 0.3 s\n  grid: (4, 1, 1)\nok: 1 kernel\n\tdone\n"
AMDGCN_HSA = AMDGCN.replace(
    b"\t.end_amdgpu_metadata\n",
    b"\t.amdgpu_metadata\n---\namdhsa.kernels:\n  - .name: k\n    .sgpr_count: 6\namdhsa.target: gfx942\n...\n\n\t.end_amdgpu_metadata\n",
)


@pytest.mark.parametrize(("what", "text"), [(b"NVPTX", NVPTX), (b"AMDGCN", AMDGCN_HSA)])
def test_messages_after_a_stage_dump_are_not_its_assembly(what: bytes, text: bytes) -> None:
    """What a script prints after the assembly (column 0, or indented after the last
    function closed) is its own: PTX ends with its last function's `}`, AMDGPU assembly
    with its HSA metadata."""
    stage = b"// -----// " + what + b" Dump //----- //\n" + text + b"\n"
    tl = _read(MLIR_A + stage + STAGE_MESSAGES + MLIR_A)
    assert [d.family for d in tl.dumps] == ["mlir", "asm", "mlir"]
    assert tl.raw(tl.dumps[1]) == text
    assert [(m.after, m.text) for m in tl.messages] == [
        (1, line) for line in STAGE_MESSAGES.decode().splitlines()
    ]
    assert not any(d.truncated for d in tl.dumps)


@pytest.mark.parametrize("name", ["softmax.cuda90.ptx", "attention.cuda90.ptx", "softmax.hipgfx942.amdgcn", "attention.hipgfx942.amdgcn"])  # fmt: skip
def test_real_assembly_read_whole_as_a_stage_dump(name: str) -> None:
    """Real PTX (debug sections after the function) and AMDGPU assembly (kernel
    descriptors, HSA metadata) as Triton prints them: all of it the stage dump's."""
    text = (DATA / "triton" / name).read_bytes()
    what = b"NVPTX" if name.endswith("ptx") else b"AMDGCN"
    stage = b"// -----// " + what + b" Dump //----- //\n" + text + b"\n"
    tl = _read(MLIR_A + stage + STAGE_MESSAGES + MLIR_A)
    assert tl.raw(tl.dumps[1]) == text.rstrip(b"\n") + b"\n"
    assert [m.text for m in tl.messages] == STAGE_MESSAGES.decode().splitlines()


@pytest.mark.parametrize("after", [b"", STAGE_MESSAGES], ids=["alone", "messages after it"])
@pytest.mark.parametrize("lang", ["mlir", "llvm"])
@pytest.mark.parametrize(
    ("what", "text"),
    [
        (b"NVPTX", NVPTX), (b"AMDGCN", AMDGCN_HSA),
        (b"NVPTX", (DATA / "triton" / "softmax.cuda90.ptx").read_bytes()),
        (b"AMDGCN", (DATA / "triton" / "softmax.hipgfx942.amdgcn").read_bytes()),
    ],
    ids=["ptx", "amdgcn", "real ptx", "real amdgcn"],
)  # fmt: skip
def test_a_stage_dump_between_two_dumps_of_one_language_that_start_no_compile(
    what: bytes, text: bytes, lang: str, after: bytes
) -> None:
    """A stage's assembly between two pass dumps of one language, the second not the log's
    first pass (a backend that dumps its assembly mid-pipeline, a log that starts
    mid-compile): a Dump of its own, not IR of the dump before it."""
    a, b = (MLIR_A, MLIR_B) if lang == "mlir" else (LLVM_A, LLVM_B)
    stage = b"// -----// " + what + b" Dump //----- //\n" + text + b"\n"
    tl = _read(a + stage + after + b)
    assert [d.family for d in tl.dumps] == [lang, "asm", lang]
    assert tl.raw(tl.dumps[1]) == text.rstrip(b"\n") + b"\n"
    assert tl.raw(tl.dumps[0]) == a.partition(b"\n")[2].rstrip(b"\n") + b"\n"
    assert [m.text for m in tl.messages] == after.decode().splitlines()
    assert not any(d.truncated for d in tl.dumps)
    assert tl.previous(tl.dumps[2]) is tl.dumps[0]  # the assembly is no state of the module


def test_dumps_printed_without_their_regions_say_unknown_not_unchanged() -> None:
    """`--mlir-print-skip-regions` prints each op with regions as `{...}`: two such dumps
    alike say nothing of the regions the pass may have changed. A declaration (no region)
    alike is unchanged."""
    skip = (
        b"// -----// IR Dump After CSE (cse) //----- //\nfunc.func @g(%arg0: index) -> index {...}\n\n"
        b"// -----// IR Dump After CSE (cse) //----- //\nfunc.func private @h()\n\n"
        b"// -----// IR Dump After Canonicalizer (canonicalize) //----- //\nfunc.func private @h()\n\n"
        b"// -----// IR Dump After Canonicalizer (canonicalize) //----- //\nfunc.func @g(%arg0: index) -> index {...}\n\n"
    )  # fmt: skip
    tl = _read(MLIR_A + skip + MLIR_B)
    assert [d.scope for d in tl.dumps[1:5]] == [
        "func.func @g",
        "func.func @h",
        "func.func @h",
        "func.func @g",
    ]
    assert tl.change_states()[1:5] == ["changed", "changed", "unchanged", "unknown"]


def test_a_log_of_codegen_machine_code_prints_alone() -> None:
    """`llc -print-after-isel` with no other printing: each function's machine code after its
    banner, no `IR Dump` line in the log; a Dump per function, not one file of IR."""
    fn = b"# After Instruction Selection:\n# Machine code for function %s: IsSSA, TracksLiveness\n\nbb.0.entry:\n  RET 0\n\n# End machine code for function %s.\n\n"
    tl = _read(fn.replace(b"%s", b"sum") + fn.replace(b"%s", b"caller"))
    assert [(d.pass_name, d.scope) for d in tl.dumps] == [
        ("Instruction Selection", "function @sum"), ("Instruction Selection", "function @caller"),
    ]  # fmt: skip
    assert not tl.messages and not any(d.truncated for d in tl.dumps)


def test_pass_details_after_a_loop_printout_are_messages() -> None:
    """The legacy pass manager's `-debug-pass=Details` prints ` -*- 'P' is the last user
    ...` and ` -- 'P' is not preserving 'Q'` indented by one blank: after a loop printout,
    whose indented last instruction ends it, they are messages, not IR of the loop."""
    details = (
        b" -*- 'Print Loop IR' is the last user of following pass instances. Free these instances\n"
        b"[2026-12-02 17:36:41.950493525] 0xd637510          Freeing Pass 'Print Loop IR' on Loop 'loop'...\n"
        b"0xd6429a0           Required Analyses: Assumption Cache Tracker, Dominator Tree Construction\n"
        b" -- 'Rotate Loops' is not preserving 'Print Loop IR'\n"
    )  # fmt: skip
    loop = b"*** IR Dump After Loop Invariant Code Motion (licm) ***\n" + LOOP
    tl = _read(LLVM_A + loop + details + LLVM_B)
    assert [d.arg for d in tl.dumps] == ["VerifierPass", "licm", "GlobalDCEPass"]
    assert tl.raw(tl.dumps[1]) == LOOP and tl.dumps[1].scope == "loop %loop"
    assert [m.text for m in tl.messages] == details.decode().splitlines()
    assert not any(d.truncated for d in tl.dumps)


OUTPUT = b"module {\n  func.func @f() {\n    return\n  }\n}\n"


@pytest.mark.parametrize("end", [b"\n", b"\r\n"], ids=["lf", "crlf"])
def test_the_result_printed_after_the_last_mlir_dump_is_no_ir_of_it(end: bytes) -> None:
    """`mlir-opt -mlir-print-ir-after-all k.mlir 2>&1 > log`: the result printed to stdout
    (flushed at exit, after the last Dump; with `--split-input-file` each chunk's and its
    `// -----`) follows the two blank lines that end the last Dump's IR: messages."""
    stdout = OUTPUT + b"// -----\n" + OUTPUT
    tl = _read((MLIR_A + b"\n" + MLIR_B + b"\n" + stdout).replace(b"\n", end))
    assert tl.text(tl.dumps[1]) == tl.text(tl.dumps[0])
    assert [m.text for m in tl.messages] == stdout.decode().splitlines()
    assert not tl.dumps[1].truncated and tl.change_states() == ["changed", "unchanged"]


def test_assembly_printed_after_the_last_machine_code_dump_is_no_ir_of_it() -> None:
    """`llc -print-after-all k.ll -o - 2>&1`: the assembly (flushed at exit, indented by
    tabs) after the last function's machine code: messages, the Dump complete and whole."""
    machine = MACHINE.replace(b"(machine-sink)", b"(pseudo-probe-inserter)")
    asm = b"\t.text\n\t.globl\tf\nf:\n\tretq\n.Lfunc_end0:\n\t.size\tf, .Lfunc_end0-f\n"
    tl = _read(MACHINE + machine + asm)
    assert tl.raw(tl.dumps[1]) == tl.raw(tl.dumps[0])
    assert [m.text for m in tl.messages] == asm.decode().splitlines()
    assert not tl.dumps[1].truncated and not tl.warnings
    assert tl.change_states() == ["changed", "unchanged"]


def test_the_mir_printed_after_the_last_machine_code_dump_is_no_ir_of_it() -> None:
    """`llc -stop-after=finalize-isel -print-after-all k.ll -o - 2>&1`: the MIR (flushed at
    exit, its `---`/`...` documents lines machine IR holds too) after the last function's
    machine code: messages, the Dump ending with its `# End machine code` line."""
    machine = MACHINE.replace(b"(machine-sink)", b"(finalize-isel)")
    mir = b"--- |\n  ; ModuleID = 'k.ll'\n  define void @f() {\n    ret void\n  }\n...\n"
    mir += b"---\nname:            f\nbody:             |\n  bb.0:\n    RET 0\n...\n"
    tl = _read(MACHINE + machine + mir)
    assert tl.raw(tl.dumps[1]) == tl.raw(tl.dumps[0])
    assert [m.text for m in tl.messages] == mir.decode().splitlines()
    assert not tl.dumps[1].truncated and not tl.warnings
    assert tl.change_states() == ["changed", "unchanged"]
