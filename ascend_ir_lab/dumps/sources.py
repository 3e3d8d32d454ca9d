"""Open anything a user points at: a log, a tree-dir, a Triton cache/dump folder, a Run folder."""

from __future__ import annotations

import mmap
import os
import stat
from pathlib import Path
from typing import Any

from ascend_ir_lab.dumps.blocks import open_gzip
from ascend_ir_lab.dumps.body import infer_scope
from ascend_ir_lab.dumps.headers import MARKER
from ascend_ir_lab.dumps.index_cache import SnapshotStore, index_file, keep_index, kept_index
from ascend_ir_lab.dumps.log_cache import read_compressed
from ascend_ir_lab.dumps.model import Dump, LogInfo, Message
from ascend_ir_lab.dumps.parallel import index_in_parts
from ascend_ir_lab.dumps.reader import LogIndex, index_log
from ascend_ir_lab.dumps.timeline import Timeline
from ascend_ir_lab.dumps.walk import TREE_FILE, WALK_MAX_ENTRIES, entries, walk_tree
from ascend_ir_lab.dumps.zstd_log import open_zstd
from ascend_ir_lab.errors import InputError, NoDumpsError
from ascend_ir_lab.runs.format import STAGE_STATUS
from ascend_ir_lab.runs.paths import (
    inside,
    is_inside,
    not_own_file,
    refuse_special,
    regular_file,
)

# Stage files Triton writes into a cache or dump folder, in pipeline order.
STAGE_FILES = (
    ("ttir", (".ttir", ".ttir.mlir")),
    ("adapter", (".ttadapter", ".ttadapter.mlir", ".bcmlir", ".bcmlir.mlir")),
    ("ttgir", (".ttgir", ".ttgir.mlir")),
    ("llir", (".llir", ".ll", ".llir.mlir")),
    ("ptx", (".ptx",)),
    ("amdgcn", (".amdgcn",)),
)
_MMAP_FROM = 32 << 20  # map files at least this large instead of reading them
_COMPRESSED = {".gz": open_gzip, ".zst": open_zstd}
_META_MAX_BYTES = 1 << 20


