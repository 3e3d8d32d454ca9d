"""Compressed logs read by block, on demand: `BlockText`, the bytes-like view the reader
indexes (len, slices, find, rfind), holding only a few decompressed blocks at a time, and the
gzip streams read through it. A `.gz` from elsewhere gets access points built in one streaming
pass (the inflate state every BLOCK_BYTES of output), so it is never decompressed whole. The
seekable zstd logs a Run keeps are read through it too (`zstd_log`).
"""

from __future__ import annotations

import bisect
import mmap
import re
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from typing import Any

BLOCK_BYTES = 4 << 20  # output between two gzip access points
_KEEP_BLOCKS = 6  # decompressed blocks held at once
_CHUNK = 1 << 16


class BlockText:
    """A read-only bytes-like view of a log stored in blocks that decompress on demand."""

    def __init__(self, starts: list[int], size: int, load: Callable[[int], bytes]) -> None:
        self._starts = starts  # decompressed offset where each block begins
        self._size = size
        self._load = load
        self._cache: OrderedDict[int, bytes] = OrderedDict()
        self._hot: tuple[int, int, bytes] = (0, 0, b"")  # (start, end, text): last block used
        self.warnings: list[str] = []

    def __len__(self) -> int:
        return self._size

    def __bytes__(self) -> bytes:
        return b"".join(self.chunks())

    def chunks(self) -> Iterator[bytes]:
        """The text block by block, in order (for streaming it elsewhere)."""
        for k in range(len(self._starts)):
            yield self._block(k)

    def __contains__(self, sub: bytes) -> bool:
        return self.find(sub) >= 0

    def _block(self, k: int) -> bytes:
        data = self._cache.get(k)
        if data is None:
            data = self._cache[k] = self._load(k)
            if len(self._cache) > _KEEP_BLOCKS:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(k)
        self._hot = (self._starts[k], self._starts[k] + len(data), data)
        return data

    def _which(self, pos: int) -> int:
        return max(0, bisect.bisect_right(self._starts, pos) - 1)

    def __getitem__(self, key: slice | int) -> Any:
        if type(key) is slice and key.step is None:  # the reader's hot path: one block
            base, end, blk = self._hot
            a, b = key.start, key.stop
            if a is not None and b is not None and base <= a <= b <= end:
                return blk[a - base : b - base]
        if isinstance(key, int):
            pos = key + self._size if key < 0 else key
            if not 0 <= pos < self._size:
                raise IndexError("BlockText index out of range")
            k = self._which(pos)
            return self._block(k)[pos - self._starts[k]]
        start, stop, step = key.indices(self._size)
        if step != 1:
            return bytes(self[start:stop])[::step]
        if start >= stop:
            return b""
        k = self._which(start)
        parts = []
        while k < len(self._starts) and self._starts[k] < stop:
            base = self._starts[k]
            parts.append(self._block(k)[max(0, start - base) : stop - base])
            k += 1
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def _span(self, start: int | None, end: int | None) -> tuple[int, int]:
        size = self._size
        if start is not None and end is not None and 0 <= start and 0 <= end <= size:
            return start, end
        s, e, _ = slice(start, end).indices(size)
        return s, e

    def find(self, sub: bytes, start: int | None = None, end: int | None = None) -> int:
        """Lowest index of `sub` in [start, end), or -1 (as bytes.find)."""
        s, e = self._span(start, end)
        base, stop, blk = self._hot
        if base <= s < stop:
            hit = blk.find(sub, s - base, min(e, stop) - base)
            if hit >= 0:
                return base + hit
            if e <= stop:
                return -1
        k, over, count = self._which(s), len(sub) - 1, len(self._starts)
        while k < count and self._starts[k] < e:
            base, blk = self._starts[k], self._block(k)
            hit = blk.find(sub, max(s - base, 0), min(e - base, len(blk)))
            if hit >= 0:
                return base + hit
            if over and k + 1 < count and base + len(blk) < e:
                tail = max(len(blk) - over, s - base, 0)
                joined = blk[tail:] + self._block(k + 1)[:over]
                hit = joined.find(sub, 0, e - base - tail)
                if hit >= 0:
                    return base + tail + hit
            k += 1
        return -1

    def regex_find(self, pattern: re.Pattern[bytes], pos: int = 0, overlap: int = 64) -> int:
        """Start of the first match of the compiled bytes `pattern` from `pos`, or -1 (a
        match is at most `overlap` bytes long when it spans two blocks)."""
        k, count = self._which(pos), len(self._starts)
        while k < count:
            base, blk = self._starts[k], self._block(k)
            m = pattern.search(blk, max(pos - base, 0))
            if m is not None:
                return base + m.start()
            if k + 1 < count:
                cut = max(len(blk) - overlap, pos - base, 0)
                m = pattern.search(blk[cut:] + self._block(k + 1)[:overlap])
                if m is not None:
                    return base + cut + m.start()
            k += 1
        return -1

    def rfind(self, sub: bytes, start: int | None = None, end: int | None = None) -> int:
        """Highest index of `sub` in [start, end), or -1 (as bytes.rfind)."""
        s, e = self._span(start, end)
        if s > e:
            return -1
        base, stop, blk = self._hot
        if base < e <= stop:
            hit = blk.rfind(sub, max(s - base, 0), e - base)
            if hit >= 0:
                return base + hit
            if s >= base:
                return -1
        k, over, first = self._which(max(s, e - 1)), len(sub) - 1, True
        while k >= 0:
            base, blk = self._starts[k], self._block(k)
            if not first and over:  # a match across this block's end starts latest
                tail = max(len(blk) - over, s - base, 0)
                joined = blk[tail:] + self._block(k + 1)[:over]
                hit = joined.rfind(sub, 0, e - base - tail)
                if hit >= 0:
                    return base + tail + hit
            hit = blk.rfind(sub, max(s - base, 0), max(0, min(e - base, len(blk))))
            if hit >= 0:
                return base + hit
            if base <= s:
                return -1
            k, first = k - 1, False
        return -1


