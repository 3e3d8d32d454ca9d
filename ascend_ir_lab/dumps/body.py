"""Questions about the text of one Dump: where its IR ends, its scope, and message levels.

All functions take the log's bytes and offsets; they look at a few lines, never at the
whole body, so the cost of reading a log does not grow with the size of its snapshots.
"""

from __future__ import annotations

import re

# A column-0 line that belongs to MLIR text: closing brace, attribute/type alias, resource
# blob delimiters, generic op (`"builtin.module"() ({`), or an op name such as `module`,
# `func.func`, `tt.func`. Not the closing lines of MLIR's pattern drivers' debug log
# (`} -> SUCCESS : operation marked legal by the target`, `} -> failure : ...`).
_MLIR_LINE = re.compile(
    rb"^(?:\}(?! -> (?:success|failure|SUCCESS|FAILURE)\b)|#|!|\{-#|\"[\w$.]+\"\(|module\b"
    rb"|func\b|[a-z_][\w$]*(?:\.[\w$]+)+\b)"
)
# The line a pattern driver's debug log closes a step with; never the end of a Dump's IR.
PATTERN_LOG_CLOSE = re.compile(rb"\} -> (?:success|failure|SUCCESS|FAILURE)\b")
# Column-0 lines after which nothing indented belongs to the IR (the top-level op closed,
# a trailing alias, the end of machine code), and those that open what indented lines follow.
_CLOSING = (b"}", b"#", b"!", b"attributes #")
# A column-0 line that belongs to LLVM IR or machine IR.
_LLVM_LINE = re.compile(
    rb"^(?:\}|!|@|%|\$|;|#|attributes |declare |define |source_filename|target |bb\.|"
    rb"[A-Z][\w ]*(?:Ins|Objects|Constants|Tables?):|---|\.\.\.|name:|body:|[\w.$-]+:(?:\s+;|\s*$))"
)
_OPENS = (b"{", b"(", b",", b"[")
# The lines the legacy pass manager's `-debug-pass=Details` prints indented by one blank
# (` -*- 'P' is the last user of following pass instances.`, ` -- 'P' is not preserving
# 'Q'`): messages, even after a loop printout, whose indented last line ends it.
_PASS_DETAILS = (b" -*- '", b" -- '")
# The lines the new pass manager's `-debug-pass-manager=verbose` prints indented by the
# nesting of its pass managers (`    Running pass: LoopRotatePass on loop %l in function f`):
# messages too, no IR line reads so.
_PASS_TRACE = (
    b"Running pass: ", b"Running analysis: ", b"Invalidating analysis: ", b"Skipping pass: ",
    b"Clearing all analysis results for: ",
)  # fmt: skip
# A line of LLVM's `-print-changed=diff` (`cdiff`: colour escapes around it): unchanged,
# removed or added, or the banner that names a function of a module or SCC.
_DIFF_LINE = re.compile(rb"^(?:[-+ ]|\x1b\[|\*\*\* IR for function )")

_LEVELS = (
    (re.compile(rb"\berror\b|\[ERROR\]|^Traceback|^LLVM ERROR|Error:", re.I), "error"),
    # `(?<=\w)Warning: `, not `\w+Warning: `: that retries every letter of a 1 MB word
    (re.compile(rb"\bwarning\b|\[WARN(?:ING)?\]|(?<=\w)Warning: ", re.I), "warning"),
    # not an ELF section's name (`.section ".note.GNU-stack"`, in every `llc -o -`)
    (re.compile(rb"(?<!\.)\bnote\b|\bremark\b|\[NOTE\]"), "note"),
    (re.compile(rb"\[INFO\]|^INFO\b"), "info"),
)

