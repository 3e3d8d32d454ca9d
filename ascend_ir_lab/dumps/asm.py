"""Where a stage's assembly ends (Triton's `NVPTX_ENABLE_DUMP` / `AMDGCN_ENABLE_DUMP` output):
the lines after it are the log's own, up to the next header.

PTX is directives (`.version`, `.visible .entry k(`, `.b8 1` of debug sections), comments,
labels (`$L__BB0_1:`), and indented parameters and instructions inside a column-0 `(` ...
`)` or `{` ... `}`: outside a function, indented lines are directives (`.file`, `.section`),
comments and the braces of a section alone. AMDGPU assembly
is indented directives and instructions, column-0 labels and `;` comments, and its HSA
metadata (`.amdgpu_metadata`, a YAML document, `.end_amdgpu_metadata`), which ends it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_PTX_TOP = re.compile(rb"(?:\.|//|\$[\w$]*:|[{}()]|\s*$)")
_PTX_OUTSIDE = (b".", b"//", b"{", b"}", b"$")
_GCN_TOP = re.compile(rb"(?:[\w.$@\"-]+:[ \t]*(?:;.*)?$|;|\.|---|\.\.\.|\s*$)")
_GCN_META = re.compile(rb"[\w.-]+:(?:\s|$)|\s|---|\.\.\.")
_GCN_END = b".end_amdgpu_metadata"


def asm_end(data: bytes, start: int, stop: int) -> int:
    """One past the last line of the assembly that starts at `start`, before `stop`."""
    first = data[start : min(stop, start + 4096)]
    if b".version" in first or b"NVPTX" in first:
        return _ptx_end(data, start, stop)
    if b".amdgcn_target" in first or b"amdgcn" in first:
        return _gcn_end(data, start, stop)
    return stop


def _lines(data: bytes, start: int, stop: int) -> Iterator[tuple[int, bytes]]:
    """(end incl. newline, text without it) of each line in [start, stop)."""
    pos = start
    while pos < stop:
        nl = data.find(b"\n", pos, stop)
        end = stop if nl < 0 else nl + 1
        yield end, data[pos:end].rstrip(b"\r\n")
        pos = end


def _ptx_end(data: bytes, start: int, stop: int) -> int:
    depth, params, end = 0, False, start
    for nxt, line in _lines(data, start, stop):
        if not line.strip():
            continue
        indented = line[:1] in (b" ", b"\t")
        if indented:
            if depth == 0 and not params and not line.lstrip().startswith(_PTX_OUTSIDE):
                return end  # outside a function: directives and comments alone
        elif not _PTX_TOP.match(line):
            return end
        elif line.startswith(b"{"):
            depth += 1
        elif line.startswith(b"}"):
            depth = max(depth - 1, 0)
        elif line.startswith(b")"):
            params = False
        if not indented and line.rstrip().endswith(b"("):
            params = True
        end = nxt
    return end


def _gcn_end(data: bytes, start: int, stop: int) -> int:
    meta = closed = False
    end = start
    for nxt, line in _lines(data, start, stop):
        stripped = line.strip()
        if not stripped:
            continue
        if closed and not stripped.startswith((b".", b";")):
            return end  # after the metadata only directives and comments
        if stripped.startswith(_GCN_END):
            meta, closed = False, True
        elif stripped.startswith(b".amdgpu_metadata"):
            meta = True
        elif meta:
            if not _GCN_META.match(line):
                return end
        elif line[:1] not in (b" ", b"\t") and not _GCN_TOP.match(line):
            return end
        end = nxt
    return end
