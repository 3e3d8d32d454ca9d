"""Bodies and interleaved output as the real printers write them, each as a tiny log between
two ordinary dumps: the Dump's text is exactly the body printed, every other line a Message.

The forms are the ones `opt`/`llc` (`-print-changed=diff|cdiff`, the legacy CGSCC printer),
bishengir-compile and triton-adapter-opt (`--mlir-print-op-generic`,
`--mlir-output-format=json`) and upstream Triton (`MLIR_ENABLE_DIAGNOSTICS`, Python warnings)
print; tests/dumps/test_real_printers.py runs the tools themselves."""

from __future__ import annotations

import pytest

from ascend_ir_lab.dumps import LogInfo, Timeline, index_log

MLIR_A = b"// -----// IR Dump After CSE (cse) //----- //\nmodule {\n  func.func @f() {\n    return\n  }\n}\n\n"
MLIR_B = b"// -----// IR Dump After Canonicalizer (canonicalize) //----- //\nmodule {\n  func.func @f() {\n    return\n  }\n}\n\n"
LLVM_A = b"; *** IR Dump After VerifierPass on [module] ***\n; ModuleID = 'm'\ndefine i32 @sum(i32 %n) {\n  ret i32 %n\n}\n"
LLVM_B = b"; *** IR Dump After GlobalDCEPass on [module] ***\n; ModuleID = 'm'\ndefine i32 @sum(i32 %n) {\n  ret i32 %n\n}\n"

DIFF = b" \n   %r = call i32 @sum(i32 %n)\n-  %s = add i32 %r, 0\n-  ret i32 %s\n+  ret i32 %r\n"
CDIFF = (
    b" \n   %r = call i32 @sum(i32 %n)\n\x1b[31m-  %s = add i32 %r, 0\x1b[0m\n"
    b"\x1b[31m-  ret i32 %s\x1b[0m\n\x1b[32m+  ret i32 %r\x1b[0m\n"
)
SCC_DIFF = (
    b"\n*** IR for function (caller) ***\n \n entry:\n   br label %loop\n"
    b"\n*** IR for function (caller) ***\n \n-  %r = call i32 @sum(i32 %n)\n+  br label %loop.i\n"
)
MACHINE_DIFF = (
    b"-# Machine code for function foo: IsSSA, TracksLiveness\n"
    b"+# Machine code for function foo: IsSSA, TracksLiveness, Legalized\n Function Live Ins: $w0\n"
)
SYM_LATE = b'"func.func"() <{arg_attrs = [' + b", ".join(
    [b"{hacc.arg_type = #hacc.arg_type<workspace>}"] * 16
)
SYM_LATE += b'], function_type = () -> (), sym_name = "vadd"}> ({\n  "func.return"() : () -> ()\n}) : () -> ()\n'
# The generic form before properties (LLVM 17 and older): attributes after the regions.
SYM_AFTER = (
    b'"func.func"() ({\n  "func.return"() : () -> ()\n'
    b'}) {function_type = () -> (), sym_name = "vadd"} : () -> ()\n'
)
JSON_TIMING = (
    b'[\n{"wall": {"duration":   0.0014, "percentage":   1.3}, "name": "Parser", "passes": [\n{}]},\n'
    b'{"wall": {"duration":   0.0419, "percentage":  38.6}, "name": "\'func.func\' Pipeline", "passes": [\n'
    b'  {"wall": {"duration":   0.0005, "percentage":   0.5}, "name": "CSE", "passes": [\n  {}]},\n{}]},\n'
    b'{"wall": {"duration":   0.1086, "percentage": 100.0}, "name": "Total"}\n]\n'
)
REMARK = (
    b"/home/u/kernels/softmax.py:13:9: remark: Warning: vectorization fails vec = 1 origin vec = 1\n\n"
    b'    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))\n'
    b"        ^\n"
    b'/home/u/kernels/softmax.py:13:9: note: see current operation: %174 = "tt.load"(%173, %124) '
    b"<{isVolatile = false}> : (tensor<1024x!tt.ptr<f32>>, tensor<1024xi1>) -> tensor<1024xf32>\n"
)
VERIFY_ERROR = (
    b"k.mlir:3:5: error: 'arith.addi' op requires the same type for all operands and results\n"
    b"    %0 = arith.addi %a, %b : i32\n    ^\n"
    b'k.mlir:3:5: note: see current operation: %0 = "arith.addi"(%arg0, %arg1) : (i32, i64) -> i32\n'
)
PY_WARNING = (
    b"/home/u/venv/lib/python3.11/site-packages/triton/backends/nvidia/compiler.py:351: "
    b"UserWarning: fp_fusion default changed\n  warn_once(FP_FUSION_DEFAULT_WARNING)\n"
)


