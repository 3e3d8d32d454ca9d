"""Files made from a payload: the offline page of a log, folder, Timeline or Run (`save_html`).

A Run folder's `notes.json` (a list of notes, or `{"notes": [...]}`, each note as in the
payload) travels into the page; notes naming a pass the Timeline lacks are dropped with a
warning rather than breaking the page.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ascend_ir_lab.dumps import Timeline, open_timeline
from ascend_ir_lab.errors import InputError
from ascend_ir_lab.export.html import render_html
from ascend_ir_lab.export.payload import build_payload
from ascend_ir_lab.runs import inside, regular_file

__all__ = ["notes_or_warning", "payload_of", "read_notes", "save_html", "timeline_of"]

NOTES_FILE = "notes.json"


def read_notes(folder: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The notes of a Run folder's notes.json ([] when there is none)."""
    path = inside(folder, NOTES_FILE)
    if path is None or not regular_file(path):
        return []
    try:
        data = json.loads(path.read_bytes().decode("utf-8"), parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}: not JSON: {exc.msg}") from exc
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise InputError(f"{path}: not readable notes: {type(exc).__name__}") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    notes = data.get("notes") if isinstance(data, dict) else data
    if not isinstance(notes, list) or not all(isinstance(n, dict) for n in notes):
        raise InputError(f'{path}: expected a list of notes (or {{"notes": [...]}})')
    return notes


def _no_constant(name: str) -> Any:
    raise ValueError(name)


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


def _clean_notes(
    notes: Iterable[Mapping[str, Any]], n_dumps: int
) -> tuple[list[dict[str, Any]], list[str]]:
    kept, warnings = [], []
    for k, note in enumerate(notes):
        if not isinstance(note, Mapping):
            warnings.append(f"note {k + 1} dropped: not an object")
            continue
        dump = note.get("dump")
        if (
            not isinstance(dump, int)
            or not 0 <= dump < n_dumps
            or not isinstance(note.get("text"), str)
        ):
            warnings.append(f"note {note.get('id', k + 1)!s} dropped: it names pass {dump!r}, "
                            f"and this timeline has passes 0..{n_dumps - 1}")  # fmt: skip
            continue
        line = note.get("line")
        kept.append({
            "id": str(note.get("id") or f"n{k + 1}"), "dump": dump,
            "line": line if isinstance(line, int) and line >= 0 else None,
            "text": note["text"], "created": str(note.get("created") or ""),
        })  # fmt: skip
    return kept, warnings


def payload_of(
    source: Any, *, title: str | None = None, notes: Iterable[Mapping[str, Any]] | None = None
) -> dict[str, Any]:
    """The payload of `source` (see timeline_of), with `notes` or else the Run's notes.json."""
    tl = timeline_of(source)
    broken: list[str] = []
    if notes is None:
        notes, broken = notes_or_warning(tl.path) if tl.run is not None and tl.path else ([], [])
    kept, dropped = _clean_notes(notes, len(tl.dumps))
    payload = build_payload(tl, title=title, notes=kept)
    payload["warnings"] = [*payload["warnings"], *broken, *dropped]
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
    payload = payload_of(source, title=title, notes=notes)
    out = Path(path)
    if out.is_dir():
        raise InputError(f"{out} is a folder; give a file name such as {out / 'timeline.html'}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        render_html(payload, title=str(payload["title"]), compress=compress), encoding="utf-8"
    )
    return out
