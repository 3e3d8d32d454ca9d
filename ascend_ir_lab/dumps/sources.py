"""Open anything a user points at: a log, a tree-dir, a Triton cache/dump folder, a Run folder."""

from __future__ import annotations

import json
import mmap
import os
import re
from pathlib import Path
from typing import Any

from ascend_ir_lab.dumps.blocks import open_gzip, open_zstd
from ascend_ir_lab.dumps.body import infer_scope
from ascend_ir_lab.dumps.model import Dump, LogInfo, Message
from ascend_ir_lab.dumps.reader import LogIndex, index_log
from ascend_ir_lab.dumps.timeline import Timeline
from ascend_ir_lab.errors import InputError, NoDumpsError

# Stage files Triton writes into a cache or dump folder, in pipeline order.
STAGE_FILES = (
    ("ttir", (".ttir", ".ttir.mlir")),
    ("adapter", (".ttadapter", ".ttadapter.mlir", ".bcmlir", ".bcmlir.mlir")),
    ("ttgir", (".ttgir", ".ttgir.mlir")),
    ("llir", (".llir", ".ll", ".llir.mlir")),
    ("ptx", (".ptx",)),
    ("amdgcn", (".amdgcn",)),
)
_TREE_FILE = re.compile(r"^(?P<nums>\d+(?:_\d+)*)_(?P<arg>.+)\.mlir$")
_MMAP_FROM = 32 << 20  # map files at least this large instead of reading them
_COMPRESSED = {".gz": open_gzip, ".zst": open_zstd}


def read_bytes(path: Path) -> bytes:
    """The bytes of a file: `.gz` and `.zst` as blocks decompressed on demand (BlockText),
    memory-mapped when large."""
    try:
        if path.suffix in _COMPRESSED:
            return _COMPRESSED[path.suffix](path)  # type: ignore[return-value]
        size = path.stat().st_size
        if size >= _MMAP_FROM:
            with path.open("rb") as f:
                return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)  # type: ignore[return-value]
        return path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, EOFError, ValueError) as exc:
        raise InputError(f"{path}: cannot read: {exc}") from None


class _Builder:
    """Accumulates logs into one Timeline, numbering Dumps across them."""

    def __init__(self) -> None:
        self.logs: list[tuple[LogInfo, bytes]] = []
        self.dumps: list[Dump] = []
        self.messages: list[Message] = []
        self.warnings: list[str] = []

    def add_log(self, path: Path, data: bytes, stage: str) -> LogIndex:
        log_id = len(self.logs)
        idx = index_log(data, stage=stage, log_id=log_id, first_index=len(self.dumps))
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
            len(self.dumps), stage, f"{stage} output", path.name, "", "artifact", scope,
            family, log_id, 0, 0, len(data), len(data), False, scope,
        )  # fmt: skip
        self.logs[-1][0].segments.append(_segment(d))
        self.dumps.append(d)
        return d

    def timeline(self, *, title: str, path: Path, run: dict[str, Any] | None = None) -> Timeline:
        return Timeline(
            self.logs, self.dumps, self.messages, self.warnings,
            title=title, run=run, path=str(path),
        )  # fmt: skip


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
    if p.is_dir():
        if (p / "run.json").is_file():
            return _open_run(p)
        if _tree_files(p):
            return _open_tree(p)
        if _stage_files(p):
            return _open_stage_folder(p)
        kernels = [d for d in p.iterdir() if d.is_dir() and _stage_files(d)]
        if kernels:
            newest = max(kernels, key=lambda d: d.stat().st_mtime)
            raise InputError(
                f"{p}: a Triton cache or dump root with {len(kernels)} kernel folders; open one "
                f"of them (the newest is {newest}), or list them with `ascend-ir-lab cache list`"
            )
        raise InputError(
            f"{p}: a folder, but not a Run folder (run.json), an --mlir-print-ir-tree-dir "
            "folder or a Triton cache/dump folder (*.ttir, *.ttadapter, ...)"
        )
    return read_log(p, stage=stage)