# What MLIR prints between an op and its symbol: its visibility (`tt.func public @k`) or,
# for `llvm.func`, linkage, visibility and calling convention (`llvm.func internal fastcc @f`).
SYMBOL_GAP = r"(?:[ \t]+[a-z_]\w*){0,4}[ \t]+"
_SCOPE_SYM = re.compile(
    rb"^\"?(?P<op>[a-z_][\w$]*(?:\.[\w$]+)*)\"?"
    + SYMBOL_GAP.encode()
    + rb"@(?P<sym>\"[^\"]*\"|[\w$.-]+)"
)
# The generic form MLIR prints for IR that fails to verify (-mlir-print-ir-after-failure):
# `"func.func"() <{function_type = ..., sym_name = "f"}> ({`, the symbol an attribute.
_GENERIC_OP = re.compile(rb'^"(?P<op>[a-z_][\w$]*(?:\.[\w$]+)*)"\(')
_GENERIC_SYM = re.compile(
    rb'^"(?P<op>[a-z_][\w$]*(?:\.[\w$]+)*)"\([^\n]*?[<{ ,]sym_name = "(?P<sym>[^"\n]*)"'
)
_GENERIC_OP_AT = re.compile(_GENERIC_OP.pattern[1:])  # matched at an offset: no `^`
_SYM_NAME = re.compile(rb'[<{ ,]sym_name = "(?P<sym>[^"\n]*)"')
_LLVM_DEFINE = re.compile(rb"^define\b[^@\n]*@(?P<sym>\"[^\"]*\"|[\w$.-]+)")
_MACHINE_FN = re.compile(rb"^# Machine code for function (?P<sym>[^:\s]+):")


def ir_end(
    data: bytes, body_start: int, region_end: int, family: str, *, open_end: bool = False
) -> tuple[int, int, bool]:
    """Split a region after a header into IR and trailing non-IR lines.

    Returns (ir_end, text_start, truncated): IR is [body_start, ir_end), the blank lines
    after it run to text_start, and [text_start, region_end) holds messages (possibly none).
    A Dump is truncated when its last IR line is not a line IR can end with; with
    `open_end` (an LLVM loop printout, which ends in its exit block's last instruction)
    an indented last line is a complete one. For family "diff" (a `-print-changed=diff`
    body) any diff line ends it.
    """
    diff = family == "diff"
    pattern = _DIFF_LINE if diff else _LLVM_LINE if family.startswith("llvm") else _MLIR_LINE
    end = region_end
    text_start = region_end
    while end > body_start:
        line_start = max(data.rfind(b"\n", body_start, end - 1) + 1, body_start)
        line = data[line_start:end].rstrip()
        if not line:
            end = line_start
            continue
        indented = line[:1] in (b" ", b"\t")
        if (
            indented
            and not diff
            and (line.startswith(_PASS_DETAILS) or line.lstrip().startswith(_PASS_TRACE))
        ):
            text_start = end = line_start
            continue
        if indented and not diff and not open_end:
            # Indented lines are IR only inside an op or a function: below a column-0 line
            # that closed the IR, or a message, they are messages (pass-manager output
            # indented by nesting, a pattern driver's debug log).
            above = _column0_above(data, body_start, line_start)
            if above >= 0 and not _opens(data, above, pattern):
                text_start = end = data.find(b"\n", above, line_start) + 1
                continue
        if indented or pattern.match(line):
            truncated = not data[line_start:end].endswith(b"\n") or (
                not diff and ((indented and not open_end) or line.endswith(_OPENS))
            )
            return end, blank_run_end(data, end, text_start), truncated
        text_start = line_start  # a message line: everything from here on is text
        end = line_start
    return body_start, blank_run_end(data, body_start, text_start), False


def _column0_above(data: bytes, body_start: int, pos: int) -> int:
    """Start of the nearest non-blank column-0 line before the line at `pos` (-1: none)."""
    while pos > body_start:
        start = max(data.rfind(b"\n", body_start, pos - 1) + 1, body_start)
        first = data[start : start + 1]
        if first not in (b" ", b"\t", b"\r", b"\n", b""):
            return start
        pos = start
    return -1


def _opens(data: bytes, start: int, pattern: re.Pattern[bytes]) -> bool:
    """Whether the column-0 line at `start` is IR that indented lines can follow (an op, a
    function, a label, a resource blob), not one that closes the IR or a message."""
    nl = data.find(b"\n", start)
    line = data[start : nl if nl >= 0 else len(data)].rstrip()
    if not pattern.match(line):
        return False
    return not line.startswith(_CLOSING)


