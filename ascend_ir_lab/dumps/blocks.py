"""Compressed logs read by block, on demand: zstd frames with a seek table, and gzip streams.

A Run keeps each stage log as `N-stage.log.zst`: independent zstd frames of FRAME_BYTES of
log text each, followed by the seek table of zstd's seekable format (a skippable frame, so
any `zstd -d` reads the file as one log). A `.gz` from elsewhere gets access points built in
one streaming pass (the inflate state every BLOCK_BYTES of output), so that neither form is
ever decompressed whole: `BlockText` is the bytes-like view the reader indexes (len, slices,
find, rfind), holding only a few decompressed blocks at a time.
"""

from __future__ import annotations

import bisect
import mmap
import re
import struct
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

FRAME_BYTES = 4 << 20  # log text per zstd frame (also its match window)
BLOCK_BYTES = 4 << 20  # output between two gzip access points
_KEEP_BLOCKS = 6  # decompressed blocks held at once
_SKIPPABLE_MAGIC = 0x184D2A5E
_SEEKABLE_MAGIC = 0x8F92EAB1
_FOOTER = struct.Struct("<IBI")  # frames, descriptor, seekable magic
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


# -- zstd: writing ------------------------------------------------------------------------


class ZstdLogWriter:
    """Write a log as seekable zstd frames as text arrives (`write`), table on `close`."""

    def __init__(self, path: Path, level: int = 3) -> None:
        import zstandard

        params = zstandard.ZstdCompressionParameters.from_level(level, window_log=22)
        self._zc = zstandard.ZstdCompressor(compression_params=params)
        self._out: IO[bytes] = open(path, "wb")  # noqa: SIM115 - closed in close()
        self._pending = bytearray()
        self._frames: list[tuple[int, int]] = []
        self.size = 0

    def write(self, data: bytes) -> None:
        """Add log text; full frames are compressed and written at once."""
        self._pending += data
        self.size += len(data)
        while len(self._pending) >= FRAME_BYTES:
            self._frame(bytes(self._pending[:FRAME_BYTES]))
            del self._pending[:FRAME_BYTES]

    def _frame(self, data: bytes) -> None:
        packed = self._zc.compress(data)
        self._out.write(packed)
        self._frames.append((len(packed), len(data)))

    def close(self) -> None:
        """Write the last frame and the seek table; close the file."""
        if self._out.closed:
            return
        if self._pending or not self._frames:
            self._frame(bytes(self._pending))
            self._pending.clear()
        entries = b"".join(struct.pack("<II", c, d) for c, d in self._frames)
        footer = _FOOTER.pack(len(self._frames), 0, _SEEKABLE_MAGIC)
        body = entries + footer
        self._out.write(struct.pack("<II", _SKIPPABLE_MAGIC, len(body)) + body)
        self._out.close()

    def __enter__(self) -> ZstdLogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def stored_log(path: Path) -> Path:
    """`path`, or its compressed form `path.zst` when only that one exists."""
    packed = path.with_name(path.name + ".zst")
    return packed if not path.exists() and packed.is_file() else path


def stored_bytes(path: Path, limit: int = 64 << 20) -> bytes:
    """A Run file's text whole, as written: a `.zst` decompressed (at most `limit` bytes:
    ValueError, one line, for more), any other file read as it is (the same limit)."""
    if path.suffix != ".zst":
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    else:
        text = open_zstd(path)
        if len(text) > limit or text.warnings:
            why = text.warnings[0] if text.warnings else f"more than {limit} bytes of text"
            raise ValueError(why if text.warnings else f"{path}: {why}; not read")
        data = bytes(text)
    if len(data) > limit:
        raise ValueError(f"{path}: more than {limit} bytes; not read")
    return data


def compress_log(src: Path, dst: Path, level: int = 3) -> int:
    """Stream the plain log `src` into the seekable zstd file `dst`; returns its text size."""
    with open(src, "rb") as f, ZstdLogWriter(dst, level) as out:
        while chunk := f.read(FRAME_BYTES):
            out.write(chunk)
    return out.size


# -- zstd: reading ------------------------------------------------------------------------


