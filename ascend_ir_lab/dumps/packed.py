"""Compressed logs without random access (xz, lzma, bzip2), and the compressions not read.

A `.xz`, `.lzma` or `.bz2` log is decompressed once, as a stream: whole when small (as a
small plain log is read), else into an unlinked temporary file that is mapped (as a large
plain log is); a truncated or damaged stream is read as far as it goes, with a warning.
"""

from __future__ import annotations

import mmap
from collections.abc import Iterator
from pathlib import Path

from ascend_ir_lab.dumps.blocks import WarnedBytes, WarnedMap
from ascend_ir_lab.dumps.zstd_log import MAX_FRAME_BYTES, MAX_RATIO

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from typing import Any

# Read in small pieces: damaged data loses the text of its piece (a decompressor raises
# without what it decoded of that piece), and a bomb is seen a piece at a time.
_CHUNK = 1 << 16
# What a file starts with, by compression (`.gz` and `.zst` have block readers elsewhere).
STREAMED = {b"\xfd7zXZ\x00": "xz", b"BZh": "bzip2", b"\x5d\x00\x00": "lzma"}
UNREAD = {
    b"\x04\x22\x4d\x18": "lz4", b"PK\x03\x04": "zip", b"7z\xbc\xaf\x27\x1c": "7-Zip",
    b"\x1f\x9d": "compress (.Z)",
}  # fmt: skip
SUFFIXES = {".xz": "xz", ".lzma": "lzma", ".bz2": "bzip2"}


def compression_of(path: Path, head: bytes) -> str | None:
    """The streamed compression `path` holds (by suffix, else by its first bytes), or None."""
    if path.suffix in SUFFIXES:
        return SUFFIXES[path.suffix]
    return next((name for magic, name in STREAMED.items() if head.startswith(magic)), None)


def unread_compression(head: bytes) -> str | None:
    """The name of a compression no reader here reads, if `head` starts like one."""
    return next((name for magic, name in UNREAD.items() if head.startswith(magic)), None)


def read_streamed(path: Path, kind: str, limit: int) -> bytes:
    """The text of the compressed log `path`: bytes under `limit`, else mapped."""
    import tempfile

    problems: list[str] = []
    size, packed = 0, path.stat().st_size
    with tempfile.TemporaryFile(prefix="ascend-ir-lab-log-") as spill:
        parts: list[bytes] = []
        for chunk in _decompressed(path, kind, problems):
            size += len(chunk)
            if size > MAX_FRAME_BYTES and size > MAX_RATIO * packed:  # as for zstd logs
                raise ValueError(
                    f"{path}: decompresses to more than {size} bytes from {packed} "
                    f"(a {SUFFIX_OF[kind]} bomb?); not read"
                )
            if size < limit:
                parts.append(chunk)
                continue
            if parts:
                spill.writelines(parts)
                parts = []
            spill.write(chunk)
        warnings = [f"{path}: {p}; read as far as it goes ({size} bytes)" for p in problems]
        if size < limit or not size:
            whole = WarnedBytes(b"".join(parts))
            whole.warnings = warnings
            return whole if warnings else bytes(whole)
        spill.flush()
        mapped = WarnedMap(spill.fileno(), 0, access=mmap.ACCESS_READ)
        mapped.warnings = warnings
        return mapped  # type: ignore[return-value]


def _decompressed(path: Path, kind: str, problems: list[str]) -> Iterator[bytes]:
    """The output of the streams of `path`, one after another, chunk by chunk; why it
    ended early goes to `problems`."""
    from lzma import LZMAError  # what damaged xz/lzma data raises: no OSError, no ValueError

    d = _decompressor(kind)
    with path.open("rb") as f:
        while data := f.read(_CHUNK):
            while data:
                try:
                    out = d.decompress(data)
                except (OSError, ValueError, EOFError, LZMAError) as exc:
                    problems.append(f"damaged {kind} data ({exc})")
                    return
                if out:
                    yield out
                data = b""
                if d.eof:
                    rest = d.unused_data
                    if not rest.strip(b"\0"):  # stream padding ends the log
                        return
                    d, data = _decompressor(kind), rest
    if not d.eof:
        problems.append(f"the .{SUFFIX_OF[kind]} file ends early (truncated)")


SUFFIX_OF = {"xz": "xz", "lzma": "lzma", "bzip2": "bz2"}


def _decompressor(kind: str) -> Any:
    if kind == "bzip2":
        import bz2

        return bz2.BZ2Decompressor()
    import lzma

    return lzma.LZMADecompressor(lzma.FORMAT_ALONE if kind == "lzma" else lzma.FORMAT_XZ)
