"""Gzip of a large text in parts compressed side by side, as pigz does it.

The text is cut into parts of PART_BYTES; each part is deflated on its own thread (zlib
lets other threads run while it compresses), primed with the 32 KiB before it so that it
compresses as well as one stream does, and ended with a sync flush so that the parts join
into one deflate stream. The bytes depend only on the text: not on how it is fed, nor on how
many threads ran. A text of one part is exactly `gzip.compress(text, 3, mtime=0)`.
"""

from __future__ import annotations

import struct
import threading
import zlib

__all__ = ["PART_BYTES", "PartedGzip", "gzip_parts"]

PART_BYTES = 1 << 20
LEVEL = 3
_WINDOW = 32 << 10  # what deflate can refer back to
# zlib's own gzip header (mtime 0, this OS), as `gzip.compress(..., mtime=0)` writes it
_HEADER = zlib.compressobj(LEVEL, zlib.DEFLATED, 31).flush()[:10]


class PartedGzip:
    """A gzip compressor fed piece by piece: each full part starts compressing at once,
    while the caller goes on making the rest."""

    def __init__(self) -> None:
        self._pending = bytearray()
        self._parts: list[bytes | BaseException] = []
        self._threads: list[threading.Thread] = []
        self._tail = b""
        self._crc = 0
        self._size = 0

    def feed(self, data: bytes) -> None:
        self._pending += data
        while len(self._pending) > PART_BYTES:  # the last part, made by `finish`, holds the rest
            part = bytes(self._pending[:PART_BYTES])
            del self._pending[:PART_BYTES]
            self._start(part, last=False)

    def finish(self) -> bytes:
        """The whole gzip member (the compressor is spent)."""
        self._start(bytes(self._pending), last=True)
        self._pending.clear()
        for thread in self._threads:
            thread.join()
        for part in self._parts:
            if isinstance(part, BaseException):  # a thread's failure (memory) is the caller's
                raise part
        trailer = struct.pack("<II", self._crc, self._size & 0xFFFFFFFF)
        return _HEADER + b"".join(self._parts) + trailer  # type: ignore[arg-type]

    def _start(self, part: bytes, *, last: bool) -> None:
        k, primer = len(self._parts), self._tail
        self._parts.append(b"")
        self._tail = part[-_WINDOW:]
        self._crc = zlib.crc32(part, self._crc)
        self._size += len(part)

        def work() -> None:
            try:
                self._parts[k] = _deflate(part, primer, last)
            except BaseException as exc:  # noqa: BLE001 - raised again by `finish`
                self._parts[k] = exc

        if last and not self._threads:  # one part: no thread
            work()
            return
        thread = threading.Thread(target=work, name="ascend-ir-lab-gzip", daemon=True)
        thread.start()
        self._threads.append(thread)


def gzip_parts(data: bytes) -> bytes:
    """`PartedGzip`'s gzip of `data`."""
    packer = PartedGzip()
    packer.feed(data)
    return packer.finish()


def _deflate(part: bytes, primer: bytes, last: bool) -> bytes:
    """Raw deflate of `part` as the continuation of `primer`; a last part ends the stream."""
    if primer:
        c = zlib.compressobj(
            LEVEL, zlib.DEFLATED, -15, zlib.DEF_MEM_LEVEL, zlib.Z_DEFAULT_STRATEGY, primer
        )
    else:
        c = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
    return c.compress(part) + c.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)
