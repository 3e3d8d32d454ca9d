"""Recognise the header line of every pass-dump family MLIR and LLVM print.

`parse_header` turns a header line into a `Header`: a Dump's header, or a banner (a line
that names a pass but carries no IR, such as LLVM's `omitted because no change`). A line
that merely mentions "IR Dump" (a diagnostic, a comment in the IR) is neither.

Every pattern here is linear in the line's length: a header comes from untrusted input.
"""

from __future__ import annotations

import re

from ascend_ir_lab.record import Frozen

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from typing import Final

# Every Dump header contains this literal (banners: `IR Pass`, `IR Deleted After`).
MARKER = b"IR Dump"


class Header(Frozen):
    """What a header line says about the Dump that follows it (or, for a banner, about a pass)."""

    __slots__ = (
        "family", "phase", "pass_name", "arg", "options", "scope", "banner", "inline_body",
        "stage", "lone_cr",
    )  # fmt: skip

    def __init__(
        self, family: str, phase: str, pass_name: str, arg: str, options: str, scope: str,
        banner: str = "", inline_body: bool = False, stage: bool = False, lone_cr: bool = False,
    ) -> None:  # fmt: skip
        self.family: Final = family  # "mlir", "mlir-internal", "llvm", "llvm-legacy"
        # "before", "after", "failed", or "start" (the initial IR)
        self.phase: Final = phase
        self.pass_name: Final = pass_name
        self.arg: Final = arg
        self.options: Final = options
        self.scope: Final = scope  # "" when the header carries none: inferred from the body
        # Non-empty for a line without IR: "unchanged" (omitted because no change),
        # "filtered", "ignored", "invalidated" or "deleted".
        self.banner: Final = banner
        # The legacy pass managers' CGSCC printer writes the IR straight after the closing
        # stars, on the header line (`*** IR Dump After Inliner (inline) ***define i32 @f(...`):
        # the body starts there, not on the next line.
        self.inline_body: Final = inline_body
        # A stage's output a compiler's driver prints (`// -----// NVPTX Dump //----- //`),
        # not a pass's: an IR one's language is its body's.
        self.stage: Final = stage
        # The line ends in a carriage return alone, inside a line that a newline ends: the
        # log is to be read with such line ends as newlines.
        self.lone_cr: Final = lone_cr


_MLIR_PREFIX = "// -----// IR Dump "
_PRINT_IR = "// -----// IR Dump //----- //"
_MLIR_SUFFIX = " //----- //"
_MLIR_INTERNAL = re.compile(
    r"^// -----// (?P<owner>\S+) internal IR Dump (?P<phase>Before|After):? (?P<what>[^/]*)"
)
# The scope MLIR appends under module-scope printing: " ('func.func' operation: @f)".
_MLIR_SCOPE = re.compile(r" \('(?P<op>[\w.$-]+)' operation(?:\)$|: @)")
_PASS_NUMBER = re.compile(r"^\d+-(?=[A-Za-z_(])")
_BANNER_ENDS = (
    (" omitted because no change", "unchanged"),
    (" filtered out", "filtered"),
    (" ignored", "ignored"),
    (" invalidated", "invalidated"),
)
# A unit in parentheses after the banner's `***` or inside it (older LLVM and MLIR).
_UNIT_KINDS = ("function: ", "scc: ", "loop: ", "module: ", "cgscc: ")
_LOOP_AT_DEPTH = re.compile(r"^Loop at depth (?P<depth>\d+) containing: (?P<head>%[^<,\s]+)")


def parse_header(line: str) -> Header | None:
    """Parse one header line (without its newline); None if it is not a header."""
    if line.startswith("// -----// "):
        return _parse_mlir(line)
    if line.startswith("// *** IR Dump "):
        return _parse_pattern_dump(line)
    if line.startswith("; *** "):
        return _parse_stars(line[6:], "llvm")
    if line.startswith("*** "):
        return _parse_stars(line[4:], "llvm-legacy")
    if line.startswith("# *** "):
        return _parse_stars(line[6:], "llvm-legacy")
    if line.startswith("# After ") and line.endswith(":"):
        return _parse_machine_banner(line)
    return None


# The machine-code printer codegen adds at fixed points (`llc -print-after-isel`, the
# `-print-machineinstrs` of LLVM 12 and before): `# After Instruction Selection:`, then
# `# Machine code for function f: ...`.
_MACHINE_BANNER = re.compile(r"^# After (?P<what>[A-Za-z][\w ,/&()+-]{0,80}):$")


def _parse_machine_banner(line: str) -> Header | None:
    m = _MACHINE_BANNER.match(line)
    if m is None:
        return None
    return Header("llvm-legacy", "after", m["what"], "", "", "", stage=True)


