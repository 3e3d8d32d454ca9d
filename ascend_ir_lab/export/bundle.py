"""The bug-report bundle's files: a Run, its barrier-all twin and the facts gathered, into a zip.

Pure: data in, files out. What needs a process (the pass reproducer, this host's facts) is
gathered by `ascend_ir_lab.share.report` and handed here as plain data.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
import time
import zipfile
from pathlib import Path
from typing import IO, Any

from ascend_ir_lab.dumps.zstd_log import open_zstd
from ascend_ir_lab.export.html import render_html
from ascend_ir_lab.export.notes import notes_document
from ascend_ir_lab.export.report_md import branch_style, kernel_reproducer
from ascend_ir_lab.runs import inside, is_cache_entry, is_inside, regular_file, safe_arcname
from ascend_ir_lab.runs.paths import files_inside
from ascend_ir_lab.safe_text import json_escaped

__all__ = ["add_readme", "cache_folder", "environment", "write_bundle"]

CACHE_KEYS = ("cache_dir", "triton_cache", "cache")


def cache_folder(run: Any) -> Path | None:
    """The Triton cache entry of the kernel the Run recorded: only a folder inside the Run
    that holds one kernel's cache files (anything else a manifest names is not attached)."""
    extra = run.manifest.get("extra") or {}
    candidates: list[object] = [extra.get(k) for k in CACHE_KEYS]
    if isinstance(extra.get("captured_from"), str):
        candidates.append(f"{extra['captured_from']}/triton-cache")
    candidates.append("cache")
    for c in candidates:
        path = inside(run.path, c)
        if path is not None and is_cache_entry(path):
            return path
    return None


def environment(run: Any, barrier: Any | None, host: dict[str, Any]) -> dict[str, Any]:
    """Versions as recorded by the Run, and as found on this host now; NPU, branch style."""
    versions = dict(run.manifest.get("versions") or {})
    names = [p.name for p in _files(run, "artifacts")]
    cache = cache_folder(run)
    names += [p.name for p in files_inside(cache, run.path)] if cache else []
    return {
        "target": run.manifest.get("target"),
        "cann": versions.get("cann") or (host.get("versions") or {}).get("cann"),
        "triton-ascend": versions.get("triton-ascend"),
        "ascendnpu-ir": versions.get("ascendnpu-ir"),
        "bishengir-compile": versions.get("bishengir-compile"),
        "torch": versions.get("torch"),
        "torch-npu": versions.get("torch-npu"),
        "npu_model": host.get("npu_model"),
        "branch_style": branch_style(names),
        "run_env": run.manifest.get("env") or {},
        "host_versions_now": host.get("versions") or {},
        "barrier_all_run": str(barrier.path) if barrier is not None else None,
    }


def _files(run: Any, relative: str) -> list[Path]:
    folder = inside(run.path, relative)
    return list(files_inside(folder, run.path)) if folder is not None and folder.is_dir() else []


def _add_tree(zf: zipfile.ZipFile, folder: Path, arc: str, root: Path | None = None,
              left: list[str] | None = None) -> list[str]:  # fmt: skip
    """Every regular file under `folder` (inside `root`), symlinks not followed."""
    added = []
    for p in files_inside(folder, root or folder):
        name = safe_arcname(f"{arc}/{p.relative_to(folder).as_posix()}")
        used = _add_file(zf, p, root or folder, name, root is not None, left)
        if used is not None:
            added.append(used)
    return added


def _stage_logs(run: Any) -> list[tuple[Path, str]]:
    """(stored log, name in the bundle): a Run's compressed logs go in as plain text."""
    logs: dict[str, tuple[Path, str]] = {}
    for s in run.stages:
        path = inside(run.path, s.get("log"))
        if path is not None and not path.is_symlink() and regular_file(path):
            rel = path.relative_to(run.path).as_posix()
            logs.setdefault(rel, (path, safe_arcname(rel)))  # a log two stages name goes in once
    return list(logs.values())


_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_CLOEXEC", 0))  # fmt: skip


