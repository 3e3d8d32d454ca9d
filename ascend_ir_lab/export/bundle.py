"""The bug-report bundle's files: a Run, its barrier-all twin and the facts gathered, into a zip.

Pure: data in, files out. What needs a process (the pass reproducer, this host's facts) is
gathered by `ascend_ir_lab.share.report` and handed here as plain data.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from ascend_ir_lab.dumps.zstd_log import open_zstd
from ascend_ir_lab.export.html import render_html
from ascend_ir_lab.export.notes import notes_document
from ascend_ir_lab.export.report_md import branch_style, kernel_reproducer
from ascend_ir_lab.runs import inside, is_cache_entry, regular_file, safe_arcname
from ascend_ir_lab.runs.paths import files_inside

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


def _add_tree(zf: zipfile.ZipFile, folder: Path, arc: str, root: Path | None = None) -> list[str]:
    """Every regular file under `folder` (inside `root`), symlinks not followed."""
    added = []
    for p in files_inside(folder, root or folder):
        name = safe_arcname(f"{arc}/{p.relative_to(folder).as_posix()}")
        if root is not None and p.suffix == ".zst":  # a Run's compressed IR: plain text
            try:
                _add_log(zf, p, name.removesuffix(".zst"))
                added.append(name.removesuffix(".zst"))
                continue
            except (OSError, ValueError):
                pass  # not readable as zstd: the file goes in as it is
        zf.write(p, name)
        added.append(name)
    return added


def _stage_logs(run: Any) -> list[tuple[Path, str]]:
    """(stored log, name in the bundle): a Run's compressed logs go in as plain text."""
    logs = []
    for s in run.stages:
        path = inside(run.path, s.get("log"))
        if path is not None and not path.is_symlink() and regular_file(path):
            name = safe_arcname(path.relative_to(run.path).as_posix()).removesuffix(".zst")
            logs.append((path, name))
    return logs


def _add_log(zf: zipfile.ZipFile, path: Path, name: str) -> None:
    if path.suffix != ".zst":
        zf.write(path, name)
        return
    with zf.open(name, "w") as out:
        for block in open_zstd(path).chunks():
            out.write(block)


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
        for path, rel in _stage_logs(run):
            _add_log(zf, path, f"logs/{rel}")
            files.append(f"logs/{rel}")
        if (run.path / "artifacts").is_dir() and inside(run.path, "artifacts"):
            files += _add_tree(zf, run.path / "artifacts", "ir", run.path)
        if cache is not None:
            files += _add_tree(zf, cache, "cache", run.path)
        put("run/run.json", json.dumps(run.manifest, indent=2, ensure_ascii=False) + "\n")
        put("notes.json", notes_document(payload["notes"], str(payload["title"])))
        put(
            "environment.json",
            json.dumps(facts["environment"], indent=2, ensure_ascii=False) + "\n",
        )
        if barrier is not None:
            for path, rel in _stage_logs(barrier):
                _add_log(zf, path, f"barrier-all/logs/{rel}")
                files.append(f"barrier-all/logs/{rel}")
            put(
                "barrier-all/run.json",
                json.dumps(barrier.manifest, indent=2, ensure_ascii=False) + "\n",
            )
            put(
                "barrier-all/comparison.json",
                json.dumps(facts["barrier_all"], indent=2, ensure_ascii=False) + "\n",
            )
        put("sync/report.json", json.dumps(facts["sync"], indent=2, ensure_ascii=False) + "\n")
        put("timeline.html", render_html(payload, title=str(payload["title"])))
    return files


def add_readme(zip_path: Path, markdown: str) -> None:
    """Add the Markdown summary to the bundle as README.md."""
    with zipfile.ZipFile(zip_path, "a", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("README.md", markdown)