# MLIR's pattern drivers' debug log (`-debug-only=greedy-rewriter,dialect-conversion`, LLVM
# before 20): indented steps and `} -> SUCCESS` lines, IR-like, after the pass's dump.
LEGALIZE = (
    b"//===-------------------------------------------===//\n"
    b"Legalizing operation : 'func.func'(0x55f1c2a8e0b0) {\n  * Fold {\n  } -> FAILURE : unable to fold\n"
    b"} -> SUCCESS : operation marked legal by the target\n"
    b"//===-------------------------------------------===//\n"
)
GREEDY = (
    b"//===-------------------------------------------===//\n"
    b"Processing operation : 'arith.addi'(0x5654b0a1c2f0) {\n"
    b'  %1 = "arith.addi"(%0, %0) : (i32, i32) -> i32\n\n'
    b"  * Pattern (anonymous namespace)::AddIAddConstant : 'arith.addi -> (arith.constant)' {\n"
    b'Trying to match "(anonymous namespace)::AddIAddConstant"\n'
    b"    ** Insert  : 'arith.constant'(0x5654b0a1c3a0)\n"
    b'"(anonymous namespace)::AddIAddConstant" result 0\n'
    b"  } -> failure : pattern failed to match\n"
    b"} -> failure : pattern failed to match\n"
)
# The same log from LLVM 20 on: every line tagged, the snapshot after a fold included.
TAGGED = (
    b"[greedy-rewriter:1] } -> success : operation was folded\n"
    b"[greedy-rewriter:1] ** Erase   : 'llvm.bitcast'(0x5618c37a8ce0)\n"
    b"[greedy-rewriter GreedyPatternRewriteDriver.cpp:185 1] // *** IR Dump After Successful Folding ***\n"
    b"[greedy-rewriter GreedyPatternRewriteDriver.cpp:185 1] llvm.func @softmax(%arg0: !llvm.ptr<1>) {\n"
    b"[greedy-rewriter GreedyPatternRewriteDriver.cpp:185 1]   llvm.return\n"
    b"[greedy-rewriter GreedyPatternRewriteDriver.cpp:185 1] }\n"
    b"[greedy-rewriter:1] \n"
)
# `-debug-pass-manager=verbose` indents its lines by nesting: after a loop printout, whose
# last line is an indented instruction, they are messages all the same.
LOOP_BODY = b"\n; Preheader:\nentry:\n  br label %loop\n\n; Loop:\nloop:\n  br label %loop\n\n; Exit blocks\nexit:\n  ret i32 %n\n"
PM_VERBOSE = (
    b"      Running pass: LoopRotatePass on loop %loop in function sum\n"
    b"        Running analysis: LoopAccessAnalysis on sum\n  Invalidating analysis: LoopAnalysis on sum\n"
)
# A legacy region pass's printout (Polly's): the region's blocks alone, the last line an
# indented instruction.
REGION = (
    b"for.body:                                         ; preds = %entry\n  br label %for.inc\n\n"
    b"for.inc:                                          ; preds = %for.body\n  br label %exit\n"
)
PASS_NUMBERS = (
    b" Running pass 3 InstSimplifyPass on sum\n Running pass 4 VerifierPass on [module]\n"
)
# `-debug-only=loop-vectorize`: the vectorizer's lines and its VPlan, whose labels and
# column-0 `}` read as LLVM IR, printed after the dump of the pass before it.
LOOP_FN = (
    b"define i32 @sum(i32 %n) {\nentry:\n  br label %loop\n\nloop:\n"
    b"  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]\n  %i.next = add i32 %i, 1\n"
    b"  %c = icmp eq i32 %i.next, %n\n  br i1 %c, label %exit, label %loop\n\nexit:\n  ret i32 %n\n}\n"
)
VPLAN = (
    b"LV: Checking a loop in 'sum' from k.ll\nLV: Found a loop: loop\n"
    b"VPlan 'Initial VPlan for VF={4},UF>=1' {\nLive-in vp<%0> = VF * UF\n\nvector.ph:\n"
    b"Successor(s): vector loop\n\n<x1> vector loop: {\n  vector.body:\n"
    b"    EMIT vp<%1> = CANONICAL-INDUCTION ir<0>, vp<%index.next>\n  No successors\n}\n"
    b"Successor(s): middle.block\n\nmiddle.block:\nNo successors\n}\nLV: Selecting VF: 1.\n"
)
# What a script prints between compiles (`print(json.dumps(config, indent=2))`), and a
# graph a pass writes to stderr (`-view-op-graph`, `-dot-cfg` to stderr): a column-0
# `{` or `digraph` line opens it, a column-0 `}` closes it, as IR closes.
JSON = b'{\n  "num_warps": 4,\n  "num_stages": 3\n}\n'
GRAPH = b'digraph G {\n  compound = true;\n  subgraph cluster_1 {\n    v2 [label = "func.func"];\n  }\n}\n'
# The same of any size: their opening line more than 256 bytes before their last (a
# config's many keys; `opt -dot-cfg`'s graph, its edges after its nodes).
JSON_LONG = (
    b"{\n"
    + b"".join(b'  "option_%02d": %d,\n' % (k, k) for k in range(20))
    + b'  "num_stages": 3\n}\n'
)
GRAPH_LONG = (
    b"digraph \"CFG for 'sum' function\" {\n\tlabel=\"CFG for 'sum' function\";\n\n"
    + b"".join(b'\tNode0x%04x [shape=record,color="#b70d28ff",label="{%%%d}"];\n' % (k, k) for k in range(3))
    + b"".join(b"\tNode0x%04x -> Node0x%04x;\n" % (k, k + 1) for k in range(12))
    + b"}\n"
)  # fmt: skip
MLIR_FN = b"func.func @f() {\n  return\n}\n"
# `llc -print-after=codegenprepare -o - 2>&1`: the assembly written to stdout at exit lands
# after the last Dump, an IR one: its lines tab-indented, its labels commented with `#`.
LLVM_FN = b"define i32 @sum(i32 %n) {\nentry:\n  ret i32 %n\n}\n"
ASM = (
    b'\t.text\n\t.file\t"k.ll"\n\t.globl\tsum                             # -- Begin function sum\n'
    b"\t.type\tsum,@function\nsum:                                    # @sum\n\t.cfi_startproc\n"
    b"# %bb.0:                                # %entry\n\tmovl\t%edi, %eax\n\tretq\n.Lfunc_end0:\n"
    b"\t.size\tsum, .Lfunc_end0-sum\n\t.cfi_endproc\n                                        # -- End function\n"
    b'\t.section\t".note.GNU-stack","",@progbits\n'
)
MLIR_FN_DUMP = (
    b"// -----// IR Dump After CSE (cse) ('func.func' operation: @f) //----- //\n" + MLIR_FN + b"\n"
)
# A program whose strings hold a printer's banners (LLVM's own, compiled with its dumps on):
# the IR holds them inside a string constant, after other text on the line.
LLVM_STRINGS = (
    b"; ModuleID = 'm'\n@.str = private constant [26 x i8] c\"*** IR Dump After foo ***\\00\", align 1\n"
    b'@.str.1 = private constant [59 x i8] c"*** IR Dump After {0} on {1} omitted because no change ***\\0A\\00"\n'
    b'@.str.2 = private constant [40 x i8] c"// -----// IR Dump After CSE (cse) //----- //\\00"\n'
    b"define i32 @sum(i32 %n) {\n  ret i32 %n\n}\n"
)
MLIR_STRINGS = (
    b"module {\n"
    b'  llvm.mlir.global internal constant @s("*** IR Dump After foo ***\\00") : !llvm.array<26 x i8>\n'
    b'  llvm.mlir.global internal constant @t("// -----// IR Dump After CSE (cse) //----- //") : !llvm.array<45 x i8>\n'
    b"}\n"
)