def split_region(
    data: bytes, body_start: int, region_end: int, family: str, loop: bool = False
) -> tuple[int, int, bool]:
    """Fast path for a region whose last line closes IR (`}`, a trailing alias or metadata
    line) and only blank lines follow; else scan back line by line."""
    ends = ENDS_LLVM if family[0] == "l" else ENDS_DIFF if family == "diff" else ENDS_MLIR
    tail = data[max(body_start, region_end - 256) : region_end]
    stripped = tail.rstrip(b"\r\n")
    if len(stripped) < len(tail):
        nl = stripped.rfind(b"\n")
        if (
            nl >= 0
            and stripped.startswith(ends, nl + 1)
            and not PATTERN_LOG_CLOSE.match(stripped, nl + 1)
        ):
            return line_end(data, region_end - (len(tail) - len(stripped))), region_end, False
    # Messages after the IR (a pass manager's log lines): what closes the IR before them?
    found = ir_end(data, body_start, region_end, family, open_end=loop)
    # its last line; a body of one line starts it (not the log's start: a copy of all before)
    last = data[max(data.rfind(b"\n", body_start, max(found[0] - 1, body_start)) + 1,
                    body_start) : found[0]]  # fmt: skip
    if last.startswith(ends) and not found[2]:
        return found
    # Text that can never be IR (a traceback, a crash report) ends the IR wherever it starts,
    # even if IR-looking lines (indented frames, dotted exception names) follow it.
    cut = hard_stop(data, body_start - 1, region_end)
    return ir_end(data, body_start, cut, family, open_end=loop)


# A column-0 line that no LLVM IR holds (a function, a module, an SCC's functions: their
# column-0 lines are comments, globals, types, metadata, attribute groups, declarations,
# labels and the closing brace): a pass's debug output (`LV: Checking a loop`, a VPlan
# whose `}` and labels read as IR), a graph or JSON object a tool printed. It and all
# after it are text.
_NOT_LLVM_IR = re.compile(
    rb"\n(?![ \t\r\n;!@%$^#}]|\Z|attributes |declare |define |source_filename|target "
    rb'|module asm |uselistorder|"[^"\n]*":|[-\w.$]+:(?:[ \t]+;|[ \t]*\r?(?:\n|\Z)))'
)


def llvm_ir_stop(
    data: bytes, body_start: int, text_start: int, region_end: int, truncated: bool = False
) -> int:
    """Where LLVM IR read as [body_start, text_start) must end at the latest: the start of
    its first column-0 line that no LLVM IR holds; else `text_start`. Looked for only where
    text may be in it (messages follow it, it reads as cut short: the assembly `llc -o -`
    prints after it, or its last lines open a brace: a graph or JSON object that ends in
    `}`), and only after its first function closes: a Dump's IR is
    printed whole, with no text inside. Machine code (`# Machine code for function`, MIR)
    has column-0 lines of its own."""
    if data[body_start : body_start + 1] in (b"#", b"-"):
        return text_start
    if text_start == region_end and not truncated:
        tail = data[max(body_start, text_start - 256) : text_start]
        # a brace opened near the end, or a last `}` that closes no function (its line
        # before is none of a function's last lines): a graph or JSON object of any size
        if b"{" not in tail and (
            not tail.rstrip().endswith(b"\n}") or _FUNCTION_END.search(tail) is not None
        ):
            return text_start
    m = _NOT_LLVM_IR.search(data, _first_close(data, body_start, text_start), text_start)
    if m is None or data.rfind(b"\n# Machine code for function ", body_start, m.start()) >= 0:
        return text_start
    return m.start() + 1


# A function's last lines: its terminator (a multi-line one's last line: a switch's `]`,
# an invoke's or callbr's `to label`) or a trailing `uselistorder`, then its closing brace.
_FUNCTION_END = re.compile(
    rb"\n(?:  (?:%[^\n=]+ = )?(?:ret|br|switch|indirectbr|invoke|callbr|resume|catchswitch"
    rb"|catchret|cleanupret|unreachable|uselistorder)\b[^\n]*|  \]|[ \t]+to label [^\n]*)"
    rb"\r?\n\}\s*\Z"
)


def _first_close(data: bytes, lo: int, hi: int) -> int:
    """The newline before the first column-0 `}` in [lo, hi) (a function's end), or `lo`
    where a few looks find none (a brace byte is found at memory speed; one inside a line,
    a struct type's, is looked past)."""
    k = lo
    for _ in range(_CLOSE_LOOKS):
        k = data.find(b"}", k + 1, hi)
        if k < 0:
            return lo
        if data[k - 1] == 10:  # `\n`
            return k - 1
    return lo


