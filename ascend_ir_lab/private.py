"""Folders under the temporary directory that are this user's alone (made 0700, checked to be
ours and closed to others), for what the tool keeps between commands."""

from __future__ import annotations

import os
import stat
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
