"""Folder walks bounded to the shapes read here (a tree-dir, a cache entry, a Run): no
deeper and no wider than those go, links not followed, and each says what it skipped."""

from __future__ import annotations

import os
import re
from pathlib import Path

TREE_MAX_DEPTH = 8
WALK_MAX_ENTRIES = 20_000
TREE_FILE = re.compile(r"^(?P<nums>\d+(?:_\d+)*)_(?P<arg>.+)\.mlir$")
# The folder of one op in a tree-dir: its name with `_` for `.`, then its symbol
# (`builtin_module_no-symbol-name`, `func_func_vadd`, `gpu_module_kernels`).
TREE_OP_FOLDER = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9$]+)+_[^/]+$")


def walk_tree(folder: Path) -> tuple[list[Path], list[str]]:
    """The files of an --mlir-print-ir-tree-dir folder, and what was skipped.

    Such a folder holds one folder per top-level op, and in each op folder the pass files
    of that op and one folder per nested op (an op no pass ran on, such as the module of
    `builtin.module(func.func(cse))`, holds only those): so the walk enters the folders of
    `folder`, and below them the folders of a folder that holds pass files or is named as
    an op folder is, never through a link, no deeper than TREE_MAX_DEPTH and over no more
    than WALK_MAX_ENTRIES entries.
    """
    files: list[Path] = []
    skipped: list[str] = []
    stack, seen = [(folder, 0)], 0
    while stack:
        d, depth = stack.pop()
        try:
            with os.scandir(d) as it:
                found = list(it)
        except OSError as exc:
            skipped.append(f"{d}: cannot be listed ({exc.strerror or exc}); skipped")
            continue
        seen += len(found)
        if seen > WALK_MAX_ENTRIES:
            skipped.append(f"{folder}: stopped after {WALK_MAX_ENTRIES} entries (a tree-dir, "
                           "a cache entry or a Run is smaller)")  # fmt: skip
            break
        here = [e for e in found if TREE_FILE.match(e.name)]
        files += [Path(e.path) for e in here if e.is_file(follow_symlinks=False)]
        skipped += [f"{e.path}: not a regular file; skipped"
                    for e in here if not e.is_file(follow_symlinks=False)]  # fmt: skip
        subdirs = [e for e in found if e.is_dir(follow_symlinks=False)]
        if not (depth == 0 or here or TREE_OP_FOLDER.match(d.name)):
            subdirs = []  # no op folder: the tree, if any, is not below it
        if subdirs:
            if depth >= TREE_MAX_DEPTH:
                skipped.append(f"{d}: nested deeper than {TREE_MAX_DEPTH} ops; not read")
            else:
                stack += [(Path(e.path), depth + 1) for e in subdirs]
    return files, skipped


def entries(folder: Path) -> list[Path]:
    """The entries of `folder`, sorted ([] when it cannot be listed)."""
    try:
        return sorted(folder.iterdir())
    except OSError:
        return []
