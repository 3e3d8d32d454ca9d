"""A taken-over launch's compile: started with its stop ready (`start_watched`: a job the
compile thread starts after this thread was interrupted is stopped there), and the Run it
makes annotated with how it came about (`annotate_run`)."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ascend_ir_lab.runs import Run, write_manifest
from ascend_ir_lab.toolchains.common.launch import Progress, compile_watched, keep_cell
from ascend_ir_lab.toolchains.common.tools import npu_available

if TYPE_CHECKING:
    from ascend_ir_lab.toolchains.ascend.compile import CompileJob

__all__ = ["annotate_run", "declared", "start_watched"]


def start_watched(fn: Any, folder: Path, kwargs: dict[str, Any], say: Progress) -> Run | CompileJob:
    """`compile_watched` with `start_compile`: a job the compile thread starts after this
    thread was interrupted (or failed) is stopped there, so none is ever left running."""
    from ascend_ir_lab.toolchains.ascend.compile import start_compile

    started: list[CompileJob] = []
    gone = threading.Event()

    def start(kernel: Any, **settings: Any) -> CompileJob:
        job = start_compile(kernel, **settings)
        started.append(job)
        if gone.is_set():
            job.stop()
        return job

    try:
        made: Run | CompileJob = compile_watched(fn, folder, kwargs, say, compile_fn=start)
        return made
    except BaseException:
        gone.set()
        for job in started:
            job.stop()
        raise


def annotate_run(run: Run, fn: Any, launch: Mapping[str, Any]) -> Run:
    """Record how the Run came about (extra.launch) and, for a kernel defined in a notebook
    cell, keep the whole cell as source.py so that IR locations (cell line numbers) match."""
    manifest = dict(run.manifest)
    manifest.setdefault("extra", {})["launch"] = {
        "launched": False,
        "reason": "no NPU" if not npu_available() else "compiled offline",
        **launch,
    }
    source_file = manifest.get("extra", {}).get("source_file")
    in_cell = keep_cell(run.path, manifest, fn)
    if not in_cell and source_file and not (manifest.get("kernel") or {}).get("file"):
        # IR locations name the kernel's file; "source.py" would match none of them
        manifest["kernel"] = {**(manifest.get("kernel") or {}), "file": source_file}
    write_manifest(run.path, manifest)
    return Run(run.path)


def declared(fn: Any, constexprs: Mapping[str, Any]) -> dict[str, Any]:
    """The constexprs that are parameters of `fn` (not ints triton specialised to 1)."""
    params = {p.name: p for p in getattr(fn, "params", [])}
    return {k: v for k, v in constexprs.items() if k in params and params[k].is_constexpr}