# -- MLIR -------------------------------------------------------------------------------------
def _parse_mlir(line: str) -> Header | None:
    line = line.rstrip()
    if not line.startswith(_MLIR_PREFIX):
        m = _MLIR_INTERNAL.match(line)
        if m is None:
            return _parse_stage_dump(line)
        owner, what = m["owner"], m["what"].strip()
        return Header("mlir-internal", m["phase"].lower(), f"{owner}: {what}", owner, "", "")
    if not line.endswith(_MLIR_SUFFIX):
        return None
    if line == _PRINT_IR:  # the `print-ir` pass without a label: `// -----// IR Dump //----- //`
        return Header("mlir", "after", "PrintIRPass", "print-ir", "", "")
    rest = line[len(_MLIR_PREFIX) : -len(_MLIR_SUFFIX)]
    phase, _, rest = rest.partition(" ")
    if phase not in ("Before", "After") and "//" not in rest:
        # the `print-ir{label=L}` pass: `// -----// IR Dump L //----- //`, the IR where it runs
        label = f"{phase} {rest}".strip()
        return Header("mlir", "after", "PrintIRPass", "print-ir", f"label={label}", "")
    if phase not in ("Before", "After") or not rest:
        return None
    scope = ""
    m = _MLIR_SCOPE.search(rest)
    tail = rest[m.end() :] if m else ""
    if m is not None and (not tail or tail.endswith(")")):  # the suffix ends the line
        scope = m["op"] + (" @" + tail[:-1] if tail else "")
        rest = rest[: m.start()]
    name, arg, options = _mlir_pass(rest)
    failed = name.endswith(" Failed")
    if failed:
        name = name[: -len(" Failed")]
    return Header("mlir", "failed" if failed else phase.lower(), name, arg, options, scope)


# A stage's output printed by a compiler's driver between the pass dumps: Triton's
# `// -----// NVPTX Dump //----- //` (NVPTX_ENABLE_DUMP), `AMDGCN Dump` (AMDGCN_ENABLE_DUMP),
# the `LLVM IR Dump` of Triton's older and out-of-tree backends (LLVM_IR_ENABLE_DUMP, `MUSA
# LLVMIR Dump`), a frontend's `Dumped CudaTile IR //----- //`, and the forms without the
# closing marks (the MUSA backend's `// -----// LLVM IR`, `// -----// MTGPU ASM`).
_STAGE_DUMP = re.compile(
    r"^// -----// (?!IR Dump\b)(?:Dumped )?(?P<what>[A-Za-z][\w .,+-]{0,60}?)"
    r"(?: Dump)?(?: //----- //|:)?$"
)
_IR_STAGE = re.compile(r"IR\b", re.I)
_LLVM_STAGE = re.compile(r"LLVM|\bLLIR\b", re.I)


def _parse_stage_dump(line: str) -> Header | None:
    m = _STAGE_DUMP.match(line)
    if m is None:
        return None
    what = m["what"]
    if _IR_STAGE.search(what):  # IR: a module, its language and scope read from its body
        family = "llvm" if _LLVM_STAGE.search(what) else "mlir"
        return Header(family, "after", what, "", "", "", stage=True)
    return Header("asm", "after", what, "", "", f"{what.lower()} module", stage=True)


# The debug log of MLIR's pattern drivers (`-debug-only=greedy-rewriter`, dialect
# conversion): `// *** IR Dump After Pattern Application ***`, the op's isolated parent
# after one rewrite, inside a pass: a snapshot within the pass, as a pipeliner's own dumps.
# Any other name is a pass: MLIR's printer wrote each pass's dump so from 2020 to 2021
# (`// *** IR Dump After CSE ***`, then `// -----// IR Dump ...`), and under module-scope
# printing the op it ran on after the stars (`*** ('func' operation: @f)`).
_PATTERN_DUMP = re.compile(
    r"^// \*\*\* IR Dump (?P<phase>Before|After) (?P<what>[^*]+?) \*\*\*(?P<unit> \('.*\))?$"
)
_PATTERN_STEPS = ("Pattern Application", "Successful Folding")


def _parse_pattern_dump(line: str) -> Header | None:
    m = _PATTERN_DUMP.match(line.rstrip())
    if m is None:
        return None
    phase, what, unit = m["phase"].lower(), m["what"], m["unit"]
    if what in _PATTERN_STEPS and not unit:
        return Header("mlir-internal", phase, what, "", "", "")
    if what.endswith(" Failed"):
        what, phase = what[: -len(" Failed")], "failed"
    return Header("mlir", phase, what, "", "", _trailer_scope(unit.strip()) if unit else "")


