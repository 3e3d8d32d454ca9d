"""Headers of every family, printed the way MLIR's and LLVM's printers print them, with random
names, arguments, options and scopes: each reads back, alone and inside a log."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_ir_lab.dumps import index_log, parse_header

IDENT = st.from_regex(r"\A[A-Z][A-Za-z0-9_]{0,15}\Z")
NAME = st.one_of(
    IDENT,
    st.builds(lambda n: f"(anonymous namespace)::{n}", IDENT),
    st.builds(lambda ns, n: f"{ns}::{n}", st.sampled_from(["mlir", "mlir::triton", "hivm"]), IDENT),
)
ARG = st.from_regex(r"\A[a-z][a-z0-9-]{0,20}\Z")
OPTION = st.builds(
    lambda k, v: f"{k}={v}",
    st.from_regex(r"\A[a-z][a-z-]{0,10}\Z"),
    st.one_of(st.from_regex(r"\A[0-9a-z]{1,6}\Z"), st.just("{a b}"), st.just("true")),
)
OPTIONS = st.lists(OPTION, max_size=3).map(" ".join)
OP = st.sampled_from(["builtin.module", "func.func", "tt.func", "gpu.module", "llvm.func"])
SYM = st.from_regex(r"\A[a-z_][A-Za-z0-9_$.]{0,15}\Z")
FN = st.from_regex(r"\A[a-z_][A-Za-z0-9_.]{0,15}\Z")
PHASE = st.sampled_from(["Before", "After"])


@st.composite
def mlir_new(draw: st.DrawFn) -> tuple[str, tuple[str, ...]]:
    """`// -----// IR Dump After Name: arg{opts} ('op' operation: @sym) //----- //`."""
    name, phase, opts = draw(NAME), draw(PHASE), draw(OPTIONS)
    arg = draw(st.one_of(ARG, st.just("")))
    failed = draw(st.booleans()) and phase == "After"
    textual = arg or f"unknown<{name}>"
    if opts:
        textual += "{" + opts + "}"
    op, sym = draw(st.one_of(st.none(), OP)), draw(st.one_of(st.none(), SYM))
    scope = suffix = ""
    if op:
        suffix = f" ('{op}' operation" + (f": @{sym}" if sym else "") + ")"
        scope = f"{op} @{sym}" if sym else op
    line = f"// -----// IR Dump {phase} {name}{' Failed' if failed else ''}: {textual}{suffix} //----- //"
    return line, ("mlir", "failed" if failed else phase.lower(), name, arg, opts, scope)


@st.composite
def mlir_old(draw: st.DrawFn) -> tuple[str, tuple[str, ...]]:
    """`// -----// IR Dump After Name (arg) ('op' operation: @sym) //----- //` (2020-2023)."""
    name, phase, arg = draw(NAME), draw(PHASE), draw(st.one_of(ARG, st.just("")))
    op, sym = draw(st.one_of(st.none(), OP)), draw(SYM)
    suffix = f" ('{op}' operation: @{sym})" if op else ""
    line = f"// -----// IR Dump {phase} {name} ({arg}){suffix} //----- //"
    return line, ("mlir", phase.lower(), name, arg, "", f"{op} @{sym}" if op else "")


UNITS = st.one_of(
    st.just(("[module]", "module")),
    FN.map(lambda f: (f, f"function @{f}")),
    st.lists(FN, min_size=1, max_size=3).map(
        lambda fs: (f"({', '.join(fs)})", f"cgscc ({', '.join(fs)})")
    ),
    st.tuples(FN, FN).map(
        lambda lf: (f"loop %{lf[0]} in function {lf[1]}", f"loop %{lf[0]} in function @{lf[1]}")
    ),
)
PASS_ID = st.one_of(
    IDENT.map(lambda n: n + "Pass"),
    st.builds(lambda a, b: f"{a}<llvm::{b}, llvm::Module>", IDENT, IDENT),
)


@st.composite
def llvm_new(draw: st.DrawFn) -> tuple[str, tuple[str, ...]]:
    """`; *** IR Dump After [N-]PassID on unit [(invalidated)] ***`, with or without `; `."""
    pid, phase, (unit, scope) = draw(PASS_ID), draw(PHASE), draw(UNITS)
    number = draw(st.one_of(st.just(""), st.integers(1, 999).map(lambda n: f"{n}-")))
    invalid = draw(st.booleans()) and phase == "After"
    semi = draw(st.booleans())
    line = (
        f"{'; ' if semi else ''}*** IR Dump {phase} {number}{pid} on {unit}"
        f"{' (invalidated)' if invalid else ''} ***"
    )
    family = "llvm" if semi else "llvm-legacy"
    return line, (family, phase.lower(), pid, pid, "invalidated" if invalid else "", scope)


@st.composite
def llvm_legacy(draw: st.DrawFn) -> tuple[str, tuple[str, ...]]:
    """`*** IR Dump After Long Name (arg) *** (function: f)` (legacy pass manager)."""
    word = st.one_of(
        st.from_regex(r"\A[A-Za-z][a-z]{0,8}\Z").filter(lambda w: w != "on"),
        st.sampled_from(["at", "in", "(x)"]),
    )
    # No " on ": "Name on (x) (arg)" would also read as a pass of the new pass manager.
    words = draw(st.lists(word, min_size=1, max_size=4))
    name, phase, arg = " ".join(words), draw(PHASE), draw(ARG)
    fn = draw(st.one_of(st.none(), FN))
    prefix = draw(st.sampled_from(["", "# "]))
    line = f"{prefix}*** IR Dump {phase} {name} ({arg}) ***" + (f" (function: {fn})" if fn else "")
    return line, ("llvm-legacy", phase.lower(), name, arg, "", f"function @{fn}" if fn else "")


@st.composite
def banner(draw: st.DrawFn) -> tuple[str, tuple[str, ...]]:
    """LLVM -print-changed lines that name a pass and print no IR."""
    pid, (unit, scope) = draw(PASS_ID), draw(UNITS)
    kind = draw(st.sampled_from(["unchanged", "filtered", "ignored", "deleted"]))
    line = {
        "unchanged": f"*** IR Dump After {pid} on {unit} omitted because no change ***",
        "filtered": f"*** IR Dump After {pid} on {unit} filtered out ***",
        "ignored": f"*** IR Pass {pid} on {unit} ignored ***",
        "deleted": f"*** IR Deleted After {pid} on {unit} ***",
    }[kind]
    return line, ("llvm-legacy", "after", pid, pid, "", scope, kind)


# The units the first `-print-changed` (LLVM 12) names inside its banners, after the pass.
UNITS_IN_BANNER = st.one_of(
    st.just(("(module)", "module")),
    FN.map(lambda f: (f"(function: {f})", f"function @{f}")),
    st.lists(FN, min_size=1, max_size=3).map(
        lambda fs: (f"(scc: ({', '.join(fs)}))", f"cgscc ({', '.join(fs)})")
    ),
    FN.map(lambda f: (f"(loop: %{f})", f"loop %{f}")),
)


@st.composite
def banner_llvm12(draw: st.DrawFn) -> tuple[str, tuple[str, ...]]:
    """LLVM 12's `-print-changed` banners: `*** IR Dump After P (scc: (f, g)) omitted
    because no change ***`, `... (function: f) filtered out ***`, `*** IR Pass P (module)
    ignored ***`."""
    pid, (unit, scope) = draw(PASS_ID), draw(UNITS_IN_BANNER)
    kind = draw(st.sampled_from(["unchanged", "filtered", "ignored"]))
    line = {
        "unchanged": f"*** IR Dump After {pid} {unit} omitted because no change ***",
        "filtered": f"*** IR Dump After {pid} {unit} filtered out ***",
        "ignored": f"*** IR Pass {pid} {unit} ignored ***",
    }[kind]
    return line, ("llvm-legacy", "after", pid, pid, "", scope, kind)


@st.composite
def mlir_internal(draw: st.DrawFn) -> tuple[str, tuple[str, ...]]:
    """`// -----// Owner internal IR Dump After: What` (a pass's own intermediate dumps)."""
    owner, what, phase = draw(IDENT), draw(IDENT), draw(PHASE)
    colon = draw(st.sampled_from([":", ""]))
    line = f"// -----// {owner} internal IR Dump {phase}{colon} {what}"
    return line, ("mlir-internal", phase.lower(), f"{owner}: {what}", owner, "", "")


