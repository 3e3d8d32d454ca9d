"""Files written for the user (`-o FILE`, notes.json, run.json): never through a symbolic link,
never into a FIFO or a device, and whole or not at all.

A name is written by making the file aside in the same folder (created exclusively, links not
followed) and renaming it over the name: a link, or a hard link, at the name is replaced, and
what it pointed to is never opened. A name that is a link or not a regular file is refused
before any work, with one line saying so; an existing regular file keeps its permissions.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from ascend_ir_lab.errors import InputError

__all__ = ["check_output", "output_file", "write_output"]


def check_output(path: str | os.PathLike[str], what: str = "file") -> Path:
    """`path` as a name that may be written: InputError for a link, a folder, a FIFO or a
    device there (writing would follow the link, or block forever)."""
    out = Path(path)
    try:
        st = os.lstat(out)
    except FileNotFoundError:
        return out
    except OSError as exc:
        raise InputError(f"{out}: cannot be written: {exc.strerror or exc}") from None
    if stat.S_ISLNK(st.st_mode):
        raise InputError(
            f"{out}: a symbolic link; it is not written through (that would change "
            f"{os.readlink(out)!r}): remove it or give another {what} name"
        )
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"{out} is a folder; give a {what} name such as {out / 'out'}")
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{out}: exists and is not a regular file; give another {what} name")
    return out


@contextlib.contextmanager
def output_file(path: str | os.PathLike[str], what: str = "file") -> Iterator[IO[bytes]]:
    """A binary file to fill, that becomes `path` when the block ends well (nothing is left
    behind when it fails); `path` is checked first (check_output)."""
    out = check_output(path, what)
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.lstat(out).st_mode)
    except OSError:
        mode = None
    aside = out.with_name(f".{out.name}.{os.urandom(6).hex()}.part")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(aside, flags, 0o666)  # the umask applies, as for any new file
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
        if mode is not None:
            os.chmod(aside, mode)
        os.replace(aside, out)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(aside)
        raise


def write_output(path: str | os.PathLike[str], data: str | bytes, what: str = "file") -> Path:
    """Write `data` (text as UTF-8) as the file `path`, whole or not at all; its Path."""
    with output_file(path, what) as fh:
        fh.write(data.encode("utf-8") if isinstance(data, str) else data)
    return Path(path)
