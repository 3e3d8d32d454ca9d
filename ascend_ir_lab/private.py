"""Folders under the temporary directory that are this user's alone (made 0700, checked to be
ours and closed to others), for what the tool keeps between commands, and files written into
them whole or not at all."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable
from pathlib import Path


def private_folder(purpose: str) -> Path | None:
    """This user's private folder for `purpose` under the temporary directory (made 0700), or
    None where it cannot be ours alone (not a folder, someone else's, open to others)."""
    import tempfile  # not at import: it costs every command its start-up, and few need it

    folder = Path(tempfile.gettempdir()) / f"ascend-ir-lab-{os.getuid()}-{purpose}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        return None
    return folder


def kept_name(identity: str) -> str:
    """The name (40 hex digits) of what is kept for `identity`: its BLAKE2b digest, taken
    from the interpreter's own module where it has one (`hashlib` loads OpenSSL first, a few
    milliseconds of a command's start-up)."""
    try:
        from _blake2 import blake2b
    except ImportError:  # an interpreter built without it
        from hashlib import blake2b
    return blake2b(identity.encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()


def write_aside(path: Path, blocks: Iterable[bytes]) -> bool:
    """Write `blocks` as the file `path` (mode 0600): aside first, then renamed, so the name
    is only ever a complete file; False where it could not be written (nothing left behind)."""
    aside = path.with_name(f"{path.name}.{os.getpid()}.part")
    try:
        fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as out:
            for block in blocks:
                out.write(block)
        os.replace(aside, path)
    except OSError:
        with contextlib.suppress(OSError):
            aside.unlink()
        return False
    return True