@st.composite
def at_start(draw: st.DrawFn) -> tuple[str, tuple[str, ...]]:
    """`*** IR Dump At Start ***` (`-print-changed`'s initial IR; older: `At Start: ***`)."""
    semi, colon = draw(st.booleans()), draw(st.sampled_from(["", ":"]))
    line = f"{'; ' if semi else ''}*** IR Dump At Start{colon} ***"
    return line, ("llvm" if semi else "llvm-legacy", "start", "At Start", "", "", "module")


@st.composite
def llvm_machine(draw: st.DrawFn) -> tuple[str, tuple[str, ...]]:
    """Machine passes: `# *** IR Dump After Long Name (arg) ***:` (-print-after-all) and
    `*** IR Dump After Long Name (arg) on f ***` (-print-changed)."""
    words = draw(st.lists(st.from_regex(r"\A[A-Z][a-z]{0,8}\Z"), min_size=1, max_size=4))
    name, arg, phase, fn = " ".join(words), draw(ARG), draw(PHASE), draw(st.one_of(st.none(), FN))
    if fn is None:
        return f"# *** IR Dump {phase} {name} ({arg}) ***:", (
            "llvm-legacy",
            phase.lower(),
            name,
            arg,
            "",
            "",
        )
    line = f"*** IR Dump {phase} {name} ({arg}) on {fn} ***"
    return line, ("llvm-legacy", phase.lower(), name, arg, "", f"function @{fn}")