def _why_not(fd: int, root: Path) -> str | None:
    """Why the file open as `fd` is not attached (None: it is). Checked on the open file,
    so a name swapped for a link or a FIFO after the folder was walked changes nothing."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if st.st_nlink > 1 and st.st_uid != os.stat(root).st_uid:
        return "a hard link to a file of someone else"
    hole = getattr(os, "SEEK_HOLE", None)
    if hole is not None and st.st_size and os.lseek(fd, 0, hole) < st.st_size:
        return f"a sparse file ({st.st_size} bytes, {st.st_blocks * 512} on disk)"
    os.lseek(fd, 0, os.SEEK_SET)
    proc = f"/proc/self/fd/{fd}"
    if os.path.islink(proc) and not is_inside(root, os.readlink(proc)):
        return "outside the Run folder"
    return None


def _entry(name: str, st: os.stat_result) -> zipfile.ZipInfo:
    """The zip entry of a file: its mode, its time clamped to what zip can hold (1980-2107:
    a file dated 1970 or 2200 by someone is attached all the same)."""
    when = time.gmtime(min(max(st.st_mtime, 315532800), 4354819199))[:6]
    info = zipfile.ZipInfo(name, date_time=when)
    info.external_attr = (stat.S_IMODE(st.st_mode) | stat.S_IFREG) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _add_file(zf: zipfile.ZipFile, path: Path, root: Path, name: str, unpack: bool,
              left: list[str] | None) -> str | None:  # fmt: skip
    """Add the file `path` (of the folder `root`) as `name`, a `.zst` as its plain text when
    `unpack`: the name it got (`_free_name`); None, and a line in `left`, when it is not
    attached."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        why: str | None = f"cannot be read ({exc.strerror or exc})"
    else:
        with open(fd, "rb") as f:
            why = _why_not(fd, root)
            if why is None:
                proc = Path(f"/proc/self/fd/{fd}")
                st = os.fstat(fd)
                zst = unpack and path.suffix == ".zst"
                text = _unpacked(proc if proc.exists() else path) if zst else None
                source, size = (f, st.st_size) if text is None else (text, text.tell())
                plain = name if text is None else name.removesuffix(".zst")
                info = _entry(_free_name(zf, plain), st)
                info.file_size = size  # told before writing: zip64 for a file past 2 GiB
                with source:
                    source.seek(0)
                    with zf.open(info, "w") as out:
                        shutil.copyfileobj(source, out, 1 << 20)
                return info.filename
    if left is not None:
        left.append(f"{path.relative_to(root).as_posix()}: {why}")
    return None


def _unpacked(path: Path) -> IO[bytes] | None:
    """The text of a `.zst` file, whole, in a temporary file left at its end; None for one
    that cannot be read whole (damaged, cut off: it then goes in as it is, so that nothing of
    it is lost and no entry holds part of it)."""
    spool = tempfile.SpooledTemporaryFile(max_size=64 << 20)
    try:
        text = open_zstd(path)
        for block in text.chunks():
            spool.write(block)
    except (OSError, ValueError):
        text = None
    if text is None or text.warnings:
        spool.close()
        return None
    return spool


def _free_name(zf: zipfile.ZipFile, name: str) -> str:
    """`name`, or `name` with `~2`, `~3`... before its suffixes where the bundle holds it
    already: two files of a Run whose names differ only in what `safe_arcname` replaced
    (`a:b.mlir`, `a|b.mlir`), or `a.mlir` beside `a.mlir.zst` unpacked, are both kept (an
    unzip would write the second over the first)."""
    if name not in zf.NameToInfo:
        return name
    folder, slash, base = name.rpartition("/")
    stem, dot, suffixes = base.partition(".")
    k = 2
    while f"{folder}{slash}{stem}~{k}{dot}{suffixes}" in zf.NameToInfo:
        k += 1
    return f"{folder}{slash}{stem}~{k}{dot}{suffixes}"


def _json(value: Any) -> str:
    """A file of the bundle as JSON text (lone surrogates of odd file names escaped)."""
    return json_escaped(json.dumps(value, indent=2, ensure_ascii=False)) + "\n"


def write_bundle(
    zip_path: Path, run: Any, barrier: Any | None, work: Path, cache: Path | None,
    payload: dict[str, Any], facts: dict[str, Any],
) -> list[str]:  # fmt: skip
    """Write the bundle's zip from data already gathered; the names of the files it holds.

    `work / "pass"` is the pass reproducer's folder (attached when present), `cache` the Run's
    Triton cache entry, `payload` the viewer's payload, `facts` what the summary reports.
    """
    files: list[str] = []
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as zf:

        def put(name: str, text: str) -> None:
            zf.writestr(name, text)
            files.append(name)

        put("repro/kernel.py", kernel_reproducer(run))
        if (work / "pass").is_dir():
            files += _add_tree(zf, work / "pass", "repro/pass")
        left: list[str] = facts.setdefault("left_out", [])
        for path, rel in _stage_logs(run):
            if used := _add_file(zf, path, run.path, f"logs/{rel}", True, left):
                files.append(used)
        if (run.path / "artifacts").is_dir() and inside(run.path, "artifacts"):
            files += _add_tree(zf, run.path / "artifacts", "ir", run.path, left)
        if cache is not None:
            files += _add_tree(zf, cache, "cache", run.path, left)
        put("run/run.json", _json(run.manifest))
        put("notes.json", notes_document(payload["notes"], str(payload["title"])))
        put(
            "environment.json",
            _json(facts["environment"]),
        )
        if barrier is not None:
            for path, rel in _stage_logs(barrier):
                if used := _add_file(zf, path, barrier.path, f"barrier-all/logs/{rel}", True, left):
                    files.append(used)
            put(
                "barrier-all/run.json",
                _json(barrier.manifest),
            )
            put(
                "barrier-all/comparison.json",
                _json(facts["barrier_all"]),
            )
        put("sync/report.json", _json(facts["sync"]))
        put("timeline.html", render_html(payload, title=str(payload["title"])))
    return files


def add_readme(zip_path: Path, markdown: str) -> None:
    """Add the Markdown summary to the bundle as README.md."""
    with zipfile.ZipFile(zip_path, "a", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("README.md", markdown)
