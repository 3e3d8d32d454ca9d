"""Logs generated from every body form the printers write (MLIR modules and long generic ops,
LLVM modules, loop printouts, `-print-changed=diff` bodies, the legacy CGSCC printer's IR on
its header line) with every kind of output tools interleave between dumps (diagnostics that
echo their source line, Python warnings, timing reports in text and JSON, pass-manager
tracing): each Dump's text reads back as exactly the body written, every other line as a
Message, in order."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_ir_lab.dumps import index_log

SYM = st.from_regex(r"\A[a-z_][a-z0-9_]{0,10}\Z")
PASS = st.from_regex(r"\A[A-Z][A-Za-z0-9]{0,12}\Z")
ARG = st.from_regex(r"\A[a-z][a-z0-9-]{0,12}\Z")
IR_LINE = st.from_regex(r"\A%[a-z0-9.]{1,6} = (add|mul|icmp slt) i32 %[a-z]{1,4}, [0-9]{1,3}\Z")


@st.composite
def mlir_dump(draw: st.DrawFn) -> tuple[bytes, bytes, str]:
    """(header, body, scope): a module, a function, or a generic op whose symbol comes late
    on a long first line (`--mlir-print-op-generic`)."""
    name, arg, sym = draw(PASS), draw(ARG), draw(SYM)
    header = f"// -----// IR Dump After {name} ({arg}) //----- //\n".encode()
    kind = draw(st.sampled_from(["module", "func", "generic"]))
    if kind == "module":
        aliases = draw(st.sampled_from(["", '#loc1 = loc("k.py":3:4)\n']))
        body, scope = (
            f"module {{\n  func.func @{sym}() {{\n    return\n  }}\n}}\n{aliases}",
            "builtin.module",
        )
    elif kind == "func":
        body, scope = f"func.func @{sym}() {{\n  return\n}}\n", f"func.func @{sym}"
    else:
        attrs = ", ".join(
            ["{hacc.arg_type = #hacc.arg_type<workspace>}"] * draw(st.integers(0, 40))
        )
        body = (f'"func.func"() <{{arg_attrs = [{attrs}], function_type = () -> (), sym_name = "{sym}"}}> ({{\n'
                '  "func.return"() : () -> ()\n}) : () -> ()\n')  # fmt: skip
        scope = f"func.func @{sym}"
    return header, body.encode(), scope


@st.composite
def llvm_dump(draw: st.DrawFn) -> tuple[bytes, bytes, str]:
    """(header, body, scope): a module, a loop printout, a diff, or the legacy CGSCC form."""
    name, fn = draw(PASS), draw(SYM)
    lines = draw(st.lists(IR_LINE, min_size=1, max_size=4))
    kind = draw(st.sampled_from(["module", "loop", "diff", "cdiff", "cgscc"]))
    code = "".join(f"  {ln}\n" for ln in lines)
    if kind == "module":
        header = f"; *** IR Dump After {name}Pass on [module] ***\n"
        body, scope = (
            f"; ModuleID = 'm'\ndefine i32 @{fn}(i32 %n) {{\n{code}  ret i32 %n\n}}\n",
            "module",
        )
    elif kind == "loop":
        header = f"; *** IR Dump After {name}Pass on loop %loop in function {fn} ***\n"
        body = f"\n; Preheader:\nentry:\n  br label %loop\n\n; Loop:\nloop:\n{code}\n; Exit blocks\nexit:\n  ret i32 %n\n"
        scope = f"loop %loop in function @{fn}"
    elif kind in ("diff", "cdiff"):
        header = f"*** IR Dump After {name}Pass on {fn} ***\n"
        signs = draw(
            st.lists(st.sampled_from([" ", "-", "+"]), min_size=len(lines), max_size=len(lines))
        )
        colour = {"-": ("\x1b[31m", "\x1b[0m"), "+": ("\x1b[32m", "\x1b[0m"), " ": ("", "")}
        body = " \n" + "".join(
            (colour[s][0] if kind == "cdiff" else "") + f"{s}  {ln}" + (colour[s][1] if kind == "cdiff" else "") + "\n"
            for s, ln in zip(signs, lines, strict=True)
        )  # fmt: skip
        scope = f"function @{fn}"
    else:  # the IR starts on the header line
        header = f"*** IR Dump After {name} Pass ({draw(ARG)}) ***"
        body, scope = f"define i32 @{fn}(i32 %n) {{\n{code}  ret i32 %n\n}}\n", f"function @{fn}"
    return header.encode(), body.encode(), scope


MESSAGES = st.sampled_from([
    [],
    ["/home/u/k.py:13:9: remark: Warning: vectorization fails", "",
     "    x = tl.load(in_ptr + cols, mask=mask)", "        ^"],
    ["k.mlir:3:5: error: 'arith.addi' op requires the same type", "    %0 = arith.addi %a, %b : i32", "    ^"],
    ["/venv/triton/compiler.py:351: UserWarning: fp_fusion default changed", "  warn_once(WARNING)"],
    ["[", '{"wall": {"duration":   0.0014, "percentage":   1.3}, "name": "Parser", "passes": [',
     "{}]},", '  {"wall": {"duration":   0.0005, "percentage":   0.5}, "name": "CSE"},', "]"],
    ["===" + "-" * 73 + "===", "                         ... Execution time report ...",
     "===" + "-" * 73 + "===", "  Total Execution Time: 0.0272 seconds", "",
     "    0.0157 ( 57.7%)  InlinerPass", "    0.0272 (100.0%)  Total"],
    ["Running pass: VerifierPass on [module]", "Running analysis: DominatorTreeAnalysis on f"],
    ["[NOTE] Ub overflow detected; retrying compilation.", "[ERROR] Failed to run BiShengIR pipeline"],
])  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.one_of(mlir_dump(), llvm_dump()), MESSAGES), min_size=1, max_size=6))
def test_generated_bodies_and_interleaved_output_read_back(
    items: list[tuple[tuple[bytes, bytes, str], list[str]]],
) -> None:
    parts: list[bytes] = []
    for (header, body, _), lines in items:
        parts += [header, body, b"\n"]  # the printers end a Dump with a blank line
        parts += [line.encode() + b"\n" for line in lines]
    data = b"".join(parts)
    idx = index_log(data, stage="s", log_id=0)
    assert b"".join(data[s.start : s.end] for s in idx.segments) == data
    assert [data[d.body_start : d.body_end] for d in idx.dumps] == [b for (_, b, _), _ in items]
    assert [d.scope for d in idx.dumps] == [s for (_, _, s), _ in items]
    assert not any(d.truncated for d in idx.dumps)
    assert [m.text for m in idx.messages] == [
        ln for _, lines in items for ln in lines if ln.strip()
    ]
    assert [m.after for m in idx.messages] == [
        k for k, (_, ls) in enumerate(items) for ln in ls if ln.strip()
    ]