def _levels(text: bytes, *levels: str) -> list[tuple[str, str]]:
    """The non-blank lines of `text` as Messages of these levels."""
    lines = [ln.decode() for ln in text.splitlines() if ln.strip()]
    return list(zip(levels, lines, strict=True))


# (name, language of the ordinary dumps, the form, the middle Dumps as
#  (pass_name, arg, phase, scope, holds, options, text), the middle's Messages as (level, text))
FORMS = [
    ("llvm print-changed=diff", "llvm", b"*** IR Dump After InstSimplifyPass on caller ***\n" + DIFF + b"\n",
     [("InstSimplifyPass", "InstSimplifyPass", "after", "function @caller", "diff of function @caller", "diff", DIFF)], []),
    ("llvm print-changed=cdiff", "llvm", b"*** IR Dump After InstSimplifyPass on caller ***\n" + CDIFF + b"\n",
     [("InstSimplifyPass", "InstSimplifyPass", "after", "function @caller", "diff of function @caller", "diff", CDIFF)], []),
    ("llvm diff of an SCC", "llvm", b"*** IR Dump After InlinerPass on (caller) ***\n" + SCC_DIFF + b"\n",
     [("InlinerPass", "InlinerPass", "after", "cgscc (caller)", "diff of cgscc (caller)", "diff", SCC_DIFF)], []),
    ("llc print-changed=diff", "llvm", b"*** IR Dump After Legalizer (legalizer) on foo ***\n" + MACHINE_DIFF,
     [("Legalizer", "legalizer", "after", "function @foo", "diff of function @foo", "diff", MACHINE_DIFF)], []),
    ("diff then pass-manager messages", "llvm",
     b"*** IR Dump After InstSimplifyPass on caller ***\n" + DIFF + b"Running pass: VerifierPass on [module]\n",
     [("InstSimplifyPass", "InstSimplifyPass", "after", "function @caller", "diff of function @caller", "diff", DIFF)],
     [("text", "Running pass: VerifierPass on [module]")]),
    ("legacy CGSCC printer, IR on the header line", "llvm",
     b"*** IR Dump After Function Integration/Inlining (inline) ***define i32 @sum(i32 %n) {\n  ret i32 %n\n}\n",
     [("Function Integration/Inlining", "inline", "after", "function @sum", "function @sum", "",
       b"define i32 @sum(i32 %n) {\n  ret i32 %n\n}\n")], []),
    ("legacy CGSCC printer, no function", "llvm",
     b"*** IR Dump After Function Integration/Inlining (inline) ***\nPrinting <null> Function\n",
     [("Function Integration/Inlining", "inline", "after", "no IR", "no IR", "", b"")],
     [("text", "Printing <null> Function")]),
    ("loop pass printing its function (-print-loop-func-scope)", "llvm",
     b"; *** IR Dump After LICMPass on loop %loop in function sum ***\n"
     b"define i32 @sum(i32 %n) {\nentry:\n  br label %loop\n\nloop:\n  br label %loop\n}\n",
     [("LICMPass", "LICMPass", "after", "loop %loop in function @sum", "function @sum", "",
       b"define i32 @sum(i32 %n) {\nentry:\n  br label %loop\n\nloop:\n  br label %loop\n}\n")], []),
    ("mlir generic op, symbol late on a long line", "mlir",
     b"// -----// IR Dump After CSE (cse) //----- //\n" + SYM_LATE + b"\n\n",
     [("CSE", "cse", "after", "func.func @vadd", "func.func @vadd", "", SYM_LATE)], []),
    ("mlir generic op, symbol after its regions (LLVM 17 and older)", "mlir",
     b"// -----// IR Dump After TestFailurePass Failed (test-pass-failure) //----- //\n" + SYM_AFTER + b"\n\n",
     [("TestFailurePass", "test-pass-failure", "failed", "func.func @vadd", "func.func @vadd", "", SYM_AFTER)], []),
    ("mlir json timing report", "mlir", JSON_TIMING, [],
     [("text", line.decode()) for line in JSON_TIMING.splitlines() if line.strip()]),
    ("mlir remark with source line and caret", "mlir", REMARK, [],
     _levels(REMARK, "note", "text", "text", "note")),
    ("mlir verifier error with caret", "mlir", VERIFY_ERROR, [],
     _levels(VERIFY_ERROR, "error", "text", "text", "note")),
    ("python warning with its source line", "mlir", PY_WARNING, [],
     [("warning", PY_WARNING.splitlines()[0].decode()), ("text", "  warn_once(FP_FUSION_DEFAULT_WARNING)")]),
    ("mlir dialect-conversion debug log", "mlir", LEGALIZE, [],
     [("text", line.decode()) for line in LEGALIZE.splitlines()]),
    ("mlir greedy-rewriter debug log", "mlir", GREEDY, [],
     [("text", line.decode()) for line in GREEDY.splitlines() if line.strip()]),
    ("mlir greedy-rewriter debug log, tagged (LLVM 20 on)", "mlir", TAGGED, [],
     [("text", line.decode()) for line in TAGGED.splitlines()]),
    ("loop printout then -debug-pass-manager=verbose lines", "llvm",
     b"; *** IR Dump After LICMPass on loop %loop in function sum ***\n" + LOOP_BODY + PM_VERBOSE,
     [("LICMPass", "LICMPass", "after", "loop %loop in function @sum", "loop %loop in function @sum", "", LOOP_BODY)],
     [("text", line.decode()) for line in PM_VERBOSE.splitlines()]),
    ("legacy region pass printout (Polly)", "llvm",
     b"*** IR Dump After Polly - Simplify (polly-simplify) ***\n" + REGION,
     [("Polly - Simplify", "polly-simplify", "after", "blocks from %for.body", "blocks from %for.body", "", REGION)], []),
    ("llvm -print-pass-numbers, indented", "llvm", PASS_NUMBERS, [],
     [("text", line.decode()) for line in PASS_NUMBERS.splitlines()]),
    ("llvm -debug-only=loop-vectorize with a VPlan", "llvm",
     b"; *** IR Dump After LCSSAPass on sum ***\n" + LOOP_FN + VPLAN,
     [("LCSSAPass", "LCSSAPass", "after", "function @sum", "function @sum", "", LOOP_FN)],
     [("text", line.decode()) for line in VPLAN.splitlines() if line.strip()]),
    ("json object printed after llvm ir", "llvm", JSON, [],
     [("text", line.decode()) for line in JSON.splitlines()]),
    ("graph printed after llvm ir", "llvm", GRAPH, [],
     [("text", line.decode()) for line in GRAPH.splitlines()]),
    ("json object printed after mlir ir", "mlir", JSON, [],
     [("text", line.decode()) for line in JSON.splitlines()]),
    ("json object printed after an mlir function's ir", "mlir",
     b"// -----// IR Dump After CSE (cse) ('func.func' operation: @f) //----- //\n" + MLIR_FN + b"\n" + JSON + b"\n",
     [("CSE", "cse", "after", "func.func @f", "func.func @f", "", MLIR_FN)],
     [("text", line.decode()) for line in JSON.splitlines()]),
    ("long json object printed after llvm ir", "llvm", JSON_LONG, [],
     [("text", line.decode()) for line in JSON_LONG.splitlines()]),
    ("long graph printed after llvm ir", "llvm", GRAPH_LONG, [],
     [("text", line.decode()) for line in GRAPH_LONG.splitlines() if line]),
    ("long json object printed after an mlir function's ir", "mlir", MLIR_FN_DUMP + JSON_LONG + b"\n",
     [("CSE", "cse", "after", "func.func @f", "func.func @f", "", MLIR_FN)],
     [("text", line.decode()) for line in JSON_LONG.splitlines()]),
    ("long graph printed after an mlir function's ir", "mlir", MLIR_FN_DUMP + GRAPH_LONG + b"\n",
     [("CSE", "cse", "after", "func.func @f", "func.func @f", "", MLIR_FN)],
     [("text", line.decode()) for line in GRAPH_LONG.splitlines() if line]),
    ("assembly printed after llvm ir (llc -o -)", "llvm",
     b"*** IR Dump After CodeGen Prepare (codegenprepare) ***\n" + LLVM_FN + ASM,
     [("CodeGen Prepare", "codegenprepare", "after", "function @sum", "function @sum", "", LLVM_FN)],
     [("text", line.decode()) for line in ASM.splitlines()]),
    ("bishengir note", "mlir",
     b"[NOTE] Ub overflow detected; automatically set enable-code-motion to false and retrying compilation.\n", [],
     [("note", "[NOTE] Ub overflow detected; automatically set enable-code-motion to false and retrying compilation.")]),
]  # fmt: skip


