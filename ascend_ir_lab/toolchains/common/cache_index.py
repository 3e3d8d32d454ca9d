"""A kept index of a Triton cache's kernel folders, so that listing thousands of them costs
one directory scan and one stat per folder.

Each folder's row (kernel name, stages, size, newest file time) is kept with the folder's own
stamp (modification time and inode): a file added, removed or renamed in it (Triton writes
each cache file aside and renames it in) changes the stamp, and the folder is read again. A
folder changed within the last RACY_S seconds is not kept (a change in the same clock tick
would not show in its stamp). The index lives in a private folder
(`<tmp>/ascend-ir-lab-<uid>-index`, mode 0700, ours, or no index at all), one file per root;
anything in it that does not read as an index is ignored and rebuilt.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ascend_ir_lab.private import private_folder, write_aside

Row = tuple[str, tuple[str, ...], int, float]  # kernel name, stages, size, newest mtime
RACY_S = 2.0
KEEP_INDEXES = 64  # roots whose index is kept
_VERSION = 1


def index_file(root: str | os.PathLike[str], kind: str) -> Path | None:
    """Where the index of `root` is kept (None where no private folder can be had)."""
    folder = private_folder("index")
    if folder is None:
        return None
    name = hashlib.sha256(f"{os.path.realpath(root)}\0{kind}".encode()).hexdigest()[:32]
    return folder / f"{name}.json"


def forget(root: str | os.PathLike[str], kind: str) -> None:
    """Drop the kept index of `root` (the next listing reads every folder)."""
    path = index_file(root, kind)
    if path is not None:
        with contextlib.suppress(OSError):
            path.unlink()


def scan(root: Path, kind: str, read: Callable[[str], Row | None]) -> dict[str, Row]:
    """The row of every kernel folder under `root` (by folder name), `read(path)` called
    only for folders new or changed since the index was kept."""
    where = index_file(root, kind)
    old = _load(where) if where is not None else {}
    kept: dict[str, list[Any]] = {}
    rows: dict[str, Row] = {}
    recent = time.time() - RACY_S
    with os.scandir(root) as folders:
        for d in folders:
            if not d.is_dir(follow_symlinks=False):
                continue
            try:
                st = d.stat(follow_symlinks=False)
            except OSError:
                continue
            stamp = [st.st_mtime_ns, st.st_ino]
            known = old.get(d.name)
            row = known[1] if known is not None and known[0] == stamp else read(d.path)
            if row is not None:
                rows[d.name] = row
            if st.st_mtime < recent:
                kept[d.name] = [stamp, row]
    if where is not None and kept != old:
        _save(where, kept)
    return rows


def _load(path: Path) -> dict[str, list[Any]]:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as f:
            data = json.loads(f.read())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != _VERSION:
        return {}
    folders = data.get("folders")
    if not isinstance(folders, dict):
        return {}
    out: dict[str, list[Any]] = {}
    for key, value in folders.items():
        entry = _entry(value)
        if entry is not None:
            out[key] = entry
    return out


def _entry(value: Any) -> list[Any] | None:
    """[stamp, row] from its JSON form, None for anything else."""
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], list)):
        return None
    stamp, row = value
    if row is None:
        return [stamp, None]
    if not (isinstance(row, list) and len(row) == 4 and isinstance(row[0], str)):
        return None
    name, stages, size, mtime = row
    if not (isinstance(stages, list) and all(isinstance(s, str) for s in stages)):
        return None
    if not (isinstance(size, int) and isinstance(mtime, int | float)):
        return None
    return [stamp, (name, tuple(stages), size, float(mtime))]


def _save(path: Path, folders: dict[str, list[Any]]) -> None:
    """Write the index aside, then rename it in (a reader sees the old one or the new)."""
    body = json.dumps({"version": _VERSION, "folders": folders}, separators=(",", ":"))
    if not write_aside(path, [body.encode("utf-8")]):
        return
    with contextlib.suppress(OSError):  # the indexes of roots listed longest ago go first
        kept = sorted(path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime)
        for old in kept[:-KEEP_INDEXES]:
            old.unlink()