@st.composite
def crash(draw: st.DrawFn) -> tuple[str, tuple[str, ...]]:
    """`-print-on-crash`: `*** Dump of [Module ]IR Before Last Pass P Started ***` (newest
    with `; `), and `... Filtered Out ***` for a pass the filters leave out (no IR)."""
    pid, semi, module = draw(PASS_ID), draw(st.booleans()), draw(st.booleans())
    filtered = draw(st.booleans())
    line = (
        f"{'; ' if semi else ''}*** Dump of {'Module ' if module else ''}IR Before Last Pass "
        f"{pid} {'Filtered Out' if filtered else 'Started'} ***"
    )
    want = (
        "llvm" if semi else "llvm-legacy",
        "before",
        pid,
        pid,
        "crash",
        "module" if module else "",
    )
    return line, (*want, "filtered") if filtered else want


# Assembly stages: a name that ends in `IR` names IR (`// -----// IR Dump //----- //` is the
# print-ir pass's header, `SPIR Dump` a stage of IR, its language its body's).
STAGE = st.one_of(
    st.sampled_from(["NVPTX", "AMDGCN"]),
    st.from_regex(r"\A[A-Z][A-Z0-9]{1,7}\Z").filter(lambda s: not s.endswith("IR")),
)


@st.composite
def stage_dump(draw: st.DrawFn) -> tuple[str, tuple[str, ...]]:
    """A stage's output a driver prints between the dumps: `// -----// NVPTX Dump //----- //`
    (assembly), `// -----// LLVM IR Dump //----- //` (an LLVM module), each also without
    its closing marks (`// -----// LLVM IR`, `// -----// MTGPU ASM`)."""
    what = draw(st.one_of(STAGE, st.just("LLVM IR")))
    line = draw(st.sampled_from([f"// -----// {what} Dump //----- //", f"// -----// {what}"]))
    if what == "LLVM IR":
        return line, ("llvm", "after", what, "", "", "")
    return line, ("asm", "after", what, "", "", f"{what.lower()} module")


@st.composite
def print_ir(draw: st.DrawFn) -> tuple[str, tuple[str, ...]]:
    """MLIR's `print-ir` pass: `// -----// IR Dump //----- //`, or with its label."""
    label = draw(st.one_of(st.just(""), st.from_regex(r"\A[a-z][a-z0-9_ ]{0,20}[a-z0-9]\Z")))
    line = f"// -----// IR Dump {label} //----- //" if label else "// -----// IR Dump //----- //"
    return line, ("mlir", "after", "PrintIRPass", "print-ir", f"label={label}" if label else "", "")


@st.composite
def pattern_dump(draw: st.DrawFn) -> tuple[str, tuple[str, ...]]:
    """MLIR's pattern drivers' debug log: `// *** IR Dump After Pattern Application ***`."""
    what = draw(st.sampled_from(["Pattern Application", "Successful Folding"]))
    return f"// *** IR Dump After {what} ***", ("mlir-internal", "after", what, "", "", "")


@st.composite
def mlir_2020(draw: st.DrawFn) -> tuple[str, tuple[str, ...]]:
    """MLIR's printer of 2020-2021: `// *** IR Dump After Name[ Failed] ***[ ('op' operation:
    @sym)]` (the oldest, without `// `, is read as LLVM's form, its language from its body)."""
    name, phase, op, sym = draw(NAME), draw(PHASE), draw(st.one_of(st.none(), OP)), draw(SYM)
    failed = draw(st.booleans()) and phase == "After"
    unit = f" ('{op}' operation: @{sym})" if op else ""
    line = f"// *** IR Dump {phase} {name}{' Failed' if failed else ''} ***{unit}"
    phase = "failed" if failed else phase.lower()
    return line, ("mlir", phase, name, "", "", f"{op} @{sym}" if op else "")


HEADERS = st.one_of(
    mlir_new(),
    mlir_old(),
    mlir_internal(),
    llvm_new(),
    llvm_legacy(),
    llvm_machine(),
    at_start(),
    banner(),
    banner_llvm12(),
    crash(),
    pattern_dump(),
    mlir_2020(),
    print_ir(),
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(HEADERS, stage_dump()))
def test_generated_headers_read_back(case: tuple[str, tuple[str, ...]]) -> None:
    line, expected = case
    h = parse_header(line)
    assert h is not None, line
    got = (h.family, h.phase, h.pass_name, h.arg, h.options, h.scope)
    if len(expected) == 7:
        got += (h.banner,)
    assert got == expected, line