def _mlir_pass(text: str) -> tuple[str, str, str]:
    """(name, argument, options) of "Name: arg{opts}", "Name: unknown<Name>", "Name (arg)";
    anything else is all name."""
    k = text.find(": ")
    if k > 0:
        name, textual = text[:k], text[k + 2 :]
        if textual.startswith("unknown<"):
            close = _matching_angle(textual, len("unknown"))
            arg, opts = "", textual[close + 1 :]
        else:
            brace = textual.find("{")
            arg, opts = (textual, "") if brace < 0 else (textual[:brace], textual[brace:])
        # an argument is one word; options are one braced group that ends the line
        if not any(c.isspace() for c in arg) and (not opts or opts.endswith("}")):
            return name, arg, _options(opts)
    if text.endswith(")"):
        k = text.rfind(" (")
        arg = text[k + 2 : -1] if k > 0 else ""
        if k > 0 and "(" not in arg:
            return text[:k], arg, ""
    return text, "", ""


def _matching_angle(text: str, start: int) -> int:
    """Index of the `>` closing the `<` at `start` (the end of text if none)."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
            if depth == 0:
                return i
    return len(text)


def _options(text: str) -> str:
    text = text.strip()
    if text.startswith("{") and text.endswith("}"):
        return text[1:-1].strip()
    return text


# -- LLVM (and the oldest MLIR, which printed the same `*** ... ***` banner) ------------------
def _parse_stars(core: str, family: str) -> Header | None:
    core = core.rstrip()
    if not core.startswith("IR Dump "):
        return _parse_other_stars(core, family)
    rest = core[len("IR Dump ") :]
    end = rest.find(" ***")
    if end < 0:
        end = rest.find("***")  # "At Start: ***" has no space before the stars
        if end < 0:
            return None
    body, after = rest[:end].strip(), rest[end:].lstrip(" ").removeprefix("***")
    trailer = after.lstrip(" *:").strip()
    inline = bool(trailer) and after.startswith(trailer) and not trailer.startswith("(")
    phase, _, body = body.partition(" ")
    if phase == "At" and body.startswith("Start"):
        return Header(family, "start", "At Start", "", "", "module")
    if phase not in ("Before", "After", "At") or not body:
        return None
    banner = ""
    for suffix, kind in _BANNER_ENDS:
        if body.endswith(suffix) and kind in ("unchanged", "filtered"):
            body, banner = body[: -len(suffix)], kind
            break
    options = ""
    if body.endswith(" (invalidated)"):
        body, options = body[: -len(" (invalidated)")], "invalidated"
    name, arg, unit = _llvm_pass(body, family)
    scope = _unit_scope(unit) if unit else "" if inline else _trailer_scope(trailer)
    phase = "after" if phase == "At" else phase.lower()  # -print-at-pass-number prints after
    if phase == "after" and not arg and name.endswith(" Failed"):  # the oldest MLIR's
        name, phase = name[: -len(" Failed")], "failed"  # -mlir-print-ir-after-failure
    return Header(family, phase, name, arg, options, scope, banner, inline and not banner)


def _parse_other_stars(core: str, family: str) -> Header | None:
    """The `*** ... ***` lines that are no `IR Dump`: banners and `-print-on-crash`'s dump."""
    if core.startswith(("IR Pass ", "IR Deleted After ")):
        return _parse_pass_banner(core, family)
    if core.startswith("Dump of "):
        return _parse_crash_dump(core, family)
    return None


# `-print-on-crash`: the IR the last pass started on, printed when the process crashes
# (`-print-module-scope`: the whole module); a pass that the filters leave out, no IR.
_CRASH_DUMP = re.compile(
    r"^Dump of (?P<module>Module )?IR Before Last Pass (?P<pass>\S.*?) "
    r"(?P<how>Started|Filtered Out) \*\*\*$"
)


def _parse_crash_dump(core: str, family: str) -> Header | None:
    m = _CRASH_DUMP.match(core)
    if m is None:  # `Before Last Pass Unknown ***`: no pass had started; no IR follows
        return None
    scope = "module" if m["module"] else ""
    banner = "filtered" if m["how"] == "Filtered Out" else ""
    return Header(family, "before", m["pass"], m["pass"], "crash", scope, banner)


def _parse_pass_banner(core: str, family: str) -> Header | None:
    """`*** IR Pass P on F ignored ***`, `*** IR Pass P invalidated ***`, `*** IR Deleted ...`."""
    body = core.removesuffix("***").strip()
    banner = "deleted"
    if body.startswith("IR Deleted After "):
        body = body[len("IR Deleted After ") :]
    else:
        body = body[len("IR Pass ") :]
        for suffix, kind in _BANNER_ENDS:
            if body.endswith(suffix):
                body, banner = body[: -len(suffix)], kind
                break
        else:
            return None
    name, arg, unit = _llvm_pass(body, family)
    return Header(family, "after", name, arg, "", _unit_scope(unit) if unit else "", banner)


