"""Compressed logs opened as fast as plain ones: decompressed once, kept, then read as plain.

A `.log.zst` or `.gz` is decompressed the first time it is opened into a private cache
folder (`<tmp>/ascend-ir-lab-<uid>-logs`, mode 0700, ours, or no cache at all), named after
the compressed file's identity (device, inode, size, modification and change times, path):
a file changed or replaced since gets a new name, and a name is only ever a complete file (written
aside, then renamed). Later opens read the kept file as a plain log of its size is read
(whole, or mapped when large), with no decompressor at all; the least recently opened files
go first once the folder holds more than CACHE_BYTES. A log whose reading raised warnings
(truncated, no seek table) is not kept, nor one larger than the cache (a 20 MB `.gz` of
20 GB would stay behind, the cache's one file) or than half the room left on the cache's
disk (a small file of zeros, thousands of times its size, would fill the disk for others).
"""

from __future__ import annotations

import contextlib
import mmap
import os
from collections.abc import Callable
from pathlib import Path

from ascend_ir_lab.dumps.blocks import BlockText, WarnedMap, small_whole
from ascend_ir_lab.private import kept_name, private_folder, write_aside

CACHE_BYTES = 4 << 30  # decompressed logs kept at most, all together


def read_compressed(path: Path, opener: Callable[[Path], BlockText], limit: int) -> bytes:
    """The text of the compressed log `path`, as a plain log of its size is read: whole
    bytes under `limit`, else mapped. Its decompressed form is kept for the next open where
    a private cache folder can be had (a kept log opens without the decompressor at all)."""
    folder = _cache_folder()
    kept = _kept_name(folder, path) if folder is not None else None
    if kept is not None:
        found = _read_kept(kept, limit)
        if found is not None:
            return found
    text = opener(path)
    if kept is None or text.warnings or len(text) > min(CACHE_BYTES, _room(kept.parent)):
        return small_whole(text, limit)  # larger than the cache: it would stay
    return _fill(text, kept, limit) or small_whole(text, limit)


def _room(folder: Path) -> int:
    """Half the bytes left free on `folder`'s disk (0 where that cannot be known)."""
    try:
        disk = os.statvfs(folder)
    except (OSError, AttributeError):
        return 0
    return disk.f_bavail * disk.f_frsize // 2


def _cache_folder() -> Path | None:
    """The private cache folder, or None where it cannot be ours alone."""
    return private_folder("logs")


def _kept_name(folder: Path, path: Path) -> Path | None:
    try:
        st = path.stat()
        where = str(path.resolve())
    except OSError:
        return None
    # the change time too: a file rewritten in place keeps its inode and size, and can be
    # given back its old modification time (`cp -p`, `tar`, `rsync -t`); never its ctime
    identity = f"{where}\0{st.st_dev}\0{st.st_ino}\0{st.st_size}\0{st.st_mtime_ns}"
    identity += f"\0{st.st_ctime_ns}"
    return folder / f"{kept_name(identity)}.log"


def _read_kept(kept: Path, limit: int) -> bytes | None:
    """The kept log: read whole under `limit` bytes, else mapped; None where there is none."""
    try:
        fd = os.open(kept, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return None
        if size < limit:
            with os.fdopen(os.dup(fd), "rb") as f:
                data = f.read()
        else:
            mapped = WarnedMap(fd, 0, access=mmap.ACCESS_READ)
            mapped.warnings = []
            data = mapped  # type: ignore[assignment]  # bytes-like, as the reader takes it
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    with contextlib.suppress(OSError):
        os.utime(kept)  # recently opened: evicted last
    return data


def _fill(text: BlockText, kept: Path, limit: int) -> bytes | None:
    """Decompress `text` into the cache under `kept` (aside first, then renamed); its text
    as `_read_kept` gives it."""
    whole = bytes(text) if len(text) < limit else None
    if not write_aside(kept, [whole] if whole is not None else text.chunks()):
        return whole
    _evict(kept.parent, keep=kept)
    return whole if whole is not None else _read_kept(kept, limit)


def _evict(folder: Path, *, keep: Path) -> None:
    """Remove the least recently opened logs until the folder holds CACHE_BYTES at most."""
    found = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if entry.name.endswith(".log") and entry.is_file(follow_symlinks=False):
                st = entry.stat(follow_symlinks=False)
                found.append((st.st_mtime_ns, st.st_size, Path(entry.path)))
    total = sum(size for _, size, _ in found)
    for _, size, path in sorted(found):
        if total <= CACHE_BYTES:
            return
        if path != keep:
            with contextlib.suppress(OSError):
                path.unlink()
            total -= size
