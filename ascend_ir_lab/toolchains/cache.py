"""The Triton cache (`TRITON_CACHE_DIR`, ~/.triton/cache) and dump folder (`TRITON_DUMP_DIR`,
~/.triton/dump): which kernels are there, newest first, and which stage files each has.

Both namings are recognised: `<name>.ttir` / `<name>.ttadapter` (release/3.2.2) or
`kernel.bcmlir` (master), and the dump folder's `kernel.ttir.mlir`, `kernel.ttadapter.mlir`...
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from ascend_ir_lab.errors import InputError

# file suffix -> stage name, in pipeline order
STAGE_SUFFIXES = (
    (".ttir.mlir", "ttir"),
    (".ttadapter.mlir", "ttadapter"),
    (".bcmlir.mlir", "bcmlir"),
    (".llir.mlir", "llir"),
    (".ttir", "ttir"),
    (".ttadapter", "ttadapter"),
    (".bcmlir", "bcmlir"),
    (".npubin", "npubin"),
    (".o", "binary"),
    (".json", "metadata"),
)


def cache_root() -> Path:
    """$TRITON_CACHE_DIR, else ~/.triton/cache."""
    return Path(os.environ.get("TRITON_CACHE_DIR") or Path.home() / ".triton" / "cache")


def dump_root() -> Path:
    """$TRITON_DUMP_DIR, else ~/.triton/dump."""
    return Path(os.environ.get("TRITON_DUMP_DIR") or Path.home() / ".triton" / "dump")


def stage_of(filename: str) -> str | None:
    """The stage a cache/dump file holds, from its name ('add_kernel.ttadapter' -> ttadapter)."""
    for suffix, stage in STAGE_SUFFIXES:
        if filename.endswith(suffix):
            return stage
    return None


@dataclass(frozen=True)
class CacheEntry:
    """One kernel's folder in the cache or dump folder."""

    key: str
    path: Path
    kind: str  # "cache" or "dump"
    name: str
    stages: tuple[str, ...]
    size: int
    mtime: float

    def files(self) -> list[Path]:
        """The entry's files, sorted by name."""
        return sorted(p for p in self.path.iterdir() if p.is_file())

    def stage_file(self, stage: str) -> Path | None:
        """The file holding `stage` (e.g. 'ttadapter'), or None."""
        return next((p for p in self.files() if stage_of(p.name) == stage), None)


def _entry(folder: Path, kind: str) -> CacheEntry | None:
    files = [p for p in folder.iterdir() if p.is_file() and not p.name.startswith("__grp__")]
    if not files:
        return None
    stages: list[str] = []
    for p in files:
        stage = stage_of(p.name)
        if stage and stage != "metadata" and stage not in stages:
            stages.append(stage)
    order = [s for _, s in STAGE_SUFFIXES]
    return CacheEntry(
        key=folder.name,
        path=folder,
        kind=kind,
        name=_kernel_name(files),
        stages=tuple(sorted(stages, key=order.index)),
        size=sum(p.stat().st_size for p in files),
        mtime=max(p.stat().st_mtime for p in files),
    )


def _kernel_name(files: list[Path]) -> str:
    for p in files:
        if p.suffix == ".json" and not p.name.startswith("__grp__"):
            try:
                meta = json.loads(p.read_text())
            except (OSError, ValueError):
                continue
            if isinstance(meta, dict) and meta.get("name"):
                return str(meta["name"]).split()[0]
    for p in files:
        stage = stage_of(p.name)
        if stage and stage != "metadata":
            stem = p.name[: -len(next(s for s, _ in STAGE_SUFFIXES if p.name.endswith(s)))]
            if stem != "kernel":
                return stem
    return "kernel"


def list_entries(*roots: tuple[Path, str]) -> list[CacheEntry]:
    """Kernels in the given (folder, kind) roots (default: cache and dump), newest first."""
    roots = roots or ((cache_root(), "cache"), (dump_root(), "dump"))
    entries: list[CacheEntry] = []
    for root, kind in roots:
        if not root.is_dir():
            continue
        for folder in root.iterdir():
            if folder.is_dir():
                entry = _entry(folder, kind)
                if entry is not None:
                    entries.append(entry)
    return sorted(entries, key=lambda e: e.mtime, reverse=True)


def find_entry(key: str, entries: list[CacheEntry] | None = None) -> CacheEntry:
    """The entry whose key starts with `key`, or the newest whose kernel is named `key`."""
    entries = list_entries() if entries is None else entries
    if key in ("latest", "newest") and entries:
        return entries[0]
    by_key = [e for e in entries if e.key.startswith(key)]
    if len(by_key) > 1:
        raise InputError(f"{key!r} matches {len(by_key)} cache entries; give more characters")
    if by_key:
        return by_key[0]
    by_name = [e for e in entries if e.name == key]
    if by_name:
        return by_name[0]
    where = ", ".join(str(p) for p in (cache_root(), dump_root()))
    raise InputError(f"no cache entry {key!r} in {where} (try `ascend-ir-lab cache list`)")