BODY = {
    "mlir": "module {\n  func.func @f() {\n    return\n  }\n}\n\n",
    "llvm": "; ModuleID = 'm'\ndefine void @f() {\n  ret void\n}\n",
}


@settings(max_examples=80, deadline=None)
@given(st.lists(HEADERS, min_size=1, max_size=6))
def test_generated_headers_inside_a_log_read_back(cases: list[tuple[str, tuple[str, ...]]]) -> None:
    parts, expected = [], []
    for line, want in cases:
        lang = "mlir" if want[0].startswith("mlir") else "llvm"
        parts.append(line + "\n" + ("" if len(want) == 7 else BODY[lang]))
        if len(want) != 7:
            expected.append(want[1:4])
    data = "".join(parts).encode()
    idx = index_log(data, stage="s", log_id=0)
    assert b"".join(data[s.start : s.end] for s in idx.segments) == data
    assert [(d.phase, d.pass_name, d.arg) for d in idx.dumps] == expected
    assert not any(d.truncated for d in idx.dumps)
    assert sum(1 for m in idx.messages if m.banner) == sum(1 for _, w in cases if len(w) == 7)


@settings(max_examples=60, deadline=None)
@given(st.lists(HEADERS, min_size=1, max_size=4), st.lists(stage_dump(), min_size=1, max_size=3))
def test_a_stage_dump_after_each_compile_reads_back(
    passes: list[tuple[str, tuple[str, ...]]], stages: list[tuple[str, tuple[str, ...]]]
) -> None:
    """One pipeline compiling kernel after kernel, each compile its pass dumps then its
    stage's output (Triton's NVPTX_ENABLE_DUMP): every stage dump is found, its text
    exactly what was printed."""
    body = {
        **BODY,
        "asm": "//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 8.4\n{\n\tret;\n\n}\n",
    }
    parts, expected, texts = [], [], []
    for stage in stages:
        for line, want in [*passes, stage]:
            lang = "asm" if want[0] == "asm" else "mlir" if want[0].startswith("mlir") else "llvm"
            parts.append(line + "\n" + ("" if len(want) == 7 else body[lang]))
            if len(want) != 7:
                expected.append(want[1:4])
        texts.append(body["asm" if stage[1][0] == "asm" else "llvm"])
        parts.append("\n")  # `print(ptx)`: a newline after the text
    data = "".join(parts).encode()
    idx = index_log(data, stage="s", log_id=0)
    assert b"".join(data[s.start : s.end] for s in idx.segments) == data
    assert [(d.phase, d.pass_name, d.arg) for d in idx.dumps] == expected
    lines = {stage[0].encode() + b"\n" for stage in stages}
    found = [d for d in idx.dumps if data[d.start : d.body_start] in lines]
    assert [data[d.body_start : d.body_end].decode() for d in found] == texts
    assert not any(d.truncated for d in idx.dumps)


@settings(max_examples=60, deadline=None)
@given(st.lists(HEADERS, min_size=2, max_size=6), st.data())
def test_a_stage_dump_anywhere_between_two_dumps_reads_back(
    passes: list[tuple[str, tuple[str, ...]]], draw: st.DataObject
) -> None:
    """A stage's output between any two pass dumps, messages after it or not: found, its
    text exactly what was printed, the dumps around it whole."""
    k = draw.draw(st.integers(0, len(passes) - 1))
    stage = draw.draw(stage_dump())
    after = draw.draw(st.sampled_from(["", "compiled k in 0.3 s\n"]))
    asm = "//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 8.4\n{\n\tret;\n\n}\n"
    body = {**BODY, "asm": asm}
    parts, expected = [], []
    for n, (line, want) in enumerate(passes):
        lang = "mlir" if want[0].startswith("mlir") else "llvm"
        parts.append(line + "\n" + ("" if len(want) == 7 else BODY[lang]))
        if len(want) != 7:
            expected.append(want[1:4])
        if n == k:
            parts.append(stage[0] + "\n" + body[stage[1][0]] + "\n" + after)
            expected.append(stage[1][1:4])
    data = "".join(parts).encode()
    idx = index_log(data, stage="s", log_id=0)
    assert b"".join(data[s.start : s.end] for s in idx.segments) == data
    assert [(d.phase, d.pass_name, d.arg) for d in idx.dumps] == expected
    assert not any(d.truncated for d in idx.dumps)
    found = [d for d in idx.dumps if data[d.start : d.body_start].decode().rstrip() == stage[0]]
    assert [data[d.body_start : d.body_end].decode() for d in found] == [body[stage[1][0]]]
    assert [m.text for m in idx.messages if not m.banner] == after.splitlines()
