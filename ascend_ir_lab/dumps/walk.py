"""Folder walks bounded to the shapes read here (a tree-dir, a cache entry, a Run): no
deeper and no wider than those go, links not followed, and each says what it skipped."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ascend_ir_lab.dumps.body import SYMBOL_GAP

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


def tree_order(folder: Path, files: list[Path]) -> list[Path]:
    """The files of a tree-dir in the order MLIR printed them, as far as the tree keeps it.

    A file's name holds, for each op from the top-level one down to the op the pass ran on,
    that op's print counter: its ancestors' current counts, then its own, just incremented
    (`3_1_cse.mlir` in `module/func_f`: after the module's print 3, f's print 1). Ordered by
    (op, count) at each level, a nested print comes after its parent's print of the same
    count and before the next one, and the prints of one op keep their order. Sibling ops
    between two parent prints come one after the other as the pass manager runs them with
    one thread, in their order in the parent's IR as printed then (by name where the parent
    has no print); with threads the log interleaves them as the threads happened to run.
    """
    parsed = {f: _tree_place(folder, f) for f in files}
    prints: dict[tuple[str, ...], dict[int, Path]] = {}
    children: dict[tuple[tuple[str, ...], int], set[str]] = {}  # parent print -> its ops
    for f, (levels, nums) in parsed.items():
        if len(levels) == len(nums) and nums:
            prints.setdefault(levels, {})[nums[-1]] = f
            for i in range(1, len(levels)):
                children.setdefault((levels[:i], nums[i - 1]), set()).add(levels[i])
    ranks: dict[Path, dict[str, int]] = {}

    def rank(parent: tuple[str, ...], count: int, child: str) -> int:
        own = prints.get(parent)
        if not own or len(children.get((parent, count), ())) < 2:
            return 0  # no sibling to come before or after
        before = [c for c in own if c <= count]
        text_of = own[max(before)] if before else own[min(own)]
        if text_of not in ranks:
            ranks[text_of] = _op_positions(text_of)
        return ranks[text_of].get(child, 1 << 30)

    def key(f: Path) -> tuple[tuple[int, str, int], ...]:
        levels, nums = parsed[f]
        size = max(len(levels), len(nums))
        levels = levels + ("",) * (size - len(levels))  # a file that does not fit the tree
        nums = nums + (-1,) * (size - len(nums))
        out = [(0, levels[0], nums[0])] if size else []
        for i in range(1, size):
            out.append((rank(levels[:i], nums[i - 1], levels[i]), levels[i], nums[i]))
        return (*out, (0, f.name, 0))

    return sorted(files, key=key)


def _tree_place(folder: Path, f: Path) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """(the op folders from the tree's top down, the counts in the file's name)."""
    text, top = str(f), str(folder)
    rel = (
        text[len(top) + 1 :] if text.startswith(top + os.sep) else f.relative_to(folder).as_posix()
    )
    parts = rel.split(os.sep) if os.sep in rel else rel.split("/")
    m = TREE_FILE.match(parts[-1])
    return tuple(parts[:-1]), tuple(int(n) for n in m["nums"].split("_")) if m else ()


# an op with a symbol as MLIR prints it: `func.func @f(`, `func.func private @g(`,
# `llvm.func internal fastcc @h(`
_SYMBOL_OP = re.compile(
    rb"^[ \t]*([a-z][\w$]*(?:\.[\w$]+)+)" + SYMBOL_GAP.encode() + rb"@(\"[^\"\n]*\"|[\w$.-]+)",
    re.M,
)


def _op_positions(f: Path) -> dict[str, int]:
    """Each nested op's tree folder name (`func_func_f`) -> its place in the IR of `f`."""
    try:
        data = f.read_bytes()
    except OSError:
        return {}
    out: dict[str, int] = {}
    for m in _SYMBOL_OP.finditer(data):
        name = m[1].decode("utf-8", "replace").replace(".", "_")
        symbol = m[2].decode("utf-8", "replace").strip('"')
        out.setdefault(f"{name}_{symbol}", len(out))
    return out


def tree_inconsistency(folder: Path, files: list[Path]) -> str | None:
    """Why a tree-dir may not hold every print, or None when its counters say it does.

    MLIR counts prints per op (per pointer): each op's own counts run on by one (from
    where a dead op at the same address left off), and its ancestors' counts in its names
    never go back. A repeat, a gap or a count going back says a print may have been
    overwritten: a second pass manager (a retry) restarting the counters, an op replaced by
    one of the same name.
    """
    own: dict[tuple[str, ...], list[tuple[int, tuple[int, ...]]]] = {}
    for f in files:
        levels, nums = _tree_place(folder, f)
        if not nums or len(nums) != len(levels):
            return f"{f}: its name does not match its place in the tree"
        own.setdefault(levels, []).append((nums[-1], nums[:-1]))
    for levels, prints in own.items():
        prints.sort()
        counts = [c for c, _ in prints]
        ancestors = [a for _, a in prints]
        if counts != list(range(counts[0], counts[0] + len(counts))) or ancestors != sorted(
            ancestors
        ):
            where = "/".join(levels)
            return f"{where}: print counts {_runs(counts)} repeat, skip or go back"
    return None


def _runs(counts: list[int]) -> str:
    shown = ", ".join(map(str, counts[:8]))
    return f"{shown}, ..." if len(counts) > 8 else shown


def entries(folder: Path) -> list[Path]:
    """The entries of `folder`, sorted ([] when it cannot be listed)."""
    try:
        return sorted(folder.iterdir())
    except OSError:
        return []