def _read(data: bytes) -> Timeline:
    idx = index_log(data, stage="s", log_id=0)
    assert b"".join(data[s.start : s.end] for s in idx.segments) == data  # lossless
    return Timeline([(LogInfo("tiny.log", "s", len(data), idx.segments), data)], idx.dumps,
                    idx.messages, idx.warnings)  # fmt: skip


@pytest.mark.parametrize(
    ("name", "lang", "form", "dumps", "messages"), FORMS, ids=[f[0] for f in FORMS]
)
def test_each_body_form_between_two_ordinary_dumps(
    name: str, lang: str, form: bytes, dumps: list[tuple], messages: list[tuple[str, str]]
) -> None:
    a, b = (MLIR_A, MLIR_B) if lang == "mlir" else (LLVM_A, LLVM_B)
    tl = _read(a + form + b)
    first, *middle, last = tl.dumps
    assert tl.raw(first) == tl.raw(last) == a[a.index(b"\n") + 1 :].rstrip(b"\n") + b"\n"
    got = [(d.pass_name, d.arg, d.phase, d.scope, d.holds, d.options, tl.raw(d)) for d in middle]
    assert got == dumps
    assert not any(d.truncated for d in tl.dumps)
    assert [(m.level, m.text) for m in tl.messages] == messages
    # what the middle holds is no state of the module: the last dump follows the first
    assert tl.previous(last) is first
    assert tl.change_states()[last.index] == "unchanged"


