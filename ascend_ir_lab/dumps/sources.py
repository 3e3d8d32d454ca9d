"""Open anything a user points at: a log, a tree-dir, a Triton cache/dump folder, a Run folder."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ascend_ir_lab.dumps.builder import LogBuilder, read_bytes, utf16_text
from ascend_ir_lab.dumps.headers import MARKER
from ascend_ir_lab.dumps.index_cache import SnapshotStore
from ascend_ir_lab.dumps.model import Dump
from ascend_ir_lab.dumps.timeline import Timeline
from ascend_ir_lab.dumps.walk import (
    TREE_FILE,
    WALK_MAX_ENTRIES,
    entries,
    tree_inconsistency,
    tree_order,
    walk_tree,
)
from ascend_ir_lab.errors import InputError, NoDumpsError
from ascend_ir_lab.runs.paths import (
    inside,
    is_inside,
    not_own_file,
    refuse_special,
    regular_file,
    small_json,
)

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from typing import Any

# Stage files Triton writes into a cache or dump folder, in pipeline order.
STAGE_FILES = (
    ("ttir", (".ttir", ".ttir.mlir")),
    ("adapter", (".ttadapter", ".ttadapter.mlir", ".bcmlir", ".bcmlir.mlir")),
    ("ttgir", (".ttgir", ".ttgir.mlir")),
    ("llir", (".llir", ".ll", ".llir.mlir")),
    ("ptx", (".ptx",)),
    ("amdgcn", (".amdgcn",)),
)
_META_MAX_BYTES = 1 << 20


def open_timeline(path: str | os.PathLike[str], *, stage: str | None = None) -> Timeline:
    """Read a log, tree-dir, Triton cache/dump folder or Run folder into a Timeline."""
    p = Path(path).expanduser()
    if p.name == "run.json":
        p = p.parent
    refuse_special(p)
    if p.is_dir():
        if (p / "run.json").exists() or (p / "run.json").is_symlink():
            return _open_run(p)
        tree, skipped = walk_tree(p)
        if tree:
            return _open_tree(p, tree, skipped)
        if _stage_files(p):
            return _open_stage_folder(p)
        if _dot_cfg_folder(p):
            raise InputError(f"{p}: {_DOT_CFG}")
        kernels = _kernel_folders(p)
        if kernels:
            newest = max(kernels, key=lambda d: d.stat().st_mtime)
            raise InputError(
                f"{p}: a Triton cache or dump root with {len(kernels)} kernel folders; open one "
                f"of them (the newest is {newest}), or list them with `ascend-ir-lab cache list`"
            )
        raise InputError(
            f"{p}: a folder, but not a Run folder (run.json), an --mlir-print-ir-tree-dir "
            "folder or a Triton cache/dump folder (*.ttir, *.ttadapter, ...)"
            + (f"; {skipped[-1]}" if skipped else "")
        )
    return read_log(p, stage=stage)


# LLVM's `-print-changed=dot-cfg` writes no IR text: `passes.html` and a `diff_N.pdf` graph
# per change in its `-dot-cfg-dir`.
_DOT_CFG = ("LLVM's -print-changed=dot-cfg output (passes.html and diff_N.pdf graphs), which "
            "holds no IR text; print the IR to a log with -print-changed or -print-after-all")  # fmt: skip


def _dot_cfg_folder(folder: Path) -> bool:
    return (folder / "passes.html").is_file() and any(folder.glob("diff_*.pdf"))


def _kernel_folders(root: Path) -> list[Path]:
    """The kernel folders of a Triton cache/dump root (one level down, links not followed)."""
    found = []
    for d in entries(root)[:WALK_MAX_ENTRIES]:
        try:
            if d.is_dir() and not d.is_symlink() and _stage_files(d):
                found.append(d)
        except OSError:
            continue
    return found


def read_log(path: str | os.PathLike[str], *, stage: str | None = None) -> Timeline:
    """Read one log file (plain or .gz) into a Timeline."""
    p = Path(path).expanduser()
    refuse_special(p)
    data = read_bytes(p)
    if not data:  # a damaged compressed log that gave nothing says why
        raise NoDumpsError("; ".join(getattr(data, "warnings", ())) or f"{p}: the file is empty")
    b = LogBuilder()
    wide = utf16_text(data)
    if wide is not None:
        data = wide
        b.warnings.append(f"{p}: UTF-16 text (as PowerShell's `>` writes it); read as UTF-8, "
                          "byte offsets into that")  # fmt: skip
    if b"\0" in data[:8192]:
        # a log with a few stray NUL bytes (a crashed writer, a padded tail) is still a log
        if data.find(MARKER) < 0:  # `in` of a mapped file reads it a byte at a time
            raise NoDumpsError(f"{p}: binary data, not a compiler log")
        b.warnings.append(f"{p}: holds NUL bytes; read as text around them")
    name = stage or _stage_of(p) or "log"
    idx = b.add_log(p, data, name)
    if not idx.dumps:
        if _looks_like_ir(data):
            b.logs.clear()
            b.messages.clear()
            b.streams.clear()
            b.add_artifact(p, data, name)
            b.warnings.append(f"{p}: no pass dumps; read as a single IR file")
        elif p.name == "passes.html" and _dot_cfg_folder(p.parent):
            raise NoDumpsError(f"{p}: {_DOT_CFG}")
        else:
            raise NoDumpsError(
                f"{p}: no IR dumps found (expected headers such as "
                "'// -----// IR Dump After ...'); compile with --mlir-print-ir-after-all"
            )
    kept = SnapshotStore(b.kept_as) if len(b.logs) == 1 and idx.dumps and b.kept_as else None
    return b.timeline(title=p.name, path=p, kept=kept)


def _looks_like_ir(data: bytes) -> bool:
    head = data[:4096].lstrip()
    return head.startswith((b"module", b"#", b"!", b"func.func", b"tt.func", b"; ModuleID", b"//"))


def _stage_of(p: Path) -> str | None:
    name = p.name.removesuffix(".gz").removesuffix(".zst")
    for stage, suffixes in STAGE_FILES:
        if name.endswith(suffixes):
            return stage
    return None


def _open_tree(folder: Path, files: list[Path], skipped: list[str]) -> Timeline:
    b = LogBuilder()
    b.warnings.extend(skipped)
    gap = tree_inconsistency(folder, files)
    if gap:
        b.warnings.append(f"{gap}; the dumps read are in order, some may be missing")
    for f in tree_order(folder, files):
        data = _member(b, f)
        if data is None:
            continue
        idx = b.add_log(f, data, "tree")
        if not idx.dumps and data.strip():
            m = TREE_FILE.match(f.name)
            d = b.add_artifact(f, data, "tree")
            d.arg = m["arg"] if m else f.stem
            d.pass_name, d.phase = d.arg, "after"
    if not b.dumps:
        raise NoDumpsError(f"{folder}: tree-dir folder without IR files")
    return b.timeline(title=folder.name, path=folder)


def _member(b: LogBuilder, f: Path) -> bytes | None:
    """The bytes of one file of a folder being read; a file that cannot be read is skipped
    with a warning rather than failing the whole folder."""
    try:
        return read_bytes(f)
    except InputError as exc:
        b.warnings.append(f"{exc}; skipped")
        return None


def _stage_files(folder: Path) -> list[tuple[str, Path]]:
    found = []
    for f in entries(folder)[:WALK_MAX_ENTRIES]:
        stage = _stage_of(f) if f.is_file() and is_inside(folder, f) else None
        if stage is not None:
            found.append((stage, f))
    order = [s for s, _ in STAGE_FILES]
    return sorted(found, key=lambda sf: (order.index(sf[0]), *_file_order(sf[1].name)))


# LLVM's `-ir-dump-directory`: one file per printed dump, `<pass number>-<module hash>-<unit>-
# <PassID>-before.ll` (`-after.ll`, `-invalidated.ll`): read in the order they were printed.
_IR_DUMP_FILE = re.compile(r"^(?P<n>\d+)-[0-9a-f]{16}-.+-(?P<when>before|after|invalidated)\.ll$")
_WHEN = {"before": 0, "after": 1, "invalidated": 1}


def _file_order(name: str) -> tuple[int, int, str]:
    m = _IR_DUMP_FILE.match(name)
    return (int(m["n"]), _WHEN[m["when"]], name) if m else (0, 0, name)


def _open_stage_folder(folder: Path) -> Timeline:
    b = LogBuilder()
    for stage, f in _stage_files(folder):
        data = _member(b, f)
        if data is None:
            continue
        if data.find(MARKER) >= 0:
            b.add_log(f, data, stage)
        else:
            b.add_artifact(f, data, stage)
    meta = _triton_metadata(folder)
    title = meta.get("name") or folder.name
    return b.timeline(
        title=str(title), path=folder, run={"triton_metadata": meta} if meta else None
    )


def _triton_metadata(folder: Path) -> dict[str, Any]:

    for f in sorted(folder.glob("*.json")):
        if f.name.startswith("__grp__") or not (regular_file(f) and is_inside(folder, f)):
            continue
        meta = small_json(f, _META_MAX_BYTES)  # bounded, never waited on (a FIFO swapped in)
        if isinstance(meta, dict) and "name" in meta:
            return meta
    return {}


def _open_run(folder: Path) -> Timeline:
    from ascend_ir_lab.runs.manifest import read_manifest  # only a Run folder needs it

    run, warnings = read_manifest(folder)
    b = LogBuilder()
    b.warnings.extend(warnings)
    for stage in run.get("stages", []):
        _add_run_stage(b, folder, stage)
    if not b.dumps:
        status = (run.get("status") or {}).get("text", "")
        raise NoDumpsError(
            f"{folder}: the Run holds no IR yet" + (f" ({status})" if status else "")
        )
    title = run.get("name") or folder.name
    if run.get("target"):
        title = f"{title} ({run['target']})"
    return b.timeline(title=title, path=folder, run=run)


def _run_file(b: LogBuilder, folder: Path, stage: str, what: str, rel: object) -> bytes | None:
    """The bytes of a file a Run's stage names: only a regular file inside the Run folder."""
    if not rel:
        return None
    path = inside(folder, rel)
    if path is None:
        b.warnings.append(f"{folder}: stage {stage}: {what} {rel!r} is outside the Run; not read")
        return None
    if not path.exists():
        if what == "log":
            b.warnings.append(f"{folder}: stage {stage}: log {rel} is missing")
        return None
    why = not_own_file(folder, path)
    if why is not None:
        b.warnings.append(f"{folder}: stage {stage}: {what} {rel} is {why}; not read")
        return None
    try:
        return read_bytes(path, within=folder)
    except InputError as exc:
        b.warnings.append(f"stage {stage}: {exc}; not read")
        return None


