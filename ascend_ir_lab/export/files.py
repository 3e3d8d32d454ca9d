"""Files made from a payload: the offline page of a log, folder, Timeline or Run (`save_html`).

A Run folder's `notes.json` (export.notes: one convention, 1-based lines) travels into the
page; notes naming a pass the Timeline lacks are dropped with a warning rather than breaking
the page.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ascend_ir_lab.dumps import Timeline, open_timeline
from ascend_ir_lab.errors import InputError
from ascend_ir_lab.export.html import render_html
from ascend_ir_lab.export.notes import read_notes
from ascend_ir_lab.export.payload import build_payload, payload_in_making
from ascend_ir_lab.runs.outputs import check_output, write_output

__all__ = [
    "notes_or_warning",
    "payload_of",
    "read_notes",
    "save_comparison_html",
    "save_html",
    "timeline_of",
]


def notes_or_warning(folder: str | os.PathLike[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """The notes of notes.json, or none and a warning when the file is broken: a broken
    notes file never keeps a page or a report from being made."""
    try:
        return read_notes(folder), []
    except InputError as exc:
        return [], [f"{exc}; the notes are left out"]


def timeline_of(source: Any) -> Timeline:
    """A Timeline from a path (log, tree-dir, cache/dump folder, Run folder), a Run or itself."""
    if isinstance(source, Timeline):
        return source
    if hasattr(source, "timeline") and hasattr(source, "path"):  # a toolchains Run
        return source.timeline  # type: ignore[no-any-return]
    if isinstance(source, str | os.PathLike):
        return open_timeline(os.fspath(source))
    raise TypeError(
        f"expected a path, a Run or a Timeline, got {type(source).__name__}: {source!r}"
    )


def payload_of(
    source: Any, *, title: str | None = None, notes: Iterable[Mapping[str, Any]] | None = None
) -> dict[str, Any]:
    """The payload of `source` (see timeline_of), with `notes` or else the Run's notes.json."""
    tl = timeline_of(source)
    broken: list[str] = []
    if notes is None:
        notes, broken = notes_or_warning(tl.path) if tl.run is not None and tl.path else ([], [])
    payload = build_payload(tl, title=title, notes=notes)
    payload["warnings"] = [*payload["warnings"], *broken]
    return payload


def save_html(
    source: Any,
    path: str | os.PathLike[str],
    *,
    title: str | None = None,
    notes: Iterable[Mapping[str, Any]] | None = None,
    compress: bool | None = None,
) -> Path:
    """Write the offline page of `source` (path, Run or Timeline) to `path`; returns the path.

    Notes are `notes` when given, else the Run folder's notes.json. The page is one file that
    fetches nothing; `compress` as in render_html (None: packed when the payload is large).
    """
    tl = timeline_of(source)
    broken: list[str] = []
    if notes is None:
        notes, broken = notes_or_warning(tl.path) if tl.run is not None and tl.path else ([], [])
    out = check_output(path, "page")  # before the work: a link or a FIFO there is refused
    # The sync checker's findings come last: the page is written and packed meanwhile.
    with payload_in_making(tl, title=title, notes=notes) as payload:
        payload["warnings"] = [*payload["warnings"], *broken]
        page = render_html(payload, title=str(payload["title"]), compress=compress)
    return write_output(out, page, "page")


def save_comparison_html(
    a: Any,
    b: Any,
    path: str | os.PathLike[str],
    *,
    names: tuple[str, str] | None = None,
    noise: Iterable[Any] = (),
    title: str | None = None,
    compress: bool | None = None,
) -> Path:
    """Write the offline page of Runs `a` and `b` side by side (paths, Runs or Timelines),
    pass-aligned; `noise`: other builds of `a`, whose differences are marked as noise."""
    from ascend_ir_lab.analysis.compare import compare
    from ascend_ir_lab.analysis.noise import measure_noise
    from ascend_ir_lab.export.compare_payload import build_comparison_payload

    check_output(path, "page")
    ta, tb = timeline_of(a), timeline_of(b)
    builds = [timeline_of(n) for n in noise]
    measured = measure_noise([ta, *builds]) if builds else None
    na, nb = names or (_name(ta, "A"), _name(tb, "B"))
    payload = build_comparison_payload(compare(ta, tb, na, nb, noise=measured), ta, tb, title=title)
    page = render_html(payload, title=str(payload["title"]), compress=compress)
    return write_output(path, page, "page")


def _name(tl: Timeline, fallback: str) -> str:
    """A Run's folder name, else the Timeline's title."""
    return str((tl.run or {}).get("name") or tl.title or fallback)