def test_diff_dumps_are_changes_and_a_dump_without_ir_says_unknown() -> None:
    log = LLVM_A + FORMS[0][2] + FORMS[0][2] + FORMS[6][2] + LLVM_B
    tl = _read(log)
    assert tl.change_states() == ["changed", "changed", "changed", "unknown", "unchanged"]


@pytest.mark.parametrize(
    ("name", "lang", "form", "dumps", "messages"), FORMS, ids=[f[0] for f in FORMS]
)
def test_each_form_written_with_windows_line_ends(
    name: str, lang: str, form: bytes, dumps: list[tuple], messages: list[tuple[str, str]]
) -> None:
    a, b = (MLIR_A, MLIR_B) if lang == "mlir" else (LLVM_A, LLVM_B)
    tl = _read((a + form + b).replace(b"\n", b"\r\n"))
    first, *middle, last = tl.dumps
    assert tl.raw(first) == a[a.index(b"\n") + 1 :].rstrip(b"\n").replace(b"\n", b"\r\n") + b"\r\n"
    got = [(d.pass_name, d.arg, d.phase, d.scope, d.holds, d.options, tl.raw(d)) for d in middle]
    assert got == [(*d[:6], d[6].replace(b"\n", b"\r\n")) for d in dumps]
    assert not any(d.truncated for d in tl.dumps)
    assert [(m.level, m.text) for m in tl.messages] == messages