_CLOSE_LOOKS = 16


def line_end(data: bytes, pos: int) -> int:
    """One past the line terminator at `pos` (`\n`, or `\r\n` in a log written on Windows)."""
    return pos + 2 if data[pos : pos + 2] == b"\r\n" else pos + 1


def hard_stop(data: bytes, lo: int, hi: int) -> int:
    """Where the first line that can never be IR starts in [lo, hi) (`lo` a newline or
    one before the body), or `hi`."""
    m = _HARD_STOP.search(data, lo, hi)
    cut = m.start() + 1 if m else hi
    # A diagnostic (`file.py:13:9: remark: ...`, `loc("k.mlir":1:1): error: ...`) echoes its
    # source line and a caret, a Python warning (`k.py:7: UserWarning: ...`) its source
    # line, indented as IR is: the diagnostic line ends the IR.
    pos = lo
    while (d := _DIAGNOSTIC.search(data, pos, cut)) is not None:
        line = data.rfind(b"\n", lo, d.start()) + 1
        if _DIAGNOSTIC_HEAD.fullmatch(data, line, d.start()):
            return line
        pos = d.end()
    return cut


# Column-0 lines that only the end of a Dump holds: the closing brace of the top-level op, a
# location alias, the end of a resource blob; in LLVM metadata, attribute groups, machine IR.
ENDS_MLIR = (b"}", b"#loc", b"#-}")
ENDS_LLVM = (b"}", b"!", b"attributes #", b"# End machine code")
ENDS_DIFF = (b" ", b"-", b"+", b"\x1b[")  # a diff ends in any line of it


# One search for all of them: the leading newline lets it skip from line to line in C.
_HARD_STOP = re.compile(
    rb"\n(?:Traceback \(most recent call last\):|LLVM ERROR:|PLEASE submit a bug report"
    rb"|Stack dump:|===----"  # an MLIR/LLVM timing report (-mlir-timing, -time-passes)
    rb'|\[\r?\n\{"(?:wall|user|name)": )'  # the same in JSON (--mlir-output-format=json)
)
_DIAGNOSTIC = re.compile(rb": (?:error|warning|remark|note|\w*Warning): ")
_DIAGNOSTIC_HEAD = re.compile(rb"(?:loc\()?[^\s][^\n]*:\d+(?::\d+)?\)?")


def blank_run_end(data: bytes, start: int, limit: int) -> int:
    """End of the blank lines that follow `start`, not beyond `limit`."""
    pos = start
    while pos < limit:
        nl = data.find(b"\n", pos, limit)
        stop = limit if nl < 0 else nl + 1
        if data[pos:stop].strip():
            return pos
        pos = stop
    return limit


def infer_scope(data: bytes, body_start: int, body_end: int, family: str) -> str:
    """The scope a header did not name, read from the first op of the body."""
    llvm = family.startswith("llvm")
    if (
        llvm and data[body_start : body_start + 3] == b"---"
    ):  # MIR: `---`, `name: f` (`--- |` a module)
        mir = _MIR_NAME.search(data, body_start, body_end)
        if mir is not None and _MIR_NAME.search(data, mir.end(), body_end) is None:
            return f"function @{mir['sym'].decode(errors='replace')}"
    first, later = (_LLVM_UNIT, _LLVM_UNIT_LATER) if llvm else (_MLIR_OP, _MLIR_OP_LATER)
    start = _first_unit(data, body_start, body_end, first, later)
    if start < 0:
        return "module" if llvm else "builtin.module"
    stop = min(body_end, start + _LOOK)
    nl = data.find(b"\n", start, stop)
    line = data[start : nl if nl >= 0 else stop]
    if llvm:
        return _llvm_scope(line) or "module"
    if nl < 0 and line[:1] == b'"':  # a generic op whose properties run on past the look
        return _generic_scope(data, start, body_end)
    if symbol_after_regions(line):
        return _closing_line_scope(data, start, body_end, line)
    return _mlir_scope(line)


