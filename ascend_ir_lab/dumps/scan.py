"""Find the header lines of a log with a plain byte search.

Header lines repeat (a pipeline runs the same passes again and again), so each distinct
header line is parsed once. A header that other output precedes on its line (a prefix
every line carries, progress text printed without a newline, colour escapes) is found
where it starts on that line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import repeat

from ascend_ir_lab.dumps.headers import Header, parse_header
from ascend_ir_lab.record import replace

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from typing import Any

# Every header and banner line holds one of these (`IR Dump`, `IR Pass`, `IR Deleted After`,
# `-print-on-crash`'s `IR Before Last Pass`), and so does the line of a stage's IR that a
# driver prints (`// -----// LLVM IR`, `// -----// Dumped CudaTile IR //----- //`); the
# match runs on to the end of its line.
_LITERALS = (
    b"IR Dump", b"IR Pass ", b"IR Deleted After ", b"IR Before Last Pass ", b"IR //----- //",
    b"IR\r", b"IR\n",
)  # fmt: skip
# one pattern led by their common `IR` (the regex engine searches for a literal prefix); a
# line end after it is looked at, not taken
_ALTERNATIVES = (
    b"IR(?:"
    + b"|".join(re.escape(literal[2:]) for literal in _LITERALS if literal[2:] != b"\n")
    + b"|(?=\n))"
)
_CANDIDATE = re.compile(_ALTERNATIVES)
CANDIDATE_LINE = re.compile(_ALTERNATIVES + rb"[^\n]*")
_LONGEST = max(map(len, _LITERALS))
# A stage's output a compiler driver prints between the pass dumps (Triton's `// -----//
# NVPTX Dump //----- //`) holds none of them. It follows a compile's last pass dump: it is
# looked for only where one can be (`_may_hold_stage_dump`), not in the whole log.
# So does the banner of codegen's machine-code printer (`# After Instruction Selection:`).
_STAGE_DUMP = re.compile(
    rb"\n(?:// -----// (?!IR Dump[ \r\n])[A-Za-z]|# After [^\n]{1,80}:\r?\n# Machine code for )"
)


def find_headers(
    data: bytes, lo: int = 0, hi: int | None = None
) -> Iterator[tuple[int, int, Header]]:
    """Yield (start, line_end_incl_newline, Header) for each header line, in order (those
    in [lo, hi) when given: `lo` a line start, `hi` one or the end). `start` is the line's
    start, or where the header starts on it when other output precedes it (`lead`).

    Banners (headers of passes that printed no IR) are yielded too: they end the IR before them,
    and so are the headers of stage outputs (`stage_dumps`) where one can be.
    """
    stop = len(data) if hi is None else hi
    prev: tuple[int, int, Header] | None = None
    # the log's first pass, which a next compile starts with again (a part read on its own
    # core looks it up: its own first header is any pass)
    start = next(_headers(data, 0, None), None) if lo else None
    first = start[2] if start is not None else None
    for found in _headers(data, lo, hi):
        if prev is None:
            first = first or found[2]
            yield from stage_dumps(data, lo, found[0])
        else:
            yield prev
            if _may_hold_stage_dump(prev, found, first or found[2]):
                yield from stage_dumps(data, prev[1], found[0])
        prev = found
    if prev is not None:
        yield prev
        yield from stage_dumps(data, prev[1], stop)
    else:
        yield from stage_dumps(data, lo, stop)


def _headers(data: bytes, lo: int, hi: int | None) -> Iterator[tuple[int, int, Header]]:
    """`find_headers` without the stage dumps."""
    cache: dict[bytes, Header | None] = {}
    leads: dict[bytes, tuple[int, Header] | None] = {}
    blocks = getattr(data, "regex_find", None) is not None  # a compressed log read by block
    for start, end in _block_lines(data) if blocks else _candidate_lines(data, lo, hi):
        raw = data[start:end]
        header = cache.get(raw, _UNSEEN)
        if header is _UNSEEN:
            header = cache[raw] = _parse(raw)
        if header is not None:
            yield start, end, header  # type: ignore[misc]
        elif (cut := _lone_cr_header(raw)) is not None:
            yield start + cut[0], start + cut[1], cut[2]
        elif (found := _lead(raw, leads)) is not None:
            yield start + found[0], end, found[1]


_LONE_CR = re.compile(rb"\r(?!\r?\n)")  # a carriage return that ends a line alone


def _lone_cr_header(raw: bytes) -> tuple[int, int, Header] | None:
    """(start, end incl. its `\r`, Header) of a header whose line ends in a carriage return
    alone (an old tool's line ends, a terminal's capture) inside `raw`, a line that ends in
    a newline: the Header says `lone_cr`, for the log to be read again with such line ends
    as newlines (`builder.cr_lines`)."""
    if _LONE_CR.search(raw) is None:
        return None
    m = _CANDIDATE.search(raw)
    if m is None:
        return None
    lo = max(raw.rfind(b"\r", 0, m.start()), raw.rfind(b"\n", 0, m.start())) + 1
    cr = _LONE_CR.search(raw, m.start())
    if cr is None:
        return None
    header = _parse(raw[lo : cr.start()])
    if header is None:
        return None
    return lo, cr.start() + 1, replace(header, lone_cr=True)


def _may_hold_stage_dump(
    prev: tuple[int, int, Header], nxt: tuple[int, int, Header], first: Header
) -> bool:
    """Whether a stage's output can lie between two headers: where the language changes
    (MLIR to LLVM, LLVM to the next compile's MLIR) or where the log's first pass comes
    again (the next compile of a script, its options perhaps another kernel's). The
    reader looks into any other gap whose text does not end as IR does (`reader`)."""
    if (prev[2].family[0] == "m") != (nxt[2].family[0] == "m"):
        return True
    return nxt[2].pass_name == first.pass_name and nxt[2].phase == first.phase


def stage_dumps(data: bytes, lo: int, hi: int) -> Iterator[tuple[int, int, Header]]:
    """(start, end incl. newline, Header) of each stage-output header line starting in
    [lo, hi) (`lo` a line start)."""
    first = data[:11]
    if lo == 0 and (first == b"// -----// " or first[:8] == b"# After "):  # no newline before
        if (found := _stage_dump_at(data, 0)) is not None:
            yield found
    blocks = getattr(data, "regex_find", None) is not None
    pos = max(lo - 1, 0)  # the newline before `lo`
    while pos < hi:
        if blocks:
            k = data.regex_find(_STAGE_DUMP, pos)  # type: ignore[attr-defined]
        else:
            m = _STAGE_DUMP.search(data, pos, hi)
            k = -1 if m is None else m.start()
        if k < 0 or k + 1 >= hi:
            return
        found = _stage_dump_at(data, k + 1)
        if found is not None:
            yield found
        pos = found[1] - 1 if found is not None else k + 1


def _stage_dump_at(data: bytes, start: int) -> tuple[int, int, Header] | None:
    """The stage dump whose line starts at `start`, if it is one (a line that holds
    `IR Dump`, such as `LLVM IR Dump`, the plain search finds)."""
    nl = data.find(b"\n", start)
    end = len(data) if nl < 0 else nl + 1
    raw = data[start:end]
    header = None if _CANDIDATE.search(raw) else _parse(raw)  # the header scan's
    return None if header is None else (start, end, header)


def _candidate_lines(data: bytes, lo: int, hi: int | None) -> Iterator[tuple[int, int]]:
    """(start, end incl. newline) of each line in [lo, hi) that may hold a header: the
    lines `CANDIDATE_LINE` finds, found by the `R` of `IR ` (a byte rare in IR, which a
    byte search skips to at memory speed, faster than the pattern's own search). Where
    that byte is common the pattern searches on, the further the more windows in a row
    it is common in."""
    find, rfind, size = data.find, data.rfind, len(data)
    end = size if hi is None else hi
    pos = floor = lo  # searched on from `pos`; a header starts at `floor` or later
    common = 0  # windows in a row where the byte was common
    literals, longest = _LITERALS, _LONGEST
    while pos < end:
        window = min(end, pos + _WINDOW)
        for _ in repeat(None, _LOOKS):  # the fewest bytecodes per `R`: most are no header
            k = find(b"R", pos, window)
            if k < 0:
                pos = window
                break
            # `I` (73) before it, read as a number: no slice for the many that miss
            if (
                data[k - 1] != 73
                or k <= floor
                or not data[k - 1 : min(k - 1 + longest, end)].startswith(literals)
            ):
                pos = k + 1
                continue
            nl = find(b"\n", k, end)
            stop = end if nl < 0 else nl
            yield rfind(b"\n", 0, k) + 1, stop + 1 if stop < size else size
            pos = floor = stop
            if pos >= window:
                break
        else:  # the byte is common here: the pattern searches on
            common = min(common + 1, 10)
            reach = pos + (_WINDOW << common)
            for m in CANDIDATE_LINE.finditer(data, pos, end):
                stop = m.end()
                yield rfind(b"\n", 0, m.start()) + 1, stop + 1 if stop < size else size
                pos = floor = stop
                if pos >= reach:
                    break
            else:
                return
            continue
        common = 0


_WINDOW = 1 << 20  # bytes searched at a time
_LOOKS = 1536  # `R`s looked at in a window before the pattern searches on


_UNSEEN = object()
# Where a header can start after other output on its line, and the colour escapes a
# terminal capture (`script`, `unbuffer`) leaves around it.
_OPENER = re.compile(rb"// -----// |(?:; |# )?\*\*\* (?:IR |Dump of )")
_ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\n]*\x07")
# What precedes a header on its line unseen: colour escapes, blanks, NUL bytes, and the
# byte-order mark an editor or PowerShell writes at the start of a file.
_INVISIBLE = re.compile(rb"(?:\x1b\[[0-9;?]*[A-Za-z]|[\x00\s]|\xef\xbb\xbf)*")


def _parse(raw: bytes) -> Header | None:
    line = raw.decode("utf-8", "replace").rstrip("\r\n")
    return None if "\r" in line else parse_header(line)  # `\r` inside: more than one line


def _lead(raw: bytes, leads: dict[bytes, tuple[int, Header] | None]) -> tuple[int, Header] | None:
    """`lead` of a line that is no header, read once per distinct line."""
    if raw in leads:
        return leads[raw]
    found = leads[raw] = lead(raw)
    return found


def lead(raw: bytes) -> tuple[int, Header] | None:
    """For a line that is no header as it stands: (offset, Header) of a header that other
    output precedes on it (a line prefix, progress text without a newline, colour escapes),
    offset 0 where only escapes, blanks and NUL bytes precede it; else None."""
    for m in _OPENER.finditer(raw):
        k = m.start()
        if raw.endswith(b"// ", 0, k):
            # `// *** IR Dump After Successful Folding ***` after a debug tag (`[greedy-rewriter
            # file.cpp:185 1] `): a pattern driver's debug log, every line tagged, no dump
            continue
        if raw.count(b'"', 0, k) % 2:
            # inside a string the IR holds (LLVM's `c"*** IR Dump After f ***\00"`, MLIR's
            # `llvm.mlir.global ... ("...")`): its text, no header
            continue
        rest = raw[k:]
        header = _parse(_ANSI.sub(b"", rest) if b"\x1b" in rest else rest)
        if header is not None:
            return (0 if _INVISIBLE.fullmatch(raw, 0, k) else k), header
    return None


def _block_lines(data: Any) -> Iterator[tuple[int, int]]:
    """`_candidate_lines` over a BlockText: each search runs over the blocks it needs."""
    find, rfind, size = data.find, data.rfind, len(data)
    pos = 0
    while True:
        k = data.regex_find(_CANDIDATE, pos)
        if k < 0:
            return
        nl = find(b"\n", k)
        pos = size if nl < 0 else nl + 1
        yield rfind(b"\n", 0, k) + 1, pos