def test_generic_functions_named_after_their_regions_are_told_apart() -> None:
    """`--mlir-print-op-generic` of LLVM 17 and older, a function pass on two functions: each
    function's dumps follow its own (the symbol is on the op's last line, the first lines
    alike), so the second function unchanged by a pass reads so."""

    def dump(name: bytes, arg: bytes, sym: bytes, body: bytes = b"") -> bytes:
        return (
            b"// -----// IR Dump After " + name + b" (" + arg + b") //----- //\n"
            + b'"func.func"() ({\n' + body + b'  "func.return"() : () -> ()\n'
            + b'}) {function_type = () -> (), sym_name = "' + sym + b'"} : () -> ()\n\n\n'
        )  # fmt: skip

    const = b'  %0 = "arith.constant"() {value = 0 : i32} : () -> i32\n'
    tl = _read(
        dump(b"CSE", b"cse", b"f", const) + dump(b"CSE", b"cse", b"g")
        + dump(b"Canonicalizer", b"canonicalize", b"f") + dump(b"Canonicalizer", b"canonicalize", b"g")
    )  # fmt: skip
    assert [d.scope for d in tl.dumps] == ["func.func @f", "func.func @g"] * 2
    assert tl.change_states() == ["changed", "changed", "changed", "unchanged"]