def symbol_after_regions(line: bytes) -> bool:
    """Whether an op's first line is the generic form of an op whose attributes follow its
    regions (MLIR before properties, LLVM 17 and older: `"func.func"() ({` ... `}) {
    function_type = () -> (), sym_name = "f"} : () -> ()`): its symbol is on the line that
    closes it, and ops alike on their first line may name other symbols."""
    return line[:1] == b'"' and line.rstrip().endswith((b"({", b"( {")) and b"sym_name" not in line


def _closing_line_scope(data: bytes, start: int, body_end: int, line: bytes) -> str:
    """The scope of an op `symbol_after_regions`: its symbol from the column-0 `})` line
    that closes it (the ops inside it are indented)."""
    op = _read_mlir_scope(line)
    close = data.find(b"\n})", start, body_end)
    if close < 0 or op == "builtin.module":  # a module's name is no scope of its own
        return op
    eol = data.find(b"\n", close + 1, body_end)
    sym = _SYM_NAME.search(data, close + 1, body_end if eol < 0 else eol)
    return f"{op} @{sym['sym'].decode(errors='replace')}" if sym else op


def mlir_scope_look_end(data: bytes, body_start: int, body_end: int) -> int:
    """How far `infer_scope` reads an MLIR body: the end of the op line it reads, or of its
    look into a longer one; -1 where it reads to the body's end or past the look. A body that
    reaches that far with the same bytes before it names the same scope."""
    start = _first_unit(data, body_start, body_end, _MLIR_OP, _MLIR_OP_LATER)
    if start < 0 or start + _LOOK > body_end:
        return -1
    nl = data.find(b"\n", start, start + _LOOK)
    if nl >= 0:
        return -1 if symbol_after_regions(data[start:nl]) else nl + 1
    return -1 if data[start : start + 1] == b'"' else start + _LOOK


def _first_unit(
    data: bytes, body_start: int, body_end: int, first: re.Pattern[bytes], later: re.Pattern[bytes]
) -> int:
    """Start of the body's first line that `first` matches (`later`: after a newline), -1:
    none (the op or unit `infer_scope` reads)."""
    if first.match(data, body_start, body_end):
        return body_start
    m = later.search(data, body_start, body_end)
    return -1 if m is None else m.start() + 1


_LOOK = 512  # how far into its first op line `infer_scope` reads


def _generic_scope(data: bytes, start: int, body_end: int) -> str:
    """The scope of a generic op's first line, however long (`"func.func"() <{arg_attrs =
    [...], function_type = ..., sym_name = "f"}> ({`): the properties sort `sym_name` late."""
    eol = data.find(b"\n", start, body_end)
    eol = body_end if eol < 0 else eol
    m = _GENERIC_OP_AT.match(data, start, eol)
    if m is None:
        return _read_mlir_scope(data[start : start + 512])
    sym = _SYM_NAME.search(data, m.end(), eol)
    op = m["op"].decode()
    return f"{op} @{sym['sym'].decode(errors='replace')}" if sym else op


# The first line of an MLIR body that is an op (attribute and type aliases precede it);
# a newline leads each later-line pattern, so the search skips from line to line in C.
_MLIR_OP = re.compile(rb"[^#!\s]")
_MLIR_OP_LATER = re.compile(rb"\n[^#!\s]")
# The first line of an LLVM body that names its unit.
_LLVM_UNIT = re.compile(rb"; ModuleID|source_filename|define\b|# Machine code for function ")
_LLVM_UNIT_LATER = re.compile(
    rb"\n(?:; ModuleID|source_filename|define\b|# Machine code for function )"
)
_MIR_NAME = re.compile(rb"^---[ \t]*\r?\nname:[ \t]+['\"]?(?P<sym>[^'\"\s]+)", re.M)
_FIRST_LINE = re.compile(rb"\S[^\n]*")
# How a diff body opens: its first line unchanged (a space, often alone: the blank line
# before `entry:`), removed or added (not a `---` MIR document), coloured, or a function's
# banner (a module or SCC diff). No LLVM IR body starts so.
_DIFF_START = re.compile(
    rb"(?: \r?\n| [ \w%]|-(?!--)|\+|\x1b\[3[12]m|\r?\n?\*\*\* IR for function )"
)
_LABEL = re.compile(rb"^[\w.$-]+:")