def _add_run_stage(b: LogBuilder, folder: Path, stage: dict[str, Any]) -> None:
    from ascend_ir_lab.runs.format import STAGE_STATUS  # a Run folder's only: start-up stays small

    name = str(stage.get("name", "stage"))
    dumps: list[Dump] = []
    if stage.get("status") in STAGE_STATUS:
        b.warnings.append(f"{folder}: stage {name} {stage['status']} (exit code "
                          f"{stage.get('returncode')}): its log ends where the tool was stopped")  # fmt: skip
    log = _run_file(b, folder, name, "log", stage.get("log"))
    if log and b"\0" in log[:8192] and log.find(MARKER) < 0:
        # as read_log refuses such a file: a gigabyte of NUL bytes is no compiler log
        b.warnings.append(f"{folder}: stage {name}: log {stage['log']} is binary data, "
                          "not a compiler log; not read")  # fmt: skip
        log = None
    if log:
        dumps = b.add_log(folder / stage["log"], log, name).dumps
    elif log is not None:  # a damaged compressed log that gave nothing says why
        b.warnings.extend(getattr(log, "warnings", ()))
    data = _run_file(b, folder, name, "artifact", stage.get("artifact"))
    if data is None:
        return
    b.warnings.extend(getattr(data, "warnings", ()))  # a damaged `.zst` artifact says so
    if not data and getattr(data, "warnings", None):
        return
    artifact = folder / stage["artifact"]
    # A before-only log never shows its last pass's output, and a stage's file may be in
    # another language than its dumps (PTX after LLVM passes): the stage file shows both.
    # Pipeliner-internal dumps are snapshots inside one pass, not pass outputs.
    passes = [d for d in dumps if d.family != "mlir-internal"]
    before_only = all(d.phase == "before" for d in passes)
    if not passes or before_only or _differs_from_last(b, passes[-1], data):
        b.add_artifact(artifact, data, name)


def _differs_from_last(b: LogBuilder, last: Dump, data: bytes) -> bool:
    shown = b.logs[last.log_id][1][last.body_start : last.body_end]
    return bytes(shown).strip() != data.strip()
