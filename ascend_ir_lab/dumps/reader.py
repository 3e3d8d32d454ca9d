"""Index one log: find every header (`scan`), then split the regions between them.

The reader never copies the log: it keeps offsets. Header lines repeat (a pipeline runs the
same passes again and again), so each distinct header line is parsed once.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from ascend_ir_lab.dumps.asm import asm_end
from ascend_ir_lab.dumps.body import (
    ENDS_MLIR,
    PATTERN_LOG_CLOSE,
    blank_run_end,
    body_language,
    first_block,
    hard_stop,
    infer_scope,
    line_end,
    llvm_ir_stop,
    loop_header,
    message_level,
    mlir_scope_look_end,
    split_region,
    symbol_after_regions,
)
from ascend_ir_lab.dumps.compiles import compile_starts
from ascend_ir_lab.dumps.headers import Header
from ascend_ir_lab.dumps.model import Dump, Message, Segment
from ascend_ir_lab.dumps.scan import find_headers, stage_dumps
from ascend_ir_lab.record import replace


class LogIndex:
    """What one log holds: Dumps, Messages, the Segments that reassemble it, and warnings."""

    __slots__ = ("dumps", "messages", "segments", "warnings", "leads")

    def __init__(
        self,
        dumps: list[Dump] | None = None,
        messages: list[Message] | None = None,
        segments: list[Segment] | None = None,
        warnings: list[str] | None = None,
        leads: list[tuple[int, int]] | None = None,
    ) -> None:
        self.dumps: list[Dump] = [] if dumps is None else dumps
        self.messages: list[Message] = [] if messages is None else messages
        self.segments: list[Segment] = [] if segments is None else segments
        self.warnings: list[str] = [] if warnings is None else warnings
        # (line start, header start) of each header that other output precedes on its line
        # (a prefix every line of the log carries, or text printed without a newline)
        self.leads: list[tuple[int, int]] = [] if leads is None else leads

    def shift(self, log_id: int, first_index: int) -> None:
        """Number an index read as log 0 from Dump 0 as log `log_id` from Dump `first_index`."""
        for d in self.dumps:
            d.index += first_index
            d.log_id = log_id
        for m in self.messages:
            m.after += first_index
            m.log_id = log_id
        if first_index:
            for s in self.segments:
                if s.kind == "dump":
                    s.dump += first_index


# What a log says where a header line ends in a carriage return alone inside it (lines of
# that kind among ordinary ones): `builder` reads it again, each such line end a newline.
LONE_CR = "a header line ends in a carriage return alone"


def index_log(data: bytes, *, stage: str, log_id: int, first_index: int = 0) -> LogIndex:
    """Index `data` (bytes or mmap) into Dumps and Messages; lossless by construction."""
    out = index_part(data, 0, len(data), stage=stage, log_id=log_id, first_index=first_index)
    end_compiles(data, out)
    return out


def end_compiles(data: bytes, out: LogIndex) -> None:
    """A log of several compiles (`compiles.compile_starts`: a log appended to): each
    compile's last MLIR Dump without the tool's output after it, as the log's last is
    read (`_output_after`, `_module_after`); that output is the compile's text. One search per compile;
    the compiles are taken from the last, so the places found before each cut hold."""
    starts = compile_starts(out.dumps)
    if not starts:
        return
    base = out.dumps[0].index
    where = {s.dump: k for k, s in enumerate(out.segments) if s.kind == "dump"}
    message_starts = [m.start for m in out.messages]
    for start in reversed(starts):
        dump = out.dumps[start - base - 1]
        if dump.family == "mlir":
            cut = _output_after(data, dump)
        elif dump.family.startswith("llvm"):
            cut = _module_after(data, dump)
        else:
            continue
        if cut is dump:
            continue
        out.dumps[dump.index - base] = cut
        k = where[cut.index]
        out.segments[k] = Segment("dump", cut.start, cut.end, cut.index)
        text = LogIndex()
        _add_text(text, data, cut.end, dump.end, cut.stage, cut.log_id, cut.index)
        out.segments[k + 1 : k + 1] = text.segments
        m = bisect_left(message_starts, cut.end)
        out.messages[m:m] = text.messages


def index_part(
    data: bytes, lo: int, hi: int, *, stage: str, log_id: int, first_index: int = 0
) -> LogIndex:
    """Index [lo, hi) of `data`: `lo` 0 or a header line's start, `hi` the next part's first
    header line or the end of the log (only the last part warns of a truncated last Dump)."""
    out = LogIndex()
    # Each Dump is read as soon as the scan has found the header after it: the ends of its
    # IR, which the reading looks at, are still in the CPU's caches then (read after the
    # whole scan, every look would wait on memory: a few microseconds a Dump).
    found = find_headers(data, lo, hi)
    ahead: list[tuple[int, int, Header]] = []  # headers to take before `found`'s, last first
    current = next(found, None)
    size = hi
    _add_text(out, data, lo, current[0] if current else size, stage, log_id, first_index - 1)
    index = first_index
    first = current[0] if current else 0
    glued = first > 0 and data[first - 1 : first] != b"\n"  # other output before it
    following = (ahead.pop() if ahead else next(found, None)) if current else None
    while current is not None:
        start, body_start, header = current
        if header.lone_cr and LONE_CR not in out.warnings:
            out.warnings.append(LONE_CR)
        last = following is None
        next_start = size if following is None else following[0]
        region_end = next_start
        glued_next = not last and data[next_start - 1 : next_start] != b"\n"
        if glued_next:  # the next header's line starts with other output: text, not this IR
            region_end = max(data.rfind(b"\n", body_start, next_start) + 1, body_start)
        dump, within = _read_region(
            data, header, stage, log_id, index, start, body_start, region_end
        )
        if within:  # a stage's output after this IR or banner: the region ends before it
            if following is not None:
                ahead.append(following)
            ahead.extend(reversed(within[1:]))
            following = within[0]
            continue
        if glued:
            out.leads.append((data.rfind(b"\n", 0, start) + 1, start))
        if dump is None:
            _add_banner(out, data, start, body_start, header, stage, log_id, index - 1)
            _add_text(out, data, body_start, next_start, stage, log_id, index - 1)
        else:
            # the tool's output after the IR (its result on stdout) is no IR of the Dump
            if dump.family == "mlir" and (
                (last and hi == len(data)) or _output_may_follow(data, dump)
            ):
                dump = _output_after(data, dump)
            elif dump.family[0] == "l" and (
                _prints_module(following[2]) if following is not None else hi == len(data)
            ):
                dump = _module_after(data, dump)
            _add_dump(out, data, dump, next_start, last and hi == len(data))
            index += 1
        current, glued = following, glued_next
        following = (ahead.pop() if ahead else next(found, None)) if current else None
    return out


def _read_region(
    data: bytes, header: Header, stage: str, log_id: int, index: int,
    start: int, body_start: int, region_end: int,
) -> tuple[Dump | None, list[tuple[int, int, Header]]]:  # fmt: skip
    """The Dump a header opens (None for a banner), and the stage outputs its region holds
    that the header scan did not find (`_stage_dumps_within`; after a banner, any)."""
    if header.banner:
        if body_start >= region_end:
            return None, []
        return None, list(stage_dumps(data, body_start, region_end))
    if header.inline_body:  # the IR starts on the header line, after its stars
        body_start = start + data[start:body_start].find(b"***", 4) + 3
    dump = _plain_dump(data, header, stage, log_id, index, start, body_start, region_end)
    if dump is not None:
        return dump, []
    dump = _dump(data, header, stage, log_id, index, start, body_start, region_end)
    return dump, _stage_dumps_within(data, dump, region_end)


def _add_dump(out: LogIndex, data: bytes, dump: Dump, next_start: int, at_end: bool) -> None:
    """Record a Dump, the text between it and the next header, and (`at_end`: the log's
    last) whether the log ends inside its IR."""
    out.dumps.append(dump)
    out.segments.append(Segment("dump", dump.start, dump.end, dump.index))
    if dump.end < next_start:
        _add_text(out, data, dump.end, next_start, dump.stage, dump.log_id, dump.index)
    if dump.truncated and at_end:
        out.warnings.append(
            f"stage {dump.stage}: the last dump ({dump.pass_name}) is truncated: "
            "the log ends in the middle of its IR"
        )


def _output_after(data: bytes, dump: Dump) -> Dump:
    """The log's last MLIR Dump without the tool's own output after it: MLIR ends a
    module's IR with two blank lines, an op's inside it (a function pass's Dump) with one,
    and what follows (the result printed to stdout, which a file or pipe flushes at exit,
    with `--split-input-file` each chunk's and its `// -----`) is no IR of the Dump's.
    One search of that one body."""
    m = _IR_DONE.search(data, dump.body_start, dump.body_end)
    if m is not None:
        body_end = m.end(m.lastgroup or "a")
        text = blank_run_end(data, body_end, dump.body_end)
        if text < dump.body_end:
            return replace(dump, body_end=body_end, end=text, truncated=False)
    return dump


# The pass `opt -S` prints its result with (new pass manager, legacy): the module it writes
# to stdout lands before its own after-Dump's header, in the region of the Dump before it.
_PRINTS_MODULE = ("PrintModulePass", "Print Module IR")


def _prints_module(header: Header) -> bool:
    return header.phase == "after" and header.pass_name in _PRINTS_MODULE


def _module_after(data: bytes, dump: Dump) -> Dump:
    """An LLVM Dump without the module the tool printed after it (`opt -S`, `clang -S
    -emit-llvm -o -`: stdout, flushed at exit after the log's last Dump or, under
    `-print-after-all`, by PrintModulePass before its own Dump's header): a Dump's IR holds
    one module at most, and its `; ModuleID` line opens it, so a later one starts that
    output. One search of the body, only where such output may follow it."""
    k = data.find(b"\n; ModuleID = ", dump.body_start, dump.body_end)
    if k < 0 or dump.holds.startswith("diff"):
        return dump
    loop = dump.holds.startswith(("loop", "blocks"))
    body_end, text, truncated = split_region(data, dump.body_start, k + 1, dump.family, loop)
    return replace(dump, body_end=body_end, end=text, truncated=truncated)


def _output_may_follow(data: bytes, dump: Dump) -> bool:
    """Whether a Dump's region may hold the tool's output after its IR (stdout flushed in
    blocks between Dumps, `--split-input-file` with no `-o`), from its last bytes alone: IR
    read as cut short (a header glued to that output), no blank line after it (MLIR prints
    one, a module two), a function's IR whose last `}` follows no terminator (its last op
    is one, never a `  }` as a module's, a JSON object's member or a graph's statement:
    output of any size) or that holds a column-0 `{` near its end that opens no resource
    blob (a JSON object printed after it)."""
    if dump.truncated or dump.end == dump.body_end:
        return True
    if dump.holds == "builtin.module":
        return dump.end - dump.body_end < 2 or data[dump.end - 2 : dump.end] == b"\r\n"
    tail = data[max(dump.body_start, dump.body_end - 256) : dump.body_end]
    if tail.rstrip().endswith(b"\n}") and _TERMINATOR_END.search(tail) is None:
        return True
    brace = data.rfind(b"{", max(dump.body_start + 1, dump.body_end - 256), dump.body_end)
    return brace > 0 and data[brace - 1] == 10 and data[brace + 1 : brace + 3] != b"-#"


# An op's last lines: its terminator, an op at the first indent (`  return`, `  tt.return
# %0 : i32`, `  "func.return"() : () -> ()`), then its closing brace. No graph statement
# (`  v1 -> v2;`) or JSON member (`  "num_warps": 4`) reads so.
_TERMINATOR_END = re.compile(
    rb'\n  (?:"[\w$.]+"\(|[a-z_][\w$]*(?:\.[\w$]+)*(?=[ \r\n]))[^\n;]*\r?\n\}\s*\Z'
)


# Where the one op a Dump prints is done: two blank lines; one before a column-0 line that
# is no resource blob's `{-#` (the IR of one op holds no other blank line at column 0; a
# JSON object a script prints opens with a `{` alone); or after the column-0 line that
# closes the op, one before any line (output cut mid-line).
_IR_DONE = re.compile(
    rb"(?P<a>\n)\r?\n(?:\r?\n|(?=[^\s{]|\{(?!-#)))"
    rb"|\n\}[^\n]*(?P<b>\n)(?=\r?\n(?:[^\r\n{]|\{(?!-#)))"
)


def _plain_dump(
    data: bytes, header: Header, stage: str, log_id: int, index: int,
    start: int, body_start: int, region_end: int,
) -> Dump | None:  # fmt: skip
    """The common MLIR Dump in a few slices, or None for `_dump` to read: IR whose last line
    closes it (`}`, an alias) with only blank lines after it, and a body that opens with its
    top-level op (`module {`, `func.func @f(...)`), whose scope is read once per line."""
    if header.family != "mlir" or header.stage or region_end - body_start < 2:
        return None
    tail = data[max(body_start, region_end - 256) : region_end]
    stripped = tail.rstrip(b"\r\n")
    nl = stripped.rfind(b"\n")
    if len(stripped) == len(tail) or nl < 0 or not stripped.startswith(ENDS_MLIR, nl + 1):
        return None
    if b"\t" in tail:  # an assembler's indent: a stage's output before the next header?
        return None
    if PATTERN_LOG_CLOSE.match(stripped, nl + 1):
        return None
    body_end = line_end(data, region_end - (len(tail) - len(stripped)))
    scope = header.scope
    if scope == "builtin.module" or data[body_start : body_start + 7] == b"module ":
        holds = "builtin.module"
    else:
        first = data[body_start : body_start + 512]
        eol = first.find(b"\n")
        line = first[: eol if eol >= 0 else len(first)]
        holds = _FIRST_OP.get(line) or ""
        if not holds:
            if _OPENS_WITH_OP.match(line):
                holds = infer_scope(data, body_start, body_end, "mlir")
                if len(_FIRST_OP) < 4096 and eol >= 0 and not symbol_after_regions(line):
                    _FIRST_OP[line] = holds
            else:
                holds = _aliased_scope(data, line, body_start, body_end)
    return Dump(
        index, stage, header.pass_name, header.arg, header.options, header.phase,
        scope or holds, "mlir", log_id, start, body_start, body_end, region_end, False, holds,
    )  # fmt: skip


def _stage_dumps_within(data: bytes, dump: Dump, region_end: int) -> list[tuple[int, int, Header]]:
    """The stage outputs (`scan.stage_dumps`) a Dump's region holds where its text does not
    end as IR does: its IR does not close (truncated before the next header), its last
    lines hold a tab (an assembler's indent; MLIR and LLVM printers indent with blanks), or
    lines that are no IR follow it. The header scan looks
    only where the language changes or a compile starts again."""
    if dump.family == "asm" or dump.body_end <= dump.body_start:
        return []
    tail = data[max(dump.body_start, dump.body_end - 256) : dump.body_end]
    if dump.truncated or b"\t" in tail or _machine_code_after_ir(data, dump, tail):
        lo = dump.body_start  # IR that does not close, an assembler's: looked into whole
    elif dump.end < region_end:
        lo = dump.end
    else:
        return []
    return list(stage_dumps(data, lo, region_end))


def _machine_code_after_ir(data: bytes, dump: Dump, tail: bytes) -> bool:
    """Whether LLVM IR ends in machine code: codegen's printer (`# After Instruction
    Selection:`) printed a function after it."""
    if dump.family[0] != "l" or b"# End machine code" not in tail:
        return False
    return data[dump.body_start : dump.body_start + 14] != b"# Machine code"


# First lines of bodies that open with their top-level op, and the scope each one names.
_FIRST_OP: dict[bytes, str] = {}
_OPENS_WITH_OP = re.compile(rb"[^#!\s]")


def _aliased_scope(data: bytes, first_line: bytes, body_start: int, body_end: int) -> str:
    """The scope of a body whose aliases (`#map = ...`) precede its op. Pass after pass prints
    the same aliases and op line: the bytes `infer_scope` read are kept for the body's first
    line, and a body that starts with the same bytes names the same scope, unsearched."""
    seen = _ALIASED.get(first_line)
    if seen is not None:
        prefix, holds = seen
        end = body_start + len(prefix)
        if end <= body_end and data[body_start:end] == prefix:
            return holds
    holds = infer_scope(data, body_start, body_end, "mlir")
    end = mlir_scope_look_end(data, body_start, body_end)
    if 0 < end <= body_start + 8192 and (seen is not None or len(_ALIASED) < 512):
        _ALIASED[first_line] = (data[body_start:end], holds)
    return holds


# First line of a body that opens with aliases -> (the bytes its scope was read from, scope).
_ALIASED: dict[bytes, tuple[bytes, str]] = {}


def _dump(
    data: bytes, header: Header, stage: str, log_id: int, index: int,
    start: int, body_start: int, region_end: int,
) -> Dump:  # fmt: skip
    """The Dump a header opens: where its IR ends, what it holds, its language."""
    family, scope = header.family, header.scope
    if header.stage and family != "asm":  # a stage's IR: the language its body is in
        language = body_language(data, body_start, region_end)
        family = "llvm" if language == "module" else "mlir" if language == "mlir" else family
    if family == "asm":  # a stage's assembly runs on to what can never be IR, blanks aside
        cut = asm_end(data, body_start, hard_stop(data, body_start - 1, region_end))
        body_end = len(data[body_start:cut].rstrip()) + body_start
        body_end = line_end(data, body_end) if body_end < cut else body_end
        truncated = body_end == len(data) and data[body_end - 1 : body_end] != b"\n"
        return Dump(
            index, stage, header.pass_name, header.arg, header.options, header.phase,
            scope, family, log_id, start, body_start, body_end, cut, truncated, scope,
        )  # fmt: skip
    if family[0] == "m" and not scope.startswith("cgscc"):  # MLIR: no LLVM unit to tell apart
        body_end, text_start, truncated = split_region(data, body_start, region_end, family)
        # a header with no IR after it (the log goes on with the next) shows no state
        holds = (
            _holds(data, body_start, body_end, scope, family) if body_end > body_start else NO_IR
        )
        return Dump(
            index, stage, header.pass_name, header.arg, header.options, header.phase,
            scope or holds, family, log_id, start, body_start, body_end,
            text_start, truncated, holds,
        )  # fmt: skip
    language = body_language(data, body_start, region_end)
    if family == "llvm-legacy" and language == "mlir":
        family = "mlir"  # the oldest MLIR printed LLVM's `*** IR Dump ... ***` banner
        scope = scope.replace("function @", "func @", 1)
    if language == "diff" and family.startswith("llvm"):
        return _diff_dump(data, header, stage, log_id, index, start, body_start, region_end)
    loop = family.startswith("llvm") and language in ("loop", "blocks")
    body_end, text_start, truncated = _llvm_split(data, body_start, region_end, family, loop)
    if loop:  # a loop printout holds the loop alone, a printout of blocks those blocks
        holds = scope = _blocks_scope(data, body_start, body_end, scope, language)
    elif scope.startswith("cgscc") and body_language(data, body_start, body_end) != "module":
        holds = scope  # the functions of one call-graph SCC
    elif body_end == body_start:  # a printer that printed no IR (`Printing <null> Function`)
        holds = NO_IR
    else:
        holds = _holds(data, body_start, body_end, header.scope, family)
        scope = _invalidated_unit(scope, holds, header.options)
    return Dump(
        index, stage, header.pass_name, header.arg, header.options, header.phase,
        scope or holds, family, log_id, start, body_start, body_end,
        text_start, truncated, holds,
    )  # fmt: skip


def _blocks_scope(data: bytes, body_start: int, body_end: int, scope: str, language: str) -> str:
    """The unit a printout of blocks holds: the loop its header names (legacy headers name
    no unit, older ones a block), the loop whose header block it shows, or (blocks alone: a
    legacy region pass's) the blocks from its first."""
    if scope.startswith("loop"):
        return scope
    head = loop_header(data, body_start, body_end)
    if head or language == "loop":
        return f"loop {head or scope.removeprefix('function @')}"
    return f"blocks from {first_block(data, body_start, body_end)}"


def _llvm_split(
    data: bytes, body_start: int, region_end: int, family: str, loop: bool
) -> tuple[int, int, bool]:
    """`split_region` of LLVM IR; a function's machine code ends with its `# End machine
    code for function` line, and what follows is output (flushed at exit: the assembly
    `llc -o -` prints, indented by tabs and read as unfinished IR, or the MIR of
    `-stop-after`, read as more of it)."""
    found = split_region(data, body_start, region_end, family, loop)
    if not loop:  # a function's or module's IR, where a pass's debug output may follow it
        stop = llvm_ir_stop(data, body_start, found[1], region_end, found[2])
        if stop < found[0]:
            return split_region(data, body_start, stop, family)
    if data[body_start : body_start + 14] != b"# Machine code":
        return found
    k = data.rfind(b"\n# End machine code for function ", body_start, found[0])
    nl = data.find(b"\n", k + 1, region_end) if k >= 0 else -1
    if nl < 0 or nl + 1 >= found[0]:  # no End line, the log ends on it, or it ends the IR
        return found
    return nl + 1, blank_run_end(data, nl + 1, region_end), False


# What a Dump holds when its header is followed by no IR at all: no state of any unit.
NO_IR = "no IR"


def _diff_dump(
    data: bytes, header: Header, stage: str, log_id: int, index: int,
    start: int, body_start: int, region_end: int,
) -> Dump:  # fmt: skip
    """LLVM's `-print-changed=diff` (and `cdiff`): the body is a diff against the unit's
    state before the pass, not a state. It holds "diff of <unit>" (no state follows it
    or precedes it) and says `diff` in its options."""
    # Any line can end a diff, an indented one too: what can never be IR ends it first.
    cut = hard_stop(data, body_start - 1, region_end)
    body_end, text_start, truncated = split_region(data, body_start, cut, "diff", True)
    scope = header.scope or "module"
    options = f"{header.options} diff".lstrip()
    return Dump(
        index, stage, header.pass_name, header.arg, options, header.phase, scope,
        header.family, log_id, start, body_start, body_end, text_start, truncated,
        f"diff of {scope}",
    )  # fmt: skip


def _invalidated_unit(scope: str, holds: str, options: str) -> str:
    """A pass that invalidated its loop names the loop by its header block (`on bb1
    (invalidated)`) and prints the whole function: that name is a loop of that function."""
    if options != "invalidated" or not scope.startswith("function @"):
        return scope
    if not holds.startswith("function @") or holds == scope:
        return scope
    return f"loop %{scope.removeprefix('function @')} in {holds}"


def _holds(data: bytes, body_start: int, body_end: int, scope: str, family: str) -> str:
    """The scope the IR text holds (cheap for the common `module {` start)."""
    if scope == "builtin.module" or data[body_start : body_start + 7] == b"module ":
        return "builtin.module"
    return infer_scope(data, body_start, body_end, family)


def _add_banner(
    out: LogIndex, data: bytes, start: int, end: int, header: Header,
    stage: str, log_id: int, after: int,
) -> None:  # fmt: skip
    """A banner line: a Message tied to its pass, in a text segment of its own."""
    out.segments.append(Segment("text", start, end))
    text = data[start:end].rstrip(b"\r\n").decode("utf-8", "replace")
    out.messages.append(
        Message(stage, after, "info", text, log_id, start, end, header.pass_name, header.banner)
    )


def _add_text(
    out: LogIndex, data: bytes, start: int, end: int, stage: str, log_id: int, after: int
) -> None:
    """Record [start, end) as a text segment and its non-blank lines as Messages."""
    if start >= end:
        return
    out.segments.append(Segment("text", start, end))
    pos = start
    while pos < end:
        nl = data.find(b"\n", pos, end)
        stop = end if nl < 0 else nl + 1
        line = data[pos:stop].rstrip(b"\r\n")
        if line.strip():
            out.messages.append(_message(line, stage, after, log_id, pos, stop))
        pos = stop


def _message(line: bytes, stage: str, after: int, log_id: int, start: int, end: int) -> Message:
    """A non-IR line, classified by level."""
    text = line.decode("utf-8", "replace")
    return Message(stage, after, message_level(line), text, log_id, start, end)
