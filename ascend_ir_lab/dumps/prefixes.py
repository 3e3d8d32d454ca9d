"""Logs whose every line carries a prefix: CI timestamps (`2026-12-01T10:00:00.1234567Z `,
`[2026-12-01 10:00:00] `), launchers' stream tags (`[rank0]:`, `[1,0]<stderr>:`,
`svc-1  | `, `[pod/x/c] `), or both; or an indent alike on every line (a log pasted from
Markdown, `indent_prefix`).

A header line that other output precedes (`reader.LogIndex.leads`) is a prefixed one when
the lines after it (other streams' lines between) carry the same prefix, its timestamps and
escapes aside; else the header was glued to other output. Each distinct prefix
is a stream (two ranks printing their own dumps, line by line interleaved, are two): the
lines of one stream, their prefixes stripped, are read as a log of their own, and every
offset read there is mapped back into the file, so Dumps stay byte offsets into the log as
written while their IR is the text the compiler printed.
"""

from __future__ import annotations

import bisect
import codecs
import re
from array import array
from itertools import accumulate

from ascend_ir_lab.dumps.reader import LogIndex

MAX_STREAMS = 64  # distinct prefixes read as streams; lines of others stay text
_BOM = codecs.BOM_UTF8  # the byte-order mark an editor or PowerShell writes first

# Timestamps and elapsed times, which differ from line to line of one stream; the padding
# before a right-aligned number (`[    1.234]`) varies with it.
# The padding is taken whole, from the first blank of a run (`(?<! ) *+`): ` *` tried again
# from every blank of a 100 000-blank prefix is quadratic time, and finds the same stamps.
_STAMP = re.compile(
    rb"(?<! ) *+(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"
    rb"(?: [0-9a-f]{2}[OE]\+?(?= ))?"  # GitLab's stream after it: `00O`, `01E`, `00O+`
    rb"|\d\d:\d\d:\d\d(?:[.,]\d+)?|\d+\.\d+s?)"
)
_TRAILING_SPACE = re.compile(rb"[ \t]+$")
# Escapes in a prefix: colours a terminal capture leaves (`\x1b[36msvc-1  |\x1b[0m `) and
# the application and operating-system commands a CI writes before each line (Buildkite's
# `\x1b_bk;t=1764583200123\x07` timestamp), any of their kind on each line.
_ESCAPE = re.compile(rb"\x1b\[[0-9;]*m|\x1b[_\]][^\x07\x1b]*(?:\x07|\x1b\\)")
_ESCAPE_PATTERN = _ESCAPE.pattern


def prefix_pattern(lead: bytes) -> bytes:
    """The pattern of the lines that carry the prefix `lead`: its text as written, its
    timestamps any timestamp, its trailing blank optional before an empty line's end."""
    out, pos = [], 0
    for m in _STAMP.finditer(lead):
        out.append(_literal(lead[pos : m.start()]))
        out.append(_STAMP.pattern)
        pos = m.end()
    tail = lead[pos:]
    space = _TRAILING_SPACE.search(tail)
    if space is not None:
        out.append(_literal(tail[: space.start()]))
        out.append(rb"(?:" + re.escape(space.group()) + rb"|(?=\r?$))")
    else:
        out.append(_literal(tail))
    return b"".join(out)


def _literal(text: bytes) -> bytes:
    """`text` as a pattern, each escape in it any escape of its kind."""
    out, pos = [], 0
    for m in _ESCAPE.finditer(text):
        out.append(re.escape(text[pos : m.start()]) + rb"(?:" + _ESCAPE_PATTERN + rb")")
        pos = m.end()
    out.append(re.escape(text[pos:]))
    return b"".join(out)


