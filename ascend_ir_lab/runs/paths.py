"""Path confinement: every path a Run names, and every file read or zipped from it, stays
inside the Run folder once symlinks are resolved."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from ascend_ir_lab.errors import InputError

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from typing import Any


def is_inside(folder: str | os.PathLike[str], path: str | os.PathLike[str]) -> bool:
    """Whether `path`, symlinks resolved, is `folder` or lies under it."""
    root = os.path.realpath(folder)
    real = os.path.realpath(path)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def inside(folder: str | os.PathLike[str], relative: object) -> Path | None:
    """`folder / relative` when `relative` is a relative path string that resolves inside
    `folder`; None for anything else (absolute, `..` out, a symlink out, not a string)."""
    if not isinstance(relative, str) or not relative or "\0" in relative:
        return None
    if os.path.isabs(relative) or relative.startswith(("/", "\\")):
        return None
    path = Path(folder) / relative
    return path if is_inside(folder, path) else None


def regular_file(path: str | os.PathLike[str]) -> bool:
    """Whether `path` is a regular file (a FIFO, device or socket is not; nor a folder)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def not_own_file(folder: str | os.PathLike[str], path: str | os.PathLike[str]) -> str | None:
    """Why the file `path` of the Run folder `folder` is not read as the Run's (None: it is):
    not a regular file, or a hard link to a file of another owner than the folder's (where
    the system lets anyone link to any file, a stranger's Run could otherwise hold a name for
    your ~/.ssh key: its text would then show in pages and travel in bug reports)."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            return "not a regular file"
        if st.st_nlink > 1 and st.st_uid != os.stat(folder).st_uid:
            return "a hard link to a file of someone else"
    except (OSError, ValueError) as exc:
        return f"cannot be read ({getattr(exc, 'strerror', None) or exc})"
    return None


def run_file(
    folder: str | os.PathLike[str], relative: object, max_bytes: int | None = None
) -> Path | None:
    """`folder / relative` when it is confined (`inside`), the Run's own regular file
    (`not_own_file`) and, with `max_bytes`, no larger; None otherwise."""
    path = inside(folder, relative)
    if path is None or not_own_file(folder, path) is not None:
        return None
    if max_bytes is not None and path.stat().st_size > max_bytes:
        return None
    return path


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def read_small(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """The bytes of a small file someone else made (a manifest, notes, a kernel's source):
    opened without blocking and checked once open (a FIFO or device swapped in after a check
    is refused, not waited on), and InputError beyond `max_bytes` (never read whole)."""
    try:
        with open(os.open(path, _READ_FLAGS), "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise InputError(f"{path}: not a regular file; not read")
            if st.st_size > max_bytes:
                raise InputError(f"{path}: {st.st_size} bytes, more than such a file holds")
            data = fh.read(max_bytes + 1)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > max_bytes:  # it grew while read
        raise InputError(f"{path}: more than {max_bytes} bytes, more than such a file holds")
    return data


def small_json(path: str | os.PathLike[str], max_bytes: int) -> Any:
    """The JSON value of a small file someone else made (`read_small`), or None where it
    cannot be read or is no JSON (too large, a FIFO, broken, nested too deep): for files a
    reader may go without (a kernel's metadata, a recorded verdict)."""
    import json  # a folder's small files only: start-up stays small

    try:
        return json.loads(read_small(path, max_bytes))
    except (InputError, ValueError, RecursionError):
        return None


def refuse_special(path: str | os.PathLike[str]) -> None:
    """Raise InputError for a FIFO, device or socket, before anything opens it (a FIFO
    would block the reader forever, /dev/zero would fill memory)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise InputError(f"{path}: no such file or folder") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        kind = "a FIFO" if stat.S_ISFIFO(mode) else "a device or socket"
        raise InputError(f"{path}: {kind}, not a file; give a log file or a folder")


def safe_arcname(name: str) -> str:
    """A zip entry name with no `..`, no leading `/`, no drive and no empty parts, and no
    character that `unzip` would print raw to a terminal (controls, bidi) or that Windows
    reads as syntax (`:` opens an alternate data stream, `<>"|?*`): each becomes `_`."""
    parts = [p for p in PurePosixPath(name.replace("\\", "/")).parts if p not in ("", ".", "..")]
    parts = [p for p in parts if p != "/" and not (len(p) == 2 and p[1] == ":")]
    joined = "/".join(parts) or "_"
    return joined if _ARC_SAFE.fullmatch(joined) else _ARC_BAD.sub("_", joined)


_ARC_SAFE = re.compile(r"[A-Za-z0-9._+\-/ #@=,~%()\[\]{}]*")
_ARC_BAD = re.compile(
    '[\x00-\x1f\x7f-\x9f:<>"|?*\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff'
    "\ud800-\udfff]"  # an undecodable byte of a file name: zip names are UTF-8
)


def files_inside(folder: Path, root: Path) -> Iterator[Path]:
    """Every regular file under `folder`, symlinks not followed, each inside `root`, in name
    order as `os.walk` gives them; walked without recursion (`os.walk` recurses: a folder
    nested 1,500 deep in someone's Run would be a RecursionError, not a report)."""
    folders = [folder]
    while folders:
        here = folders.pop()
        try:
            with os.scandir(here) as it:
                found = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        below = []
        for entry in found:
            path = Path(entry.path)
            if entry.is_dir(follow_symlinks=False):
                below.append(path)
            elif not entry.is_symlink() and regular_file(path) and is_inside(root, path):
                yield path
        folders.extend(reversed(below))
