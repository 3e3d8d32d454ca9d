"""Logs kept as seekable zstd: independent frames of FRAME_BYTES of log text each, followed by
the seek table of zstd's seekable format (a skippable frame, so any `zstd -d` reads the file
as one log). A Run keeps each stage log this way (`N-stage.log.zst`); `open_zstd` gives the
text as a BlockText, decompressing only the frames a read needs.
"""

from __future__ import annotations

import struct
from pathlib import Path

from ascend_ir_lab.dumps.blocks import BlockText

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from typing import IO, Any

FRAME_BYTES = 4 << 20  # log text per zstd frame (also its match window)
_SKIPPABLE_MAGIC = 0x184D2A5E
_SEEKABLE_MAGIC = 0x8F92EAB1
_FOOTER = struct.Struct("<IBI")  # frames, descriptor, seekable magic
_CHUNK = 1 << 16


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
    import threading  # a zstd log's only: start-up stays small

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
