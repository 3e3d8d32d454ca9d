"""Notes on passes, one convention everywhere: `ir_line` is the 1-based line of the pass's IR.

A note is `{"id", "dump", "pass", "ir_line", "text", "created"}`: `dump` the Dump index, `pass`
its label (for readers of notes.json and the report), `ir_line` the line as the viewer's
gutter and the CLI number it, `null` for a note on the whole pass. Notes written before this
convention carry `line`, 0-based, and are read as `line + 1`. `notes.json` is written as
`{"format": NOTES_FORMAT, "notes": [...]}`; a plain list or `{"notes": [...]}` also reads.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.runs import inside, refuse_special, regular_file
from ascend_ir_lab.runs.outputs import write_output
from ascend_ir_lab.runs.paths import read_small
from ascend_ir_lab.safe_text import json_escaped

__all__ = [
    "NOTES_FILE",
    "NOTES_FORMAT",
    "clean_notes",
    "note_where",
    "notebook_notes",
    "notes_document",
    "read_notes",
    "write_notes",
]

NOTES_FILE = "notes.json"
NOTES_FORMAT = "ascend-ir-lab/notes@2"
NOTEBOOK_MAX_BYTES = 1 << 30


NOTE_LINE_MAX = 10**9  # the viewer's bound (payload.ts noteLine): a line past it is no line


def _ir_line(note: Mapping[str, Any]) -> int | None:
    """The note's 1-based IR line; None (a note on the whole pass) for one no IR has."""
    line = note.get("ir_line")
    if isinstance(line, int) and not isinstance(line, bool):
        return line if 1 <= line <= NOTE_LINE_MAX else None
    legacy = note.get("line")
    if isinstance(legacy, int) and not isinstance(legacy, bool) and 0 <= legacy < NOTE_LINE_MAX:
        return legacy + 1
    return None


def clean_notes(
    notes: Iterable[Mapping[str, Any]], labels: Sequence[str]
) -> tuple[list[dict[str, Any]], list[str]]:
    """(notes in the one convention, a warning per note dropped); `labels[i]` names Dump i."""
    kept, warnings = [], []
    n_dumps = len(labels)
    for k, note in enumerate(notes):
        if not isinstance(note, Mapping):
            warnings.append(f"note {k + 1} dropped: not an object")
            continue
        dump = note.get("dump")
        if (
            not isinstance(dump, int)
            or isinstance(dump, bool)
            or not 0 <= dump < n_dumps
            or not isinstance(note.get("text"), str)
        ):
            warnings.append(f"note {note.get('id', k + 1)!s} dropped: it names pass {dump!r}, "
                            f"and this timeline has passes 0..{n_dumps - 1}")  # fmt: skip
            continue
        kept.append({
            "id": str(note.get("id") or f"n{k + 1}"), "dump": dump, "pass": labels[dump],
            "ir_line": _ir_line(note), "text": note["text"],
            "created": str(note.get("created") or ""),
        })  # fmt: skip
    return kept, warnings


def note_where(note: Mapping[str, Any]) -> str:
    """Where a note sits, as the viewer's list says it: `#12 canonicalize, line 30`."""
    label = note.get("pass")
    where = f"#{note.get('dump')}" + (f" {label}" if label else "")
    line = _ir_line(note)
    return where if line is None else f"{where}, line {line}"


def read_notes(folder: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The notes of a Run folder's notes.json, as stored ([] when there is none).

    The file is someone's: it is read only when it is a regular file inside the folder, and
    anything that is not a list of notes (or `{"notes": [...]}`) is one clear InputError.
    """
    path = inside(folder, NOTES_FILE)
    if path is None or not regular_file(path):
        return []
    try:
        data = json.loads(read_small(path, 64 << 20).decode("utf-8"), parse_constant=_no_constant)
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


def notes_document(notes: Iterable[Mapping[str, Any]], title: str | None = None) -> str:
    """The text of a notes.json holding `notes`."""
    body: dict[str, Any] = {"format": NOTES_FORMAT}
    if title:
        body["title"] = title
    body["notes"] = [dict(n) for n in notes]
    return json_escaped(json.dumps(body, indent=2, ensure_ascii=False)) + "\n"


def write_notes(
    folder: str | os.PathLike[str], notes: Iterable[Mapping[str, Any]], title: str | None = None
) -> Path:
    """Write `notes` as the folder's notes.json (atomically); returns its path."""
    path = Path(folder) / NOTES_FILE
    if path.is_symlink():  # someone's link: replaced by the notes, never written through
        path.unlink()
    return write_output(path, notes_document(notes, title), "notes")


def notebook_notes(notebook: str | os.PathLike[str], names: Iterable[str]) -> list[dict[str, Any]]:
    """The notes saved in a notebook's timeline outputs whose title or Run name is in `names`.

    The notebook is someone's file: it is read as JSON only (nothing in it runs), outputs that
    are not timeline payloads are skipped, and notes come back as stored (clean_notes next).
    """
    path = Path(notebook)
    refuse_special(path)  # a FIFO would block the read forever
    try:
        with path.open("rb") as fh:
            raw = fh.read(NOTEBOOK_MAX_BYTES + 1)
        if len(raw) > NOTEBOOK_MAX_BYTES:
            raise InputError(f"{path}: larger than {NOTEBOOK_MAX_BYTES >> 20} MiB; not a notebook")
        nb = json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the notebook: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}: not a notebook (not JSON: {exc.msg})") from exc
    except RecursionError:
        raise InputError(f"{path}: nested too deeply; not a notebook") from None
    wanted = set(names)
    seen: list[str] = []
    notes: dict[str, dict[str, Any]] = {}
    for payload in _timeline_outputs(nb):
        title = str(payload.get("title", ""))
        seen.append(title)
        if title in wanted or _run_name(payload) in wanted:
            for n in payload.get("notes") or []:
                if isinstance(n, dict):
                    notes.setdefault(str(n.get("id") or len(notes)), n)
    if not any(t in wanted for t in seen) and not notes:
        found = ", ".join(repr(t) for t in seen) or "none"
        raise InputError(f"{path}: no timeline output of {' or '.join(sorted(wanted))} "
                         f"(timelines in it: {found})")  # fmt: skip
    return list(notes.values())


def _run_name(payload: dict[str, Any]) -> Any:
    """The Run name a payload's meta records (packed payloads are unpacked to read it)."""
    from ascend_ir_lab.export.packing import is_packed, unpack_payload

    if is_packed(payload):
        try:
            payload = unpack_payload(payload)
        except ValueError:
            return None
    meta = payload.get("meta")
    return meta.get("name") if isinstance(meta, dict) else None


def _timeline_outputs(nb: Any) -> list[dict[str, Any]]:
    """Every timeline payload (plain or packed) in the outputs of a notebook's code cells."""
    from ascend_ir_lab.export.format import MIME_TYPE

    out = []
    cells = nb.get("cells") if isinstance(nb, dict) else None
    for cell in cells if isinstance(cells, list) else []:
        outputs = cell.get("outputs") if isinstance(cell, dict) else None
        for o in outputs if isinstance(outputs, list) else []:
            data = o.get("data") if isinstance(o, dict) else None
            payload = data.get(MIME_TYPE) if isinstance(data, dict) else None
            if isinstance(payload, dict):
                out.append(payload)
    return out
