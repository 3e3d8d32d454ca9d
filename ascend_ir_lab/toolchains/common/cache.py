"""The Triton cache (`TRITON_CACHE_DIR`, ~/.triton/cache) and dump folder (`TRITON_DUMP_DIR`,
~/.triton/dump): which kernels are there, newest first, and which stage files each has.

Both namings are recognised: `<name>.ttir` / `<name>.ttadapter` (release/3.2.2) or
`kernel.bcmlir` (master), and the dump folder's `kernel.ttir.mlir`, `kernel.ttadapter.mlir`...
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ascend_ir_lab.dumps.builder import read_bytes
from ascend_ir_lab.errors import InputError
from ascend_ir_lab.runs.paths import small_json
from ascend_ir_lab.toolchains.common.cache_index import Row, scan

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


_BY_SUFFIX = dict(STAGE_SUFFIXES)


def stage_of(filename: str) -> str | None:
    """The stage a cache/dump file holds, from its name ('add_kernel.ttadapter' -> ttadapter)."""
    dot = filename.find(".")
    if dot >= 0 and (found := _BY_SUFFIX.get(filename[dot:])) is not None:
        return found  # the common case: a kernel name has no dot
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


def _row(folder: str) -> Row | None:
    """One kernel folder's row, from a single directory scan (names and one stat per file)."""
    files: list[tuple[str, int, float]] = []
    try:
        with os.scandir(folder) as scan:
            for item in scan:
                if item.name.startswith("__grp__") or not item.is_file(follow_symlinks=False):
                    continue
                st = item.stat(follow_symlinks=False)
                files.append((item.name, st.st_size, st.st_mtime))
    except OSError:
        return None
    if not files:
        return None
    stages: list[str] = []
    for name, _, _ in files:
        stage = stage_of(name)
        if stage and stage != "metadata" and stage not in stages:
            stages.append(stage)
    return (
        _kernel_name(Path(folder), [f[0] for f in files]),
        tuple(sorted(stages, key=_ORDER.index)),
        sum(f[1] for f in files),
        max(f[2] for f in files),
    )


_ORDER = [s for _, s in STAGE_SUFFIXES]


def _kernel_name(folder: Path, names: list[str]) -> str:
    """The kernel's name: from its stage files' stem (`add_kernel.ttir`), else from the
    metadata json (master names every file `kernel.*`)."""
    for name in sorted(names):
        stage = stage_of(name)
        if stage and stage != "metadata":
            stem = name[: -len(next(s for s, _ in STAGE_SUFFIXES if name.endswith(s)))]
            if stem != "kernel":
                return stem
    for name in sorted(names):
        if name.endswith(".json"):
            # a shared cache may hold anything: a FIFO, 20 GB of holes, `[` 1e5 deep
            meta = small_json(folder / name, _META_MAX_BYTES)
            if isinstance(meta, dict) and meta.get("name"):
                return str(meta["name"]).split()[0]
    return "kernel"


_META_MAX_BYTES = 1 << 20  # a kernel's metadata json is a few KB


def list_entries(*roots: tuple[Path, str]) -> list[CacheEntry]:
    """Kernels in the given (folder, kind) roots (default: cache and dump), newest first; a
    folder unchanged since the last listing is not read again (cache_index)."""
    roots = roots or ((cache_root(), "cache"), (dump_root(), "dump"))
    entries: list[CacheEntry] = []
    for root, kind in roots:
        try:
            rows = scan(root, kind, _row)
        except OSError:
            continue
        entries.extend(
            CacheEntry(key, root / key, kind, name, stages, size, mtime)
            for key, (name, stages, size, mtime) in rows.items()
        )
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


@dataclass(frozen=True)
class SearchHit:
    """A kernel whose IR holds the text searched for: where, how often, the first line."""

    entry: CacheEntry
    file: str
    stage: str
    count: int
    line: str


_IR_STAGES = {"ttir", "ttadapter", "bcmlir", "llir"}
_PARALLEL_FROM = 400  # entries; below this, starting processes costs more than it saves


def search_entries(
    text: str, entries: list[CacheEntry] | None = None, *, jobs: int | None = None
) -> list[SearchHit]:
    """Kernels whose IR files contain `text` (an op such as `hivm.hir.vadd`, or any text),
    in the order of `entries`; across processes when there are many kernels."""
    if not text:
        raise InputError("cache search: give the text or op to look for")
    entries = list_entries() if entries is None else entries
    work = [(str(e.path), text) for e in entries]
    jobs = jobs if jobs is not None else min(8, os.cpu_count() or 1)
    found = _in_processes(work, jobs) if jobs > 1 and len(work) >= _PARALLEL_FROM else None
    if found is None:
        found = [_search_folder(w) for w in work]
    hits: list[SearchHit] = []
    for entry, matches in zip(entries, found, strict=True):
        hits.extend(SearchHit(entry, *m) for m in matches)
    return hits


def _in_processes(
    work: list[tuple[str, str]], jobs: int
) -> list[list[tuple[str, str, int, str]]] | None:
    """The folders searched by `jobs` worker processes; None when the workers cannot start
    here (the search then runs in this process)."""
    import concurrent.futures
    import multiprocessing

    chunk = max(1, len(work) // (jobs * 8))
    try:
        with concurrent.futures.ProcessPoolExecutor(
            jobs, mp_context=multiprocessing.get_context("spawn")
        ) as pool:
            return list(pool.map(_search_folder, work, chunksize=chunk, timeout=600))
    except (OSError, RuntimeError, concurrent.futures.TimeoutError):
        return None  # BrokenProcessPool is a RuntimeError


def _search_folder(job: tuple[str, str]) -> list[tuple[str, str, int, str]]:
    """(file, stage, count, first line) for each IR file of one folder holding the text."""
    folder, text = job
    needle = text.encode()
    matches = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    for name in names:
        stage = stage_of(name)
        if stage not in _IR_STAGES:
            continue
        try:  # not a FIFO (never waited on), a sparse file or a link out of the folder
            data = read_bytes(Path(folder, name), within=Path(folder))
        except InputError:
            continue
        k = data.find(needle)
        if k < 0:
            continue
        start, end = data.rfind(b"\n", 0, k) + 1, data.find(b"\n", k)
        line = data[start : end if end >= 0 else len(data)].decode("utf-8", "replace").strip()
        matches.append((name, stage, data.count(needle), line[:200]))
    return matches
