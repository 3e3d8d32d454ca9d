"""Many Runs at once: one row per kernel compile (name, target, status, compile time, dumps,
size), the same table for the terminal and the notebook."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ascend_ir_lab.toolchains.common.run import Run

COLUMNS = ("name", "target", "status", "compile_s", "dumps", "size", "path")


def folder_size(path: Path) -> int:
    """Bytes of the files under `path` (symlinks not followed)."""
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
    return total


def run_row(run: Run) -> dict[str, Any]:
    """One Run as a table row; `dumps` says whether its passes were captured."""
    extra = run.manifest.get("extra") or {}
    seconds = sum(float(s.get("seconds") or 0) for s in run.stages)
    sweep = extra.get("autotune")
    dumps = "passes" if run.passes_captured else "record only"
    if isinstance(sweep, dict):
        dumps += f" (sweep of {len(sweep.get('configs') or [])})"
    return {
        "name": run.name,
        "target": str(run.manifest.get("target") or ""),
        "status": run.status,
        "compile_s": round(seconds, 3),
        "dumps": dumps,
        "size": folder_size(run.path),
        "path": str(run.path),
    }


def human_size(n: int) -> str:
    """1234567 -> '1.2 MB'."""
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{n} B"


def table_text(rows: Iterable[dict[str, Any]]) -> str:
    """The rows as an aligned plain-text table (what `ascend-ir-lab capture` prints)."""
    shown = [
        [
            str(r["name"]), r["target"], r["status"], f"{r['compile_s']:.2f} s", r["dumps"],
            human_size(r["size"]), r["path"],
        ]
        for r in rows
    ]  # fmt: skip
    head = ["kernel", "target", "status", "compile", "dumps", "size", "run"]
    widths = [max(len(x) for x in col) for col in zip(head, *shown, strict=False)]
    lines = ["  ".join(x.ljust(w) for x, w in zip(line, widths, strict=False)).rstrip()
             for line in (head, *shown)]  # fmt: skip
    return "\n".join(lines)