class Stream:
    """The lines of a log that carry one prefix (or, for `prefix` b"", those that carry
    none), their prefixes stripped: `text`, and where each line lies in the file."""

    __slots__ = ("prefix", "pattern", "text", "starts", "sources", "cuts", "size")

    def __init__(self, prefix: bytes, pattern: re.Pattern[bytes] | None, *, size: int) -> None:
        self.prefix = prefix  # the first prefix seen, as written (b"": the lines without one)
        self.pattern = pattern
        self.text = b""
        self.starts = array("q")  # each line in `text`
        self.sources = array("q")  # each line in the file
        self.cuts = array("q")  # each line's prefix length
        self.size = size  # the file's size

    def source(self, pos: int) -> int:
        """The file offset of offset `pos` of `text` (a line's start maps to its prefix)."""
        if not self.starts:
            return 0
        if pos >= len(self.text):
            i = len(self.starts) - 1
            return min(self.sources[i] + self.cuts[i] + (pos - self.starts[i]), self.size)
        i = bisect.bisect_right(self.starts, pos) - 1
        off = pos - self.starts[i]
        return self.sources[i] + (self.cuts[i] + off if off else 0)

    def source_end(self, pos: int) -> int:
        """The file offset of the end of a range that ends at `pos` of `text`: one past
        the file byte of its last byte (the lines of other streams after it not in it)."""
        if pos <= 0 or not self.starts:
            return self.source(0)
        i = bisect.bisect_right(self.starts, pos - 1) - 1
        return self.sources[i] + self.cuts[i] + (pos - self.starts[i])

    def local(self, pos: int) -> int:
        """The offset in `text` of file offset `pos` (the inverse of `source`)."""
        if not self.sources:
            return 0
        i = max(0, bisect.bisect_right(self.sources, pos) - 1)
        return self.starts[i] + max(0, pos - self.sources[i] - self.cuts[i])

    def body(self, start: int, end: int) -> bytes:
        """The stripped text of file range [start, end) of this stream."""
        return self.text[self.local(start) : self.local(end)]


def line_prefixes(data: bytes, leads: list[tuple[int, int]]) -> list[bytes]:
    """The patterns of the prefixes that header lines carry and the lines after them carry
    too (the other leads are output a header was glued to: no prefix)."""
    found: dict[bytes, None] = {}
    rejected: set[bytes] = set()  # each distinct lead is looked after once
    for line_start, header_start in leads:
        lead = bytes(data[line_start:header_start]).removeprefix(_BOM)
        if b"\r" in lead or not lead.strip():
            continue  # progress text overwritten in place, or only blanks: no prefix
        if lead[:1] in b" \t" and _STAMP.match(lead) is None:
            continue  # an indented line cut short (stdout flushed before a header): no prefix
        pattern = prefix_pattern(lead)
        if pattern in found or pattern in rejected:
            continue
        if not _carried(data, re.compile(pattern), header_start):
            rejected.add(pattern)
            continue
        found[pattern] = None
        if len(found) >= MAX_STREAMS:
            break
    return list(found)


def indent_prefix(data: bytes, start: int, end: int) -> bytes | None:
    """The pattern of the indent every line of an indented log carries (a log pasted from
    Markdown or an issue, a wrapper that indents what it runs), from its first header line
    [start, end): the blanks that open it, where the first non-blank line after it (the
    IR a Dump opens at column 0, or the next header) carries the same blanks before its
    text; else None. A header indented alone is no prefix."""
    m = _INDENT.match(bytes(data[start : min(end, start + 64)]))
    if m is None:
        return None
    after = _NEXT_TEXT.match(bytes(data[end : end + 4096]))  # a slice: a block-read log too
    if after is None or after["indent"] != m.group():
        return None
    return prefix_pattern(m.group())


_INDENT = re.compile(rb"[ \t]+(?=\S)")
_NEXT_TEXT = re.compile(rb"(?:[ \t]*\r?\n)*(?P<indent>[ \t]*)\S")


_LOOK_LINES = 256  # lines after a header looked at for its prefix (other streams between)


def _carried(data: bytes, pattern: re.Pattern[bytes], header_start: int) -> bool:
    """Whether one of the lines after the header at `header_start` that holds no header
    itself carries the prefix `pattern` (a header's own prefix can be glued text: then the
    IR after it carries none, whatever the next header line carries)."""
    pos = data.find(b"\n", header_start) + 1
    for _ in range(_LOOK_LINES):
        if pos <= 0 or pos >= len(data):
            return False
        nl = data.find(b"\n", pos, pos + 65536)
        line = bytes(data[pos : nl if nl >= 0 else pos + 65536])
        if b"IR Dump" not in line and pattern.match(line):
            return True
        pos = nl + 1
    return False


