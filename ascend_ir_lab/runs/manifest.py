"""Reading run.json: the one place a Run folder's manifest is opened, validated and confined."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.runs.format import MANIFEST
from ascend_ir_lab.runs.paths import inside, read_small, refuse_special
from ascend_ir_lab.runs.validate import (
    MAX_MANIFEST_BYTES,
    ManifestError,
    check_manifest,
    parse_manifest,
)


def read_manifest(folder: str | os.PathLike[str]) -> tuple[dict[str, Any], list[str]]:
    """The validated manifest of the Run folder `folder`, and the warnings it raised.

    Raises InputError (ManifestError) naming the file and field when the Run is unusable.
    """
    folder = Path(folder)
    path = folder / MANIFEST
    if not path.exists() and not path.is_symlink():
        raise InputError(f"{folder}: not a Run folder (no {MANIFEST})")
    if inside(folder, MANIFEST) is None:
        raise ManifestError(f"{path}: a link out of the Run folder; not read")
    refuse_special(path)
    try:
        data = read_small(path, MAX_MANIFEST_BYTES)
    except InputError as exc:
        raise ManifestError(str(exc)) from None
    return check_manifest(parse_manifest(data, path), folder)


def has_our_format(folder: str | os.PathLike[str]) -> bool:
    """Whether `folder` holds a run.json of this format (a folder we may replace)."""
    try:
        read_manifest(folder)
    except InputError:
        return False
    return True