_LOOP_HEADER = re.compile(rb"^; Loop:\r?\n(?P<label>[\w.$-]+):", re.M)


def loop_header(data: bytes, body_start: int, body_end: int) -> str:
    """`%label` of the header block of an LLVM loop printout ("" if it shows none)."""
    m = _LOOP_HEADER.search(data, body_start, min(body_end, body_start + 65536))
    return f"%{m['label'].decode(errors='replace')}" if m else ""


def first_block(data: bytes, body_start: int, body_end: int) -> str:
    """`%label` of the block a printout of blocks opens with ("" if it opens otherwise)."""
    m = _FIRST_LINE.search(data, body_start, min(body_end, body_start + 4096))
    label = _LABEL.match(m.group()) if m is not None else None
    return f"%{label.group()[:-1].decode(errors='replace')}" if label else ""


def body_language(data: bytes, body_start: int, body_end: int) -> str:
    """What a body's first line says it is: "mlir", "loop" (an LLVM loop printout),
    "blocks" (basic blocks alone: a legacy region pass's printout, a loop's without a
    preheader), "module" (a whole LLVM module), "diff" (LLVM's `-print-changed=diff`) or
    "llvm"."""
    if _DIFF_START.match(data, body_start, min(body_end, body_start + 64)):
        return "diff"
    m = _FIRST_LINE.search(data, body_start, min(body_end, body_start + 4096))
    if m is None:
        return "llvm"
    line = m.group()
    if line.startswith((b"; Preheader:", b"; Loop:")):
        return "loop"
    if line.startswith((b"; ModuleID", b"source_filename")):
        return "module"
    if _LABEL.match(line):
        return "blocks"
    if line.startswith((b"}", b"!")):
        return "llvm"
    if _MLIR_LINE.match(line) and not line.startswith(b"# "):
        return "mlir"
    return "llvm"


def _mlir_scope(line: bytes) -> str:
    scope = _SCOPES.get(line)
    if scope is None:
        scope = _read_mlir_scope(line)
        if len(_SCOPES) < 4096:
            _SCOPES[line] = scope
    return scope


_SCOPES: dict[bytes, str] = {}  # first op lines repeat from Dump to Dump: read each once


def _read_mlir_scope(line: bytes) -> str:
    if line.startswith((b"module", b'"builtin.module"')):
        return "builtin.module"
    m = _SCOPE_SYM.match(line) or _GENERIC_SYM.match(line)
    if m:
        return f"{m['op'].decode()} @{m['sym'].decode(errors='replace').strip(chr(34))}"
    m = _GENERIC_OP.match(line)
    if m:  # the generic form of an op without a symbol: `"scf.for"(...)`
        return m["op"].decode()
    op = line.split(None, 1)[0].strip(b'"').decode(errors="replace")
    return op or "builtin.module"


def _llvm_scope(line: bytes) -> str | None:
    if line.startswith(b"; ModuleID") or line.startswith(b"source_filename"):
        return "module"
    m = _LLVM_DEFINE.match(line) or _MACHINE_FN.match(line)
    if m:
        return f"function @{m['sym'].decode(errors='replace').strip(chr(34))}"
    return None


def message_level(line: bytes) -> str:
    """Classify a message line: error, warning, note, info or plain text (by its first
    64 KiB: a diagnostic says its level early; a 50 MB line is not searched whole)."""
    line = line[:_LEVEL_HEAD]
    level = _LEVEL_OF.get(line)
    if level is None:
        diag = _DIAGNOSTIC_LEVEL.match(line)  # `file:1:2: remark: Warning: ...` is a remark
        if diag is not None:
            level = "note" if diag[1] == b"remark" else diag[1].decode()
        else:
            level = next((lv for pattern, lv in _LEVELS if pattern.search(line)), "text")
        if len(_LEVEL_OF) < 4096:
            _LEVEL_OF[line] = level
    return level


_DIAGNOSTIC_LEVEL = re.compile(rb"(?:loc\()?\S[^\n]*?:\d+:\d+\)?: (error|warning|remark|note): ")
_LEVEL_HEAD = 64 << 10
_LEVEL_OF: dict[bytes, str] = {}  # a pass manager's messages repeat: classify each once