MODULE = b"; ModuleID = 'k.ll'\nsource_filename = \"k.ll\"\n\ndefine i32 @sum(i32 %n) {\n  ret i32 %n\n}\n"
FUNCTION_DUMP = (
    b"; *** IR Dump After InstCombinePass on sum ***\ndefine i32 @sum(i32 %n) {\n  ret i32 %n\n}\n"
)


@pytest.mark.parametrize("end", [b"\n", b"\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize(
    "last", [LLVM_B, FUNCTION_DUMP], ids=["after a module dump", "after a function dump"]
)
def test_the_module_printed_after_the_last_llvm_dump_is_no_ir_of_it(
    last: bytes, end: bytes
) -> None:
    """`opt -S -print-after-all k.ll 2>&1 > log` (`clang -S -emit-llvm -o -`): the module
    printed to stdout (flushed at exit, after the last Dump) opens with its `; ModuleID`
    line, which no Dump's IR holds after its first line: messages."""
    tl = _read((LLVM_A + last + MODULE).replace(b"\n", end))
    body = last.partition(b"\n")[2]
    assert tl.raw(tl.dumps[1]) == body.replace(b"\n", end)
    assert [m.text for m in tl.messages] == [ln for ln in MODULE.decode().splitlines() if ln]
    assert not tl.dumps[1].truncated and not tl.warnings


def test_the_module_printmodulepass_prints_before_its_own_dump_is_no_ir_of_the_one_before() -> None:
    """`opt -print-after-all -S k.ll > log 2>&1`: PrintModulePass writes the module to
    stdout, flushed before the instrumentation prints that pass's Dump, so the module sits
    between the last two Dumps: text after the one before, not more of its IR."""
    printed = b"*** IR Dump After PrintModulePass on [module] ***\n" + MODULE
    verifier = b"*** IR Dump After VerifierPass on [module] ***\n" + MODULE
    tl = _read(FUNCTION_DUMP.replace(b"; ***", b"***") + verifier + MODULE + printed)
    assert [d.arg for d in tl.dumps] == ["InstCombinePass", "VerifierPass", "PrintModulePass"]
    assert tl.raw(tl.dumps[1]) == tl.raw(tl.dumps[2]) == MODULE
    module_lines = [ln for ln in MODULE.decode().splitlines() if ln]
    assert [(m.after, m.text) for m in tl.messages] == [(1, ln) for ln in module_lines]
    assert tl.change_states()[2] == "unchanged"  # printing the module changes nothing


def test_the_module_printed_after_each_appended_llvm_compile_is_its_text() -> None:
    """`opt -S ... >> log 2>&1` run after run: each run's module after its last Dump."""
    passes = (b"SROAPass", b"EarlyCSEPass", b"InstCombinePass")
    run = b"".join(FUNCTION_DUMP.replace(b"InstCombinePass", p) for p in passes) + MODULE
    tl = _read(run + run)
    assert [d.arg for d in tl.dumps] == list(map(bytes.decode, passes)) * 2
    assert all(tl.raw(d) == FUNCTION_DUMP.partition(b"\n")[2] for d in tl.dumps)
    assert [m.after for m in tl.messages] == [2] * 5 + [5] * 5


@pytest.mark.parametrize(
    ("header", "ir", "lang", "args"),
    [
        (b"; *** IR Dump After GlobalOptPass on [module] ***\n", LLVM_STRINGS, "llvm",
         ["VerifierPass", "GlobalOptPass", "GlobalDCEPass"]),
        (b"// -----// IR Dump After SCCP (sccp) //----- //\n", MLIR_STRINGS + b"\n", "mlir",
         ["cse", "sccp", "canonicalize"]),
    ],
    ids=["llvm", "mlir"],
)  # fmt: skip
def test_a_banner_inside_a_string_constant_is_no_header(
    header: bytes, ir: bytes, lang: str, args: list[str]
) -> None:
    """A program whose strings hold a printer's banners (LLVM's own, compiled with its
    dumps on): the IR holds them in string constants, after other text on the line (an
    odd count of quotes before them), and no Dump starts there."""
    a, b = (MLIR_A, MLIR_B) if lang == "mlir" else (LLVM_A, LLVM_B)
    tl = _read(a + header + ir + b)
    assert [d.arg for d in tl.dumps] == args
    assert tl.raw(tl.dumps[1]) == ir.rstrip(b"\n") + b"\n"
    assert not tl.messages and not any(d.truncated for d in tl.dumps)


def test_llvm_funcs_with_linkage_are_told_apart() -> None:
    """`llvm.func` prints its linkage, visibility and calling convention before its symbol
    (`llvm.func internal fastcc @f`): a pass anchored on `llvm.func` prints each function
    on its own, and each one's dumps follow its own."""

    def dump(name: bytes, arg: bytes, head: bytes, body: bytes = b"") -> bytes:
        return (
            b"// -----// IR Dump After " + name + b" (" + arg + b") //----- //\n"
            + head + b" {\n" + body + b"  llvm.return\n}\n\n"
        )  # fmt: skip

    f, g = b"llvm.func internal fastcc @f()", b"llvm.func linkonce_odr hidden @g()"
    const = b"  %0 = llvm.mlir.constant(0 : i32) : i32\n"
    tl = _read(
        dump(b"CSE", b"cse", f, const) + dump(b"CSE", b"cse", g)
        + dump(b"Canonicalizer", b"canonicalize", f) + dump(b"Canonicalizer", b"canonicalize", g)
    )  # fmt: skip
    assert [d.scope for d in tl.dumps] == ["llvm.func @f", "llvm.func @g"] * 2
    assert tl.change_states() == ["changed", "changed", "changed", "unchanged"]