def read_bytes(path: Path, within: Path | None = None) -> bytes:
    """The bytes of a file: `.gz` and `.zst` as blocks decompressed on demand (BlockText),
    memory-mapped when large; with `within`, a plain file must still lie in that folder once
    open (a name swapped for a link out after its check is refused)."""
    try:
        if path.suffix in _COMPRESSED:
            return read_compressed(path, _COMPRESSED[path.suffix], _MMAP_FROM)
        # Opened without blocking and checked once open: a file swapped for a FIFO or a
        # device after it was checked is refused here rather than hanging the read.
        with open(os.open(path, _READ_FLAGS), "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise InputError(f"{path}: not a regular file; not read")
            if within is not None and not _opened_inside(f.fileno(), within):
                raise InputError(f"{path}: lies outside the Run folder once open; not read")
            if st.st_size >= _MMAP_FROM:
                _refuse_sparse(path, f.fileno(), st)
                return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)  # type: ignore[return-value]
            return f.read()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, EOFError, ValueError) as exc:
        raise InputError(f"{path}: cannot read: {exc}") from None


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def _opened_inside(fd: int, folder: Path) -> bool:
    """Whether the file open as `fd` lies in `folder` (where /proc tells; else: yes, the
    path was checked before the open)."""
    try:
        return is_inside(folder, os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:
        return True


def _refuse_sparse(path: Path, fd: int, st: os.stat_result) -> None:
    """InputError for a large file with holes (`truncate -s 50G`): a compiler writes its log
    byte by byte, and reading gigabytes of nothing would take minutes and memory."""
    seek_hole = getattr(os, "SEEK_HOLE", None)
    try:
        hole = os.lseek(fd, 0, seek_hole) if seek_hole is not None else st.st_size
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:  # a file system that cannot say
        return
    if hole < st.st_size:
        raise InputError(f"{path}: a sparse file ({st.st_size} bytes, "
                         f"{st.st_blocks * 512} on disk), not a compiler log; not read")  # fmt: skip


class _Builder:
    """Accumulates logs into one Timeline, numbering Dumps across them."""

    def __init__(self) -> None:
        self.logs: list[tuple[LogInfo, bytes]] = []
        self.dumps: list[Dump] = []
        self.messages: list[Message] = []
        self.warnings: list[str] = []
        self.kept_as: Path | None = None  # where the last log's index is kept, if anywhere

    def add_log(self, path: Path, data: bytes, stage: str) -> LogIndex:
        log_id = len(self.logs)
        first = len(self.dumps)
        idx, self.kept_as = _index(path, data, stage)
        if log_id or first:
            idx.shift(log_id, first)
        info = LogInfo(str(path), stage, len(data), idx.segments)
        self.logs.append((info, data))
        self.dumps.extend(idx.dumps)
        self.messages.extend(idx.messages)
        self.warnings.extend(getattr(data, "warnings", ()))
        self.warnings.extend(f"{path}: {w}" for w in idx.warnings)
        return idx

    def add_artifact(self, path: Path, data: bytes, stage: str) -> Dump:
        """A whole stage file as one Dump (phase `artifact`)."""
        log_id = len(self.logs)
        self.logs.append((LogInfo(str(path), stage, len(data)), data))
        family = _family_of(path)
        scope = "module" if family == "asm" else infer_scope(data, 0, len(data), family)
        d = Dump(
            len(self.dumps), stage, f"{stage} output", path.name.removesuffix(".zst"), "",
            "artifact", scope,
            family, log_id, 0, 0, len(data), len(data), False, scope,
        )  # fmt: skip
        self.logs[-1][0].segments.append(_segment(d))
        self.dumps.append(d)
        return d

    def timeline(
        self,
        *,
        title: str,
        path: Path,
        run: dict[str, Any] | None = None,
        kept: SnapshotStore | None = None,
    ) -> Timeline:
        return Timeline(
            self.logs, self.dumps, self.messages, self.warnings,
            title=title, run=run, path=str(path), kept_snapshots=kept,
        )  # fmt: skip


def _index(path: Path, data: bytes, stage: str) -> tuple[LogIndex, Path | None]:
    """The index of one log, as log 0 from Dump 0: kept from an earlier read of the same
    large log, or read now (on several cores where it pays) and kept; and where it is kept
    (None: a small log, or nowhere to keep it)."""
    name = index_file(path, len(data), stage)
    kept = kept_index(name) if name is not None else None
    if kept is not None:
        return kept, name
    idx = index_in_parts(data, stage=stage, log_id=0)
    if idx is None:  # a small log, or one that cannot be read on several cores
        idx = index_log(data, stage=stage, log_id=0)
    return idx, name if name is not None and keep_index(name, idx) else None


def _family_of(path: Path) -> str:
    """The language of a stage file, from its name."""
    name = path.name.removesuffix(".gz").removesuffix(".zst")
    if name.endswith((".llir", ".ll")):
        return "llvm"
    if name.endswith((".ptx", ".amdgcn", ".s", ".asm")):
        return "asm"
    return "mlir"


def _segment(d: Dump) -> Any:
    from ascend_ir_lab.dumps.model import Segment

    return Segment("dump", d.start, d.end, d.index)


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
    if not data:
        raise NoDumpsError(f"{p}: the file is empty")
    b = _Builder()
    if b"\0" in data[:8192]:
        # a log with a few stray NUL bytes (a crashed writer, a padded tail) is still a log
        if MARKER not in data:
            raise NoDumpsError(f"{p}: binary data, not a compiler log")
        b.warnings.append(f"{p}: holds NUL bytes; read as text around them")
    name = stage or _stage_of(p) or "log"
    idx = b.add_log(p, data, name)
    if not idx.dumps:
        if _looks_like_ir(data):
            b.logs.clear()
            b.messages.clear()
            b.add_artifact(p, data, name)
            b.warnings.append(f"{p}: no pass dumps; read as a single IR file")
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

    def key(f: Path) -> tuple[tuple[int, ...], str]:
        m = TREE_FILE.match(f.name)
        assert m is not None
        return tuple(int(n) for n in m["nums"].split("_")), str(f)

    b = _Builder()
    b.warnings.extend(skipped)
    for f in sorted(files, key=key):
        data = _member(b, f)
        if data is None:
            continue
        idx = b.add_log(f, data, "tree")
        if not idx.dumps and data.strip():
            m = TREE_FILE.match(f.name)
            d = b.dumps[-1] if False else b.add_artifact(f, data, "tree")
            d.arg = m["arg"] if m else f.stem
            d.pass_name, d.phase = d.arg, "after"
    if not b.dumps:
        raise NoDumpsError(f"{folder}: tree-dir folder without IR files")
    return b.timeline(title=folder.name, path=folder)


def _member(b: _Builder, f: Path) -> bytes | None:
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
    return sorted(found, key=lambda sf: (order.index(sf[0]), sf[1].name))


def _open_stage_folder(folder: Path) -> Timeline:
    b = _Builder()
    for stage, f in _stage_files(folder):
        data = _member(b, f)
        if data is None:
            continue
        if MARKER in data:
            b.add_log(f, data, stage)
        else:
            b.add_artifact(f, data, stage)
    meta = _triton_metadata(folder)
    title = meta.get("name") or folder.name
    return b.timeline(
        title=str(title), path=folder, run={"triton_metadata": meta} if meta else None
    )


def _triton_metadata(folder: Path) -> dict[str, Any]:
    import json  # only for a Triton cache or dump folder

    for f in sorted(folder.glob("*.json")):
        if f.name.startswith("__grp__") or not (regular_file(f) and is_inside(folder, f)):
            continue
        try:
            if f.stat().st_size > _META_MAX_BYTES:
                continue
            meta = json.loads(f.read_text())
        except (OSError, ValueError, RecursionError):
            continue
        if isinstance(meta, dict) and "name" in meta:
            return meta
    return {}


def _open_run(folder: Path) -> Timeline:
    from ascend_ir_lab.runs.manifest import read_manifest  # only a Run folder needs it

    run, warnings = read_manifest(folder)
    b = _Builder()
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


def _run_file(b: _Builder, folder: Path, stage: str, what: str, rel: object) -> bytes | None:
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


def _add_run_stage(b: _Builder, folder: Path, stage: dict[str, Any]) -> None:
    name = str(stage.get("name", "stage"))
    dumps: list[Dump] = []
    if stage.get("status") in STAGE_STATUS:
        b.warnings.append(f"{folder}: stage {name} {stage['status']} (exit code "
                          f"{stage.get('returncode')}): its log ends where the tool was stopped")  # fmt: skip
    log = _run_file(b, folder, name, "log", stage.get("log"))
    if log:
        dumps = b.add_log(folder / stage["log"], log, name).dumps
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


def _differs_from_last(b: _Builder, last: Dump, data: bytes) -> bool:
    shown = b.logs[last.log_id][1][last.body_start : last.body_end]
    return bytes(shown).strip() != data.strip()
