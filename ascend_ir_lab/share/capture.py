"""Capturing the passes of a cheap record, whichever toolchain made it.

A cheap record (a compile kept without per-pass dumps) names its toolchain in `run.json`;
the Ascend compilers and upstream Triton each recompile their own Runs. This room sits above
both toolchains, so it is where the choice is made.
"""

from __future__ import annotations

import os
from typing import Any

from ascend_ir_lab.runs import Run
from ascend_ir_lab.toolchains.ascend import sweep
from ascend_ir_lab.toolchains.common.launch import Progress

__all__ = ["capture_on_open", "capture_passes"]


def capture_passes(run: Run | str | os.PathLike[str], *, progress: Progress | None = None) -> Run:
    """Recompile the cheap record `run` with every pass printed, into the same folder, with
    the toolchain that made it (a Run already holding its passes comes back as it is)."""
    run = run if isinstance(run, Run) else Run(run)
    if run.manifest.get("toolchain") == "triton" and not run.passes_captured:
        from ascend_ir_lab.toolchains.triton.passes import capture_upstream_passes

        return capture_upstream_passes(run, progress=progress)
    return sweep.capture_passes(run, progress=progress)


def capture_on_open(run: Run, *, progress: Any = None) -> tuple[Run, str | None]:
    """A Run being opened, with its passes where its kernel is at hand (see
    `toolchains.ascend.sweep.capture_on_open`), recompiled by the toolchain that made it."""
    return sweep.capture_on_open(run, progress=progress, capture=capture_passes)