class WarnedBytes(bytes):
    """Log text read whole (a small compressed log), with the warnings its reading raised."""

    warnings: list[str]


class WarnedMap(mmap.mmap):
    """A large compressed log decompressed, block by block, into an unlinked temporary
    file and mapped (pages the kernel can drop, as for a plain log), with its warnings."""

    warnings: list[str]


def small_whole(text: BlockText, limit: int) -> bytes:
    """`text` as plain bytes when it is under `limit` bytes (as a small plain log is read
    whole), else streamed into a mapped temporary file (as a large plain log is mapped):
    never decompressed whole in memory."""
    if len(text) >= limit:
        import tempfile  # only for a large compressed log: start-up stays small

        with tempfile.TemporaryFile(prefix="ascend-ir-lab-log-") as f:
            for block in text.chunks():
                f.write(block)
            f.flush()
            mapped = WarnedMap(f.fileno(), 0, access=mmap.ACCESS_READ)
        mapped.warnings = list(text.warnings)
        return mapped  # type: ignore[return-value]
    data = bytes(text)
    if not text.warnings:
        return data  # no copy: the reader asks `warnings` of its data only where set
    whole = WarnedBytes(data)
    whole.warnings = list(text.warnings)
    return whole


# -- gzip ---------------------------------------------------------------------------------


def open_gzip(path: Path) -> BlockText:
    """A `.gz` log as BlockText, one streaming pass to place access points; a truncated or
    damaged stream is read as far as it goes, with a warning."""
    points: list[tuple[int, int, Any]] = []  # (output offset, input offset, inflate state)
    size = 0
    problems: list[str] = []

    def mark(at: int, d: Any) -> None:
        if not points or size - points[-1][0] >= BLOCK_BYTES:
            points.append((size, at, d.copy()))

    for out in _inflate(path, 0, None, problems, mark):
        size += len(out)

    def load(k: int) -> bytes:
        start, at, state = points[k]
        stop = points[k + 1][0] if k + 1 < len(points) else size
        parts, made = [], start
        for out in _inflate(path, at, state.copy(), []):
            parts.append(out)
            made += len(out)
            if made >= stop:
                break
        return b"".join(parts)[: stop - start]

    text = BlockText([p[0] for p in points] or [0], size, load if points else lambda _k: b"")
    if problems:
        text.warnings.append(f"{path}: {problems[0]}; read as far as it goes ({size} bytes)")
    return text


def _inflate(
    path: Path,
    at: int,
    state: Any,
    problems: list[str],
    mark: Callable[[int, Any], None] | None = None,
) -> Iterator[bytes]:
    """Yield the output of the gzip stream read from input offset `at` with inflate `state`
    (members follow one another); `mark(offset, state)` is called before each input chunk;
    why the stream ended early goes to `problems`."""
    d = state or zlib.decompressobj(31)
    with open(path, "rb") as f:
        f.seek(at)
        while data := f.read(_CHUNK):
            if mark is not None:
                mark(at, d)
            at += len(data)
            out = b""
            try:
                out = d.decompress(data)
                while d.eof and d.unused_data.startswith(b"\x1f\x8b"):
                    rest, d = d.unused_data, zlib.decompressobj(31)
                    out += d.decompress(rest)
            except zlib.error as exc:
                problems.append(f"damaged gzip data ({exc})")
                yield out
                return
            yield out
            if d.eof and d.unused_data:
                return  # bytes after the last member (padding) end the log
    if not d.eof:
        problems.append("the .gz file ends early (truncated)")
