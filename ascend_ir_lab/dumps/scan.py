"""Find the header lines of a log with a plain byte search.

Header lines repeat (a pipeline runs the same passes again and again), so each distinct
header line is parsed once. A header that other output precedes on its line (a prefix
every line carries, progress text printed without a newline, colour escapes) is found
where it starts on that line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ascend_ir_lab.dumps.headers import Header, parse_header

# Every header and banner line holds one of these (`IR Dump`, `IR Pass`, `IR Deleted After`);
# the match runs on to the end of its line.
_CANDIDATE = re.compile(rb"IR (?:Dump|Pass |Deleted After )")
CANDIDATE_LINE = re.compile(rb"IR (?:Dump|Pass |Deleted After )[^\n]*")


def find_headers(
    data: bytes, lo: int = 0, hi: int | None = None
) -> Iterator[tuple[int, int, Header]]:
    """Yield (start, line_end_incl_newline, Header) for each header line, in order (those
    in [lo, hi) when given: `lo` a line start, `hi` one or the end). `start` is the line's
    start, or where the header starts on it when other output precedes it (`lead`).

    Banners (headers of passes that printed no IR) are yielded too: they end the IR before them.
    """
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
        elif (found := _lead(raw, leads)) is not None:
            yield start + found[0], end, found[1]


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
    while pos < end:
        window = min(end, pos + _WINDOW)
        misses = 0
        while misses < _MISSES:
            k = find(b"R", pos, window)
            if k < 0:
                pos = window
                break
            if (
                data[k - 1 : k + 2] == b"IR "
                and k > floor
                and data[k - 1 : min(k + 16, end)].startswith(_LITERALS)
            ):
                nl = find(b"\n", k, end)
                stop = end if nl < 0 else nl
                yield rfind(b"\n", 0, k) + 1, stop + 1 if stop < size else size
                pos = floor = stop
                if pos >= window:
                    break
            else:
                pos = k + 1
                misses += 1
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


_LITERALS = (b"IR Dump", b"IR Pass ", b"IR Deleted After ")  # what CANDIDATE_LINE starts with
_WINDOW = 1 << 20  # bytes searched at a time
_MISSES = 1536  # `R`s of no header in a window before the pattern searches on


_UNSEEN = object()
# Where a header can start after other output on its line, and the colour escapes a
# terminal capture (`script`, `unbuffer`) leaves around it.
_OPENER = re.compile(rb"// -----// |(?:; |# )?\*\*\* IR ")
_ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\n]*\x07")
_INVISIBLE = re.compile(rb"(?:\x1b\[[0-9;?]*[A-Za-z]|[\x00\s])*")


def _parse(raw: bytes) -> Header | None:
    return parse_header(raw.decode("utf-8", "replace").rstrip("\r\n"))


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