def _llvm_pass(body: str, family: str) -> tuple[str, str, str]:
    """(name, argument, unit) of "PassID on unit", "Name (arg)", "Name (arg) on unit"."""
    name, unit, spaced = _split_on(body)
    if not unit or spaced:  # a new pass manager's PassID is one word: "P on unit"
        legacy = _legacy_pass(body)
        if legacy is not None:
            return legacy
    m = _UNIT_IN_NAME.search(name) if name.endswith(")") else None
    if m is not None:
        unit, name = unit or f"({m['inner']})", name[: m.start()]
    name = _PASS_NUMBER.sub("", name, count=1)
    arg = name if family == "llvm" or unit else ""  # the new pass manager names only a class
    return name, arg, unit


# The unit the first `-print-changed` (LLVM 12) names inside its banners, after the pass:
# `InstSimplifyPass (function: f)`, `InlinerPass (scc: (f, g))`, `VerifierPass (module)`.
_UNIT_IN_NAME = re.compile(
    r" \((?P<inner>module|(?:function|scc|loop|module|cgscc): [^()]*(?:\([^()]*\))?)\)$"
)


def _legacy_pass(body: str) -> tuple[str, str, str] | None:
    """A legacy pass: "Long Name (arg)", or "Long Name (arg) on F" (machine -print-changed)."""
    k = body.rfind(") on ")
    head, unit = (body[: k + 1], body[k + 5 :]) if k >= 0 else (body, "")
    if not head.endswith(")"):
        return None
    j = head.rfind(" (")
    arg = head[j + 2 : -1] if j > 0 else ""
    if not arg or arg == "module" or any(c in arg for c in " ()"):
        return None
    return head[:j], arg, unit


def _split_on(body: str) -> tuple[str, str, bool]:
    """Split "PassID on unit" at the first " on " outside `<...>` and `(...)`; the flag says
    whether the part before it has a space of its own (then it is no PassID)."""
    depth = 0
    spaced = False
    for i, c in enumerate(body):
        if c in "<(":
            depth += 1
        elif c in ">)":
            depth = max(depth - 1, 0)
        elif c == " " and depth == 0:
            if body.startswith(" on ", i):
                return body[:i], body[i + 4 :], spaced
            spaced = True
    return body, "", spaced


def _trailer_scope(trailer: str) -> str:
    """Scope from what follows the closing stars: "(function: f)", "('func' operation: @f)"."""
    if not trailer.startswith("(") or not trailer.endswith(")"):
        return ""
    inner = trailer[1:-1]
    if inner.startswith("'"):
        op, _, sym = inner[1:].partition("' operation")
        sym = sym.removeprefix(": ").strip()
        return f"{op} {sym}" if sym else op
    return _unit_scope(trailer)


def _unit_scope(unit: str) -> str:
    """The scope of an LLVM IR unit as the pass managers name it."""
    unit = unit.strip()
    if unit in ("[module]", "module", "(module)"):
        return "module"
    if unit == "[moduleBunch]":
        return "module bunch"
    if unit.startswith("(") and unit.endswith(")"):
        inner = unit[1:-1]
        for kind in _UNIT_KINDS:
            if inner.startswith(kind):
                return _unit_scope_kind(kind[:-2], inner[len(kind) :].strip())
        return f"cgscc ({inner})"
    if unit.startswith("loop %") and " in function " in unit:
        loop, _, fn = unit[len("loop ") :].partition(" in function ")
        return f"loop {loop} in function @{fn}"
    m = _LOOP_AT_DEPTH.match(unit)
    if m is not None:
        return f"loop {m['head']} at depth {m['depth']}"
    if unit == "<unnamed loop>":
        return "loop <unnamed>"
    return f"function @{unit.strip('()')}"


def _unit_scope_kind(kind: str, name: str) -> str:
    if kind == "function":
        return f"function @{name}"
    if kind in ("scc", "cgscc"):
        return f"cgscc {name if name.startswith('(') else '(' + name + ')'}"
    if kind == "loop":
        return f"loop {_loop_operand(name)}"
    return "module"


_BARE_NAME = re.compile(r"[-\w$.]+")


def _loop_operand(name: str) -> str:
    """A loop's header as an operand (`%for.body`): LLVM 11's new pass manager names it by
    the header's bare name (`(loop: for.body)`), later ones as an operand; the loop of an
    unnamed header `<unnamed>`, as `on <unnamed loop>` names it."""
    if name == "<unnamed loop>":
        return "<unnamed>"
    if name.startswith(("%", "<")):
        return name
    return f"%{name}" if _BARE_NAME.fullmatch(name) else f'%"{name}"'
