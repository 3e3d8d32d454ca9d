"""Logs whose every line carries a prefix: CI timestamps (`2026-12-01T10:00:00.1234567Z `,
`[2026-12-01 10:00:00] `), launchers' stream tags (`[rank0]:`, `[1,0]<stderr>:`,
`svc-1  | `, `[pod/x/c] `), or both.

A header line that other output precedes (`reader.LogIndex.leads`) is a prefixed one when
the line after it starts with the same prefix, its timestamps aside. Each distinct prefix
is a stream (two ranks printing their own dumps, line by line interleaved, are two): the
lines of one stream, their prefixes stripped, are read as a log of their own, and every
offset read there is mapped back into the file, so Dumps stay byte offsets into the log as
written while their IR is the text the compiler printed.
"""

from __future__ import annotations

import bisect
import re
from array import array
from dataclasses import dataclass, field

from ascend_ir_lab.dumps.reader import LogIndex

MAX_STREAMS = 64  # distinct prefixes read as streams; lines of others stay text

# Timestamps and elapsed times, which differ from line to line of one stream; the padding
# before a right-aligned number (`[    1.234]`) varies with it.
_STAMP = re.compile(
    rb" *(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"
    rb"|\d\d:\d\d:\d\d(?:[.,]\d+)?|\d+\.\d+s?)"
)
_TRAILING_SPACE = re.compile(rb"[ \t]+$")
# Colour escapes a terminal capture leaves in a prefix (`\x1b[36msvc-1  |\x1b[0m `).
_ESCAPE = re.compile(rb"\x1b\[[0-9;]*m")


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
    """`text` as a pattern, colour escapes in it any colour escape."""
    out, pos = [], 0
    for m in _ESCAPE.finditer(text):
        out.append(re.escape(text[pos : m.start()]) + rb"\x1b\[[0-9;]*m")
        pos = m.end()
    out.append(re.escape(text[pos:]))
    return b"".join(out)


@dataclass
class Stream:
    """The lines of a log that carry one prefix (or, for `prefix` b"", those that carry
    none), their prefixes stripped: `text`, and where each line lies in the file."""

    prefix: bytes  # the first prefix seen, as written (b"": the lines without one)
    pattern: re.Pattern[bytes] | None
    text: bytes = b""
    starts: array[int] = field(default_factory=lambda: array("q"))  # each line in `text`
    sources: array[int] = field(default_factory=lambda: array("q"))  # each line in the file
    cuts: array[int] = field(default_factory=lambda: array("q"))  # each line's prefix length
    size: int = 0  # the file's size

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
    """The patterns of the prefixes that header lines carry and the line after each carries
    too (the other leads are output a header was glued to: no prefix)."""
    found: dict[bytes, None] = {}
    for line_start, header_start in leads:
        lead = bytes(data[line_start:header_start])
        if b"\r" in lead or not lead.strip():
            continue  # progress text overwritten in place, or only blanks: no prefix
        pattern = prefix_pattern(lead)
        if pattern in found:
            continue
        nl = data.find(b"\n", header_start)
        if nl < 0:
            continue
        following = bytes(data[nl + 1 : nl + 1 + len(lead) + 64])
        if re.match(pattern, following):
            found[pattern] = None
            if len(found) >= MAX_STREAMS:
                break
    return list(found)


def split_streams(data: bytes, patterns: list[bytes]) -> list[Stream]:
    """`data` split into one Stream per prefix pattern, and one (first) of the lines that
    carry none; every line of `data` in exactly one of them."""
    plain = Stream(b"", None, size=len(data))
    compiled = [re.compile(p) for p in patterns]
    streams = [Stream(b"", p, size=len(data)) for p in compiled]
    texts: list[list[bytes]] = [[] for _ in range(len(streams) + 1)]
    lengths = [0] * (len(streams) + 1)
    whole = bytes(data)
    pos, size, last = 0, len(whole), 0
    while pos < size:
        nl = whole.find(b"\n", pos)
        stop = size if nl < 0 else nl + 1
        line = whole[pos:stop]
        k, cut = -1, 0
        m = compiled[last].match(line) if compiled else None
        if m is not None:
            k, cut = last, m.end()
        else:
            for j, pattern in enumerate(compiled):
                m = pattern.match(line)
                if m is not None:
                    k, cut, last = j, m.end(), j
                    break
        s = streams[k] if k >= 0 else plain
        if k >= 0 and not s.prefix:
            s.prefix = line[:cut]
        slot = k + 1
        s.starts.append(lengths[slot])
        s.sources.append(pos)
        s.cuts.append(cut)
        texts[slot].append(line[cut:] if cut else line)
        lengths[slot] += stop - pos - cut
        pos = stop
    for s, parts in zip((plain, *streams), texts, strict=True):
        s.text = b"".join(parts)
    return [plain, *streams]


def to_source(idx: LogIndex, stream: Stream) -> LogIndex:
    """`idx`, read from `stream.text`, with every offset mapped into the file."""
    at = stream.source
    for d in idx.dumps:
        d.start, d.body_start = at(d.start), at(d.body_start)
        d.body_end, d.end = at(d.body_end), at(d.end)
    for m in idx.messages:
        m.start, m.end = at(m.start), at(m.end)
    for g in idx.segments:
        g.start, g.end = at(g.start), at(g.end)
    return idx