def open_zstd(path: Path) -> BlockText:
    """A `.zst` log as BlockText: by its seek table, or by walking its frames without one."""
    try:
        import zstandard
    except ImportError:
        raise OSError(
            "reading .zst logs needs the zstandard package (pip install zstandard)"
        ) from None

    with open(path, "rb") as f:
        table = _seek_table(f)
        frames = table if table is not None else _walk_frames(f, zstandard)
    offsets, starts, pos, out = [], [], 0, 0
    for csize, dsize in frames:
        offsets.append((pos, csize))
        starts.append(out)
        pos, out = pos + csize, out + dsize
    _refuse_bomb(path, pos, out, frames)
    local = threading.local()  # a decompressor is used by one thread at a time

    def frame(k: int) -> tuple[bytes, int, Any]:
        at, csize = offsets[k]
        with open(path, "rb") as f:
            f.seek(at)
            data = f.read(csize)
        size = starts[k + 1] - starts[k] if k + 1 < len(starts) else out - starts[k]
        if not hasattr(local, "dctx"):
            local.dctx = zstandard.ZstdDecompressor()
        return data, size, local.dctx

    def load(k: int) -> bytes:
        return _frame_text(path, k, *frame(k), zstandard)

    text = BlockText(starts or [0], out, load if offsets else lambda _k: b"")
    if table is None:
        text.warnings.append(f"{path}: no seek table (the capture did not finish); read by frames")
    return text


MAX_FRAME_BYTES = 256 << 20  # text of one frame, at most (a Run's frames hold FRAME_BYTES)
MAX_RATIO = 10_000  # text per compressed byte, at most, for a log above MAX_FRAME_BYTES


def _refuse_bomb(path: Path, packed: int, text: int, frames: list[tuple[int, int]]) -> None:
    """Raise ValueError (one line) for a file whose frames say they hold more text than any
    log does: a frame above MAX_FRAME_BYTES, or a large text MAX_RATIO times its file."""
    biggest = max((d for _, d in frames), default=0)
    if biggest > MAX_FRAME_BYTES or (text > MAX_FRAME_BYTES and text > MAX_RATIO * packed):
        raise ValueError(
            f"{path}: says it decompresses to {text} bytes from {packed} (a zstd bomb?); not read"
        )


def _frame_text(path: Path, k: int, data: bytes, size: int, dctx: Any, zstandard: Any) -> bytes:
    """Frame `k` decompressed: exactly the `size` bytes the seek table gives it, never more
    (a frame that holds more, or less, is damaged: ValueError, one line)."""
    if zstandard.frame_content_size(data) == size:
        try:  # one call, into a buffer of the size both the table and the frame give
            return bytes(dctx.decompress(data))
        except zstandard.ZstdError as exc:
            raise ValueError(f"{path}: frame {k} is damaged ({exc})") from None
    import io

    try:  # no size in the frame (another writer): streamed, at most one byte past `size`
        with dctx.stream_reader(io.BytesIO(data), read_across_frames=False) as reader:
            text = reader.read(size + 1)
    except zstandard.ZstdError as exc:
        raise ValueError(f"{path}: frame {k} is damaged ({exc})") from None
    if len(text) != size:
        raise ValueError(
            f"{path}: frame {k} holds {'more' if len(text) > size else 'less'} text than its "
            "seek table says; damaged, not read"
        )
    return bytes(text)


def _seek_table(f: IO[bytes]) -> list[tuple[int, int]] | None:
    f.seek(0, 2)
    end = f.tell()
    if end < _FOOTER.size + 8:
        return None
    f.seek(end - _FOOTER.size)
    count, descriptor, magic = _FOOTER.unpack(f.read(_FOOTER.size))
    entry = 12 if descriptor & 0x80 else 8
    size = count * entry + _FOOTER.size
    if magic != _SEEKABLE_MAGIC or end < size + 8:
        return None
    f.seek(end - size - 8)
    head_magic, body = struct.unpack("<II", f.read(8))
    if head_magic != _SKIPPABLE_MAGIC or body != size:
        return None
    raw = f.read(count * entry)
    return [struct.unpack_from("<II", raw, i * entry) for i in range(count)]


def _walk_frames(f: IO[bytes], zstandard: Any) -> list[tuple[int, int]]:
    """(compressed, decompressed) size of each whole frame, decompressing once, in chunks."""
    f.seek(0)
    frames: list[tuple[int, int]] = []
    rest = b""
    while True:
        d, used, made = zstandard.ZstdDecompressor().decompressobj(), 0, 0
        data = rest or f.read(_CHUNK)
        while data:
            try:
                made += len(d.decompress(data))
            except zstandard.ZstdError:
                return frames
            if made > MAX_FRAME_BYTES:
                raise ValueError(f"{f.name}: a frame holds more than {MAX_FRAME_BYTES} bytes of "
                                 "text (a zstd bomb?); not read")  # fmt: skip
            used += len(data) - len(d.unused_data)
            if d.eof:
                break
            data = f.read(_CHUNK)
        if not d.eof:
            return frames  # the last frame was cut off: keep the whole ones
        frames.append((used, made))
        rest = d.unused_data
        if not rest and not (rest := f.read(_CHUNK)):
            return frames


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