def split_streams(data: bytes, patterns: list[bytes]) -> list[Stream]:
    """`data` split into one Stream per prefix pattern, and one (first) of the lines that
    carry none; every line of `data` in exactly one of them (a line two patterns match in
    the first's). One search over the file: the alternative that matched a line names its
    stream (each alternative holds one group, the line after the prefix)."""
    whole = bytes(data)
    line = rb"([^\n]*(?:\n|\Z))"
    # the first line's prefix may follow the file's byte-order mark: both are stripped
    alternatives = [rb"(?:\A" + _BOM + rb")?(?:" + p + rb")" + line for p in patterns] + [line]
    search = re.compile(rb"^(?:" + b"|".join(alternatives) + rb")", re.M)
    sources: list[list[int]] = [[] for _ in alternatives]
    cuts: list[list[int]] = [[] for _ in alternatives]
    pieces: list[list[bytes]] = [[] for _ in alternatives]
    last = len(alternatives)
    prev = last
    for m in search.finditer(whole):
        k = m.lastindex or 0
        start, body, piece = m.start(), m.start(k), m.group(k)
        if m.end() == start:
            continue  # the end of the file after its last newline
        if k == last and prev < last and m.end() == len(whole) and whole[-1:] != b"\n":
            if _cut_prefix(piece, whole, sources[prev - 1][-1], cuts[prev - 1][-1]):
                k = prev  # a log cut inside a line's prefix: the fragment ends its stream
                body = start
        prev = k
        sources[k - 1].append(start)
        cuts[k - 1].append(body - start)
        pieces[k - 1].append(piece)
    out = []
    for k in range(len(alternatives)):
        own = k < len(patterns)
        stream = Stream(b"", re.compile(patterns[k]) if own else None, size=len(whole))
        stream.sources, stream.cuts = array("q", sources[k]), array("q", cuts[k])
        stream.starts = array("q", accumulate(map(len, pieces[k]), initial=0))
        stream.starts.pop()
        stream.text = b"".join(pieces[k])
        if own and sources[k]:
            stream.prefix = whole[sources[k][0] : sources[k][0] + cuts[k][0]].removeprefix(_BOM)
        out.append(stream)
    return [out[-1], *out[:-1]]


def _cut_prefix(tail: bytes, whole: bytes, line: int, cut: int) -> bool:
    """Whether an unterminated last line is the start of a prefix cut short: no longer than
    the line before's prefix and of its shape (digits where it has digits, its other bytes)."""
    prefix = whole[line : line + cut]
    if not tail or len(tail) >= len(prefix):
        return False
    return all(
        a == b or (a in _DIGITS and b in _DIGITS)
        for a, b in zip(tail, prefix[: len(tail)], strict=True)
    )


_DIGITS = frozenset(b"0123456789")
_TAG_PART = re.compile(rb"[\w.,/-]+")


def stream_tag(stream: Stream, k: int) -> str:
    """A short name of a stream from its prefix, timestamps and escapes aside (`rank0`,
    `1,0-stderr`, `compiler-1`); `stream<k>` where the prefix names nothing else."""
    text = _STAMP.sub(b" ", _ESCAPE.sub(b"", stream.prefix))
    tag = b"-".join(_TAG_PART.findall(text)).decode("utf-8", "replace")
    return tag or f"stream{k}"


def to_source(idx: LogIndex, stream: Stream) -> LogIndex:
    """`idx`, read from `stream.text`, with every offset mapped into the file."""
    at, to = stream.source, stream.source_end
    for d in idx.dumps:
        d.start, d.body_start = at(d.start), at(d.body_start)
        d.body_end, d.end = to(d.body_end), to(d.end)
    for m in idx.messages:
        m.start, m.end = at(m.start), to(m.end)
    for g in idx.segments:
        g.start, g.end = at(g.start), to(g.end)
    return idx
