"""Bug-report bundle: everything the guide's "报告问题" section asks for, in one zip.

    make_report(run, which="hivm-graph-sync-solver", against=barrier_run, out="bug.zip")

The zip holds README.md (the Markdown summary, also written beside the zip as OUT.md, ready
to paste into an issue), the kernel reproducer (source plus signature, constexprs and launch
from run.json), the pass-level bishengir-opt reproducer when a pass is selected, the Run's
cached IR and the cache folder it recorded, every compiler log, environment.json, the
barrier-all comparison, the notes and the offline HTML. This module gathers the facts, with
the processes started in toolchains/ (the reproducer, npu-smi); export.bundle writes the files.
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ascend_ir_lab.errors import IRLabError
from ascend_ir_lab.export.barrier import compare_barrier_all, recorded_verdict
from ascend_ir_lab.export.bundle import add_readme, cache_folder, environment, write_bundle
from ascend_ir_lab.export.files import payload_of
from ascend_ir_lab.export.report_md import kernel_reproducer, summary_markdown
from ascend_ir_lab.runs import Run
from ascend_ir_lab.runs.outputs import check_output, output_file, write_output
from ascend_ir_lab.toolchains.ascend.host_facts import host_facts
from ascend_ir_lab.toolchains.ascend.repro import make_reproducer, run_reproducer

__all__ = ["Report", "make_report"]


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


def _pass_reproducer(run: Any, which: str | int, folder: Path) -> dict[str, Any]:
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
    with; `notes` replace the Run's notes.json; `host` the facts of toolchains.ascend.host_facts().
    """
    run = _as_run(run)
    barrier = _as_run(against) if against is not None else None
    if host is None:
        host = host_facts()
    zip_path = Path(out)
    if zip_path.suffix != ".zip":
        zip_path = zip_path.with_name(zip_path.name + ".zip")
    md_path = zip_path.with_suffix(".md")
    check_output(zip_path, "zip")  # before the work: a link or a FIFO there is refused
    check_output(md_path, "Markdown")
    with tempfile.TemporaryDirectory(prefix="ascend-ir-lab-report-") as tmp:
        # built in a folder of this user's alone, then put in place whole: a failure leaves
        # no partial zip behind, and nothing at `out` is written through
        partial = Path(tmp) / "bundle.zip"
        (Path(tmp) / "work").mkdir()
        report = _make(run, barrier, which, partial, Path(tmp) / "work", notes, host, again)
        with partial.open("rb") as built, output_file(zip_path, "zip") as fh:
            shutil.copyfileobj(built, fh, 1 << 20)
        write_output(md_path, report.markdown, "Markdown")
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
    files = write_bundle(zip_path, run, barrier, work, cache, payload, facts)
    facts["files"] = files
    facts["cache_files"] = sum(1 for f in files if f.startswith("cache/"))
    markdown = summary_markdown(facts, kernel_reproducer(run))
    add_readme(zip_path, markdown)
    return Report(zip_path, zip_path.with_suffix(".md"), markdown, facts)
