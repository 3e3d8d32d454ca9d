"""Index one log: find every header with a plain byte search, then split the regions.

The reader never copies the log: it keeps offsets. Header lines repeat (a pipeline runs the
same passes again and again), so each distinct header line is parsed once.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from ascend_ir_lab.dumps.body import infer_scope, ir_end, message_level
from ascend_ir_lab.dumps.headers import MARKER, Header, parse_header
from ascend_ir_lab.dumps.model import Dump, Message, Segment


@dataclass
class LogIndex:
    """What one log holds: Dumps, Messages, the Segments that reassemble it, and warnings."""

    dumps: list[Dump] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def find_headers(data: bytes) -> Iterator[tuple[int, int, Header]]:
    """Yield (line_start, line_end_incl_newline, Header) for each header line, in order."""
    cache: dict[bytes, Header | None] = {}
    find, rfind = data.find, data.rfind
    size = len(data)
    pos = 0
    while True:
        k = find(MARKER, pos)
        if k < 0:
            return
        start = rfind(b"\n", 0, k) + 1
        nl = find(b"\n", k)
        end = size if nl < 0 else nl + 1
        pos = end
        raw = data[start:end]
        try:
            header = cache[raw]
        except KeyError:
            header = cache[raw] = parse_header(raw.decode("utf-8", "replace").rstrip("\r\n"))
        if header is not None:
            yield start, end, header


def index_log(data: bytes, *, stage: str, log_id: int, first_index: int = 0) -> LogIndex:
    """Index `data` (bytes or mmap) into Dumps and Messages; lossless by construction."""
    out = LogIndex()
    headers = list(find_headers(data))
    size = len(data)
    _add_text(out, data, 0, headers[0][0] if headers else size, stage, log_id, first_index - 1)
    for n, (start, body_start, header) in enumerate(headers):
        region_end = headers[n + 1][0] if n + 1 < len(headers) else size
        index = first_index + n
        body_end, text_start, truncated = _split_region(data, body_start, region_end, header)
        holds = _holds(data, body_start, body_end, header)
        dump = Dump(
            index, stage, header.pass_name, header.arg, header.options, header.phase,
            header.scope or holds, header.family, log_id, start, body_start, body_end,
            text_start, truncated, holds,
        )  # fmt: skip
        out.dumps.append(dump)
        out.segments.append(Segment("dump", start, text_start, index))
        _add_text(out, data, text_start, region_end, stage, log_id, index)
        if truncated and n + 1 == len(headers):
            out.warnings.append(
                f"stage {stage}: the last dump ({header.pass_name}) is truncated: "
                "the log ends in the middle of its IR"
            )
    return out


def _split_region(
    data: bytes, body_start: int, region_end: int, header: Header
) -> tuple[int, int, bool]:
    """Fast path for the common shape `...\n}\n\n<next header>`; else scan back line by line."""
    tail = data[max(body_start, region_end - 16) : region_end]
    stripped = tail.rstrip(b"\n")
    if stripped.endswith(b"\n}") and len(stripped) < len(tail):
        # `}` at column 0 closes the top-level op: nothing after it but blank lines.
        return region_end - (len(tail) - len(stripped)) + 1, region_end, False
    # Text that can never be IR (a traceback, a crash report) ends the IR wherever it starts,
    # even if IR-looking lines (indented frames, dotted exception names) follow it.
    cut = min(
        (k + 1 for k in (data.find(m, body_start - 1, region_end) for m in _HARD_STOPS) if k >= 0),
        default=region_end,
    )
    return ir_end(data, body_start, cut, header.family)


_HARD_STOPS = (
    b"\nTraceback (most recent call last):",
    b"\nLLVM ERROR:",
    b"\nPLEASE submit a bug report",
    b"\nStack dump:",
    b"\n===----",  # an MLIR/LLVM timing report (--mlir-timing, -time-passes)
)


def _holds(data: bytes, body_start: int, body_end: int, header: Header) -> str:
    """The scope the IR text holds (cheap for the common `module {` start)."""
    if header.scope == "builtin.module" or data[body_start : body_start + 7] == b"module ":
        return "builtin.module"
    return infer_scope(data, body_start, body_end, header.family)


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
            text = line.decode("utf-8", "replace")
            out.messages.append(Message(stage, after, message_level(line), text, log_id, pos, stop))
        pos = stop