def read_log(path: str | os.PathLike[str], *, stage: str | None = None) -> Timeline:
    """Read one log file (plain or .gz) into a Timeline."""
    p = Path(path).expanduser()
    data = read_bytes(p)
    if not data:
        raise NoDumpsError(f"{p}: the file is empty")
    if b"\0" in data[:8192]:
        raise NoDumpsError(f"{p}: binary data, not a compiler log")
    b = _Builder()
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
    return b.timeline(title=p.name, path=p)


def _looks_like_ir(data: bytes) -> bool:
    head = data[:4096].lstrip()
    return head.startswith((b"module", b"#", b"!", b"func.func", b"tt.func", b"; ModuleID", b"//"))


def _stage_of(p: Path) -> str | None:
    name = p.name.removesuffix(".gz").removesuffix(".zst")
    for stage, suffixes in STAGE_FILES:
        if name.endswith(suffixes):
            return stage
    return None


def _tree_files(folder: Path) -> list[Path]:
    return [f for f in folder.rglob("*.mlir") if _TREE_FILE.match(f.name)]


def _open_tree(folder: Path) -> Timeline:
    files = _tree_files(folder)

    def key(f: Path) -> tuple[tuple[int, ...], str]:
        m = _TREE_FILE.match(f.name)
        assert m is not None
        return tuple(int(n) for n in m["nums"].split("_")), str(f)

    b = _Builder()
    for f in sorted(files, key=key):
        data = read_bytes(f)
        idx = b.add_log(f, data, "tree")
        if not idx.dumps and data.strip():
            m = _TREE_FILE.match(f.name)
            d = b.dumps[-1] if False else b.add_artifact(f, data, "tree")
            d.arg = m["arg"] if m else f.stem
            d.pass_name, d.phase = d.arg, "after"
    if not b.dumps:
        raise NoDumpsError(f"{folder}: tree-dir folder without IR files")
    return b.timeline(title=folder.name, path=folder)


def _stage_files(folder: Path) -> list[tuple[str, Path]]:
    found = []
    for f in sorted(folder.iterdir()):
        stage = _stage_of(f) if f.is_file() else None
        if stage is not None:
            found.append((stage, f))
    order = [s for s, _ in STAGE_FILES]
    return sorted(found, key=lambda sf: (order.index(sf[0]), sf[1].name))


def _open_stage_folder(folder: Path) -> Timeline:
    b = _Builder()
    for stage, f in _stage_files(folder):
        data = read_bytes(f)
        if b"IR Dump" in data:
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
        if f.name.startswith("__grp__"):
            continue
        try:
            meta = json.loads(f.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(meta, dict) and "name" in meta:
            return meta
    return {}


def _open_run(folder: Path) -> Timeline:
    try:
        run = json.loads((folder / "run.json").read_text())
    except (OSError, ValueError) as exc:
        raise InputError(f"{folder / 'run.json'}: unreadable Run manifest: {exc}") from None
    b = _Builder()
    for stage in run.get("stages", []):
        _add_run_stage(b, folder, stage)
    if not b.dumps:
        status = run.get("status", {}).get("text", "")
        raise NoDumpsError(
            f"{folder}: the Run holds no IR yet" + (f" ({status})" if status else "")
        )
    title = run.get("name") or folder.name
    if run.get("target"):
        title = f"{title} ({run['target']})"
    return b.timeline(title=title, path=folder, run=run)


def _add_run_stage(b: _Builder, folder: Path, stage: dict[str, Any]) -> None:
    name = str(stage.get("name", "stage"))
    dumps: list[Dump] = []
    if stage.get("log"):
        log = folder / stage["log"]
        if log.is_file() and log.stat().st_size:
            dumps = b.add_log(log, read_bytes(log), name).dumps
        elif not log.is_file():
            b.warnings.append(f"{folder}: stage {name}: log {stage['log']} is missing")
    artifact = folder / stage["artifact"] if stage.get("artifact") else None
    if artifact is None or not artifact.is_file():
        return
    data = read_bytes(artifact)
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
