"""Bug-report bundle: everything the guide's "报告问题" section asks for, in one zip.

    make_report(run, which="hivm-graph-sync-solver", against=barrier_run, out="bug.zip")

The zip holds README.md (the Markdown summary, also written beside the zip as OUT.md, ready
to paste into an issue), the kernel reproducer (source plus signature, constexprs and launch
from run.json), the pass-level bishengir-opt reproducer when a pass is selected, the Run's
cached IR and the cache folder it recorded, every compiler log, environment.json, the
barrier-all comparison, the notes and the offline HTML. Processes (the reproducer, npu-smi)
run in toolchains/.
"""

from __future__ import annotations

import json
import os
import shlex
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ascend_ir_lab.dumps.blocks import open_zstd
from ascend_ir_lab.errors import IRLabError
from ascend_ir_lab.export.barrier import compare_barrier_all, recorded_verdict
from ascend_ir_lab.export.files import payload_of
from ascend_ir_lab.export.html import render_html
from ascend_ir_lab.export.notes import notes_document
from ascend_ir_lab.export.report_md import branch_style, kernel_reproducer, summary_markdown
from ascend_ir_lab.runs import Run, inside, is_cache_entry, regular_file, safe_arcname
from ascend_ir_lab.runs.paths import files_inside

__all__ = ["Report", "make_report"]

CACHE_KEYS = ("cache_dir", "triton_cache", "cache")


@dataclass
class Report:
    """The bundle written: the zip, the Markdown beside it, and the facts it holds."""

    zip_path: Path
    markdown_path: Path
    markdown: str
    facts: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Report({str(self.zip_path)!r})"


def _as_run(run: Any) -> Any:
    if isinstance(run, Run):
        return run
    if isinstance(run, str | os.PathLike):
        return Run(run)
    if hasattr(run, "manifest") and hasattr(run, "path"):
        return run
    raise TypeError(f"expected a Run or a Run folder, got {type(run).__name__}: {run!r}")


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


def _pass_reproducer(run: Any, which: str | int, folder: Path) -> dict[str, Any]:
    from ascend_ir_lab.toolchains.repro import make_reproducer, run_reproducer

    repro = make_reproducer(run, which, folder)  # writes repro.sh beside the files
    result = run_reproducer(repro)
    tool = Path(repro.command[0]).name
    command = [tool, "before.mlir", f"--pass-pipeline={repro.pipeline}", "-o", "output.mlir"]
    d = repro.dump
    return {
        "dump": d.index, "pass": d.label, "stage": d.stage, "scope": d.scope,
        "pipeline": repro.pipeline, "command": shlex.join(command),
        "function": repro.symbol, "selection": repro.note,
        "returncode": result.returncode, "matches_recorded": result.match,
        "summary": result.summary(), "diff_lines": len(result.diff),
    }  # fmt: skip


def _sync_facts(run: Any, barrier: Any | None, again: Any | None, verdict: Any) -> dict[str, Any]:
    """The "sync" section (export.report_sync), noise measured when `again` is given."""
    from ascend_ir_lab.analysis.noise import measure_noise
    from ascend_ir_lab.export.report_sync import sync_section

    fine = run.timeline
    noise = measure_noise([fine, _as_run(again).timeline]) if again is not None else None
    other = barrier.timeline if barrier is not None else None
    return sync_section(fine, other, noise=noise, verdict=verdict)


def _files(run: Any, relative: str) -> list[Path]:
    folder = inside(run.path, relative)
    return list(files_inside(folder, run.path)) if folder is not None and folder.is_dir() else []


def _add_tree(zf: zipfile.ZipFile, folder: Path, arc: str, root: Path | None = None) -> list[str]:
    """Every regular file under `folder` (inside `root`), symlinks not followed."""
    added = []
    for p in files_inside(folder, root or folder):
        name = safe_arcname(f"{arc}/{p.relative_to(folder).as_posix()}")
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


def make_report(
    run: Any,
    *,
    which: str | int | None = None,
    against: Any | None = None,
    out: str | os.PathLike[str],
    notes: list[dict[str, Any]] | None = None,
    host: dict[str, Any] | None = None,
    again: Any | None = None,
) -> Report:
    """Write the bug-report zip `out` (and `out` with .md) for `run` (a Run or its folder).

    `which` selects a pass for the bishengir-opt reproducer (a dump index, 'last' or a pass
    argument such as 'hivm-graph-sync-solver#2'); `against` is the barrier-all Run to compare
    with; `notes` replace the Run's notes.json; `host` the facts of toolchains.host_facts().
    """
    run = _as_run(run)
    barrier = _as_run(against) if against is not None else None
    if host is None:
        from ascend_ir_lab.toolchains.host_facts import host_facts

        host = host_facts()
    zip_path = Path(out)
    if zip_path.suffix != ".zip":
        zip_path = zip_path.with_name(zip_path.name + ".zip")
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ascend-ir-lab-report-") as tmp:
        # built beside and renamed into place: a failure leaves no partial zip behind
        partial = zip_path.with_name(f".{zip_path.name}.{os.getpid()}.partial")
        try:
            report = _make(run, barrier, which, partial, Path(tmp), notes, host, again)
            os.replace(partial, zip_path)
        finally:
            partial.unlink(missing_ok=True)
        md_path = zip_path.with_suffix(".md")
        md_path.write_text(report.markdown, encoding="utf-8")
        return Report(zip_path, md_path, report.markdown, report.facts)


def _make(
    run: Any, barrier: Any | None, which: str | int | None, zip_path: Path, work: Path,
    notes: list[dict[str, Any]] | None, host: dict[str, Any], again: Any | None = None,
) -> Report:  # fmt: skip
    payload = payload_of(run, notes=notes)
    facts: dict[str, Any] = {
        "run": {"name": run.name, "path": str(run.path), "status": run.manifest.get("status"),
                "target": run.manifest.get("target"), "kernel": run.manifest.get("kernel")},
        "environment": environment(run, barrier, host),
        "notes": payload["notes"],
        "pass_reproducer": None,
        "barrier_all": compare_barrier_all(run, barrier) if barrier is not None else None,
        "npu_verdict": recorded_verdict(run),
    }  # fmt: skip
    if which is not None:
        try:
            facts["pass_reproducer"] = _pass_reproducer(run, which, work / "pass")
        except IRLabError as exc:  # the report is made whatever the reproducer did
            facts["pass_reproducer"] = {"error": str(exc)}
    facts["sync"] = _sync_facts(run, barrier, again, facts["npu_verdict"])
    cache = cache_folder(run)
    facts["cache_folder"] = str(cache) if cache else None
    files = _write_zip(zip_path, run, barrier, work, cache, payload, facts)
    facts["files"] = files
    facts["cache_files"] = sum(1 for f in files if f.startswith("cache/"))
    markdown = summary_markdown(facts, kernel_reproducer(run))
    with zipfile.ZipFile(zip_path, "a", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("README.md", markdown)
    return Report(zip_path, zip_path.with_suffix(".md"), markdown, facts)


def _write_zip(
    zip_path: Path, run: Any, barrier: Any | None, work: Path, cache: Path | None,
    payload: dict[str, Any], facts: dict[str, Any],
) -> list[str]:  # fmt: skip
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
