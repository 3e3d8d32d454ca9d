"""Compile a Run's kernel again, exactly as recorded, to measure run-to-run noise."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.toolchains.common.run import Run

__all__ = ["rebuild", "rebuilds", "sibling_builds"]


def rebuild(run: Run | str | os.PathLike[str], out: str | os.PathLike[str]) -> Run:
    """A second build of `run`: same kernel source, signature, constexprs and flags."""
    from ascend_ir_lab.toolchains.ascend.compile import compile_kernel

    run = run if isinstance(run, Run) else Run(run)
    kernel = run.manifest.get("kernel") or {}
    extra = run.manifest.get("extra") or {}
    source = run.path / str(kernel.get("source") or "source.py")
    if run.manifest.get("toolchain") != "ascend" or not source.is_file() or not kernel.get("name"):
        raise InputError(f"{run.path}: not an Ascend Run with its kernel source; cannot rebuild")
    return compile_kernel(
        f"{source}::{kernel['name']}",
        signature=kernel.get("signature") or {},
        constexprs=kernel.get("constexprs") or {},
        target=str(run.manifest.get("target") or "Ascend910B3"),
        barrier_all=bool(extra.get("barrier_all")),
        module_scope=bool(extra.get("module_scope")),
        line_info=bool(extra.get("line_info")),
        name=f"{run.name}-again",
        out=out,
        check=False,
    )


def rebuilds(
    run: Run | str | os.PathLike[str],
    count: int,
    folder: str | os.PathLike[str],
    progress: Callable[[int], Any] | None = None,
) -> list[Run]:
    """`count` further builds of `run` under `folder` (`again-1`, `again-2`...)."""
    out = []
    for k in range(1, count + 1):
        if progress is not None:
            progress(k)
        out.append(rebuild(run, Path(folder) / f"again-{k}"))
    return out


def sibling_builds(run: Run | str | os.PathLike[str]) -> list[Path]:
    """Earlier rebuilds kept beside a Run (`RUN/noise/again-N`), to reuse."""
    path = run.path if isinstance(run, Run) else Path(run)
    folder = path / "noise"
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("again-*") if (p / "run.json").is_file())
