"""Offline HTML of a timeline payload: the interactive page and the static fallback."""

from __future__ import annotations

import base64
import json
from typing import Any

from ascend_ir_lab.export.notes import note_where
from ascend_ir_lab.export.packing import auto_pack, is_packed, unpack_payload
from ascend_ir_lab.package_data import static_text
from ascend_ir_lab.safe_text import json_escaped, visible

__all__ = ["embed_json", "render_html", "static_html"]

_JSON_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def embed_json(payload: Any) -> str:
    """JSON text safe inside a <script> element: no `<`, `>`, `&`, U+2028/9 or lone surrogate
    left raw."""
    text = json_escaped(
        json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    )
    return "".join(_JSON_ESCAPES.get(ch, ch) for ch in text) if _needs_escape(text) else text


def _needs_escape(text: str) -> bool:
    return any(ch in text for ch in _JSON_ESCAPES)


def _sha256(text: str) -> str:
    try:  # CPython's own SHA-256: hashlib would load OpenSSL first (milliseconds per page)
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - another Python
        from hashlib import sha256
    return base64.b64encode(sha256(text.encode("utf-8")).digest()).decode("ascii")


def _escape(text: str) -> str:
    """`html.escape` (quotes too), without importing the table of every named entity."""
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace('"', "&quot;").replace("'", "&#x27;")
    )  # fmt: skip


def _text(text: str) -> str:
    """Text for the page: HTML-escaped, bidi and invisible controls made visible."""
    return _escape(visible(text))


def render_html(payload: dict[str, Any], *, title: str, compress: bool | None = None) -> str:
    """One self-contained page: viewer bundle, its CSS and the payload inlined; fetches nothing.

    The payload goes in packed (gzip+base64, unpacked by the browser's DecompressionStream)
    when `compress` is True, or when None and its JSON is over 32 KiB; plain otherwise.
    The Content-Security-Policy allows only the inlined viewer script (by hash), no network
    access of any kind, so text in the IR can neither run nor phone home.
    """
    if not isinstance(title, str):
        raise TypeError(f"title must be a str, got {type(title).__name__}: {title!r}")
    if compress not in (True, False, None):
        raise TypeError(f"compress must be True, False or None, got {compress!r}")
    embedded = auto_pack(payload, compress)
    script = static_text("viewer-standalone.js").replace("</script", "<\\/script")
    css = static_text("viewer.css").replace("</style", "<\\/style")
    csp = (
        "default-src 'none'; "
        f"script-src 'sha256-{_sha256(script)}'; "
        "style-src 'unsafe-inline'; img-src data:; connect-src 'none'; "
        "base-uri 'none'; form-action 'none'"
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_escape(csp)}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_text(title)}</title>\n"
        f"<style>\nbody {{ margin: 12px; }}\n{css}\n</style>\n</head>\n<body>\n"
        '<div id="air-app"></div>\n'
        '<script type="application/json" id="air-payload">'
        f"{embed_json(embedded)}</script>\n"
        f"<script>{script}</script>\n</body>\n</html>\n"
    )


def _final_ir(payload: dict[str, Any]) -> tuple[str, str]:
    """(label, text) of the last dump's IR, or ('', '') when there is none."""
    dumps = payload.get("dumps") or []
    if not dumps:
        return "", ""
    last = dumps[-1]
    lines = payload.get("lines") or []
    snap = (payload.get("snapshots") or [[]])[last.get("snap", 0)]
    label = f"#{last.get('i')} {last.get('arg') or last.get('pass')} ({last.get('scope')})"
    return label, "\n".join(str(lines[i]) for i in snap)


def _pass_rows(payload: dict[str, Any]) -> list[str]:
    stages = payload.get("stages") or []
    rows = []
    for d in payload.get("dumps") or []:
        k = d.get("stage", 0)
        stage = stages[k].get("name", "") if 0 <= k < len(stages) else ""
        state = "failed" if d.get("phase") == "failed" else "changed" if d.get("changed") else ""
        cells = (
            d.get("i"),
            stage,
            d.get("arg") or d.get("pass"),
            d.get("phase"),
            d.get("scope"),
            state,
        )
        rows.append("<tr>" + "".join(f"<td>{_text(str(c))}</td>" for c in cells) + "</tr>")
    return rows


# The notes part of the static fallback sits between these markers, so that the JupyterLab
# extension can redraw it when notes change and the notebook is saved with no kernel.
NOTES_START = "<!--air-notes-->"
NOTES_END = "<!--/air-notes-->"


def static_html(payload: dict[str, Any]) -> str:
    """Static fallback for nbviewer, GitHub and nbconvert: pass list, final IR, notes; all escaped."""
    if is_packed(payload):
        payload = unpack_payload(payload)
    title = _text(str(payload.get("title", "IR timeline")))
    label, final_ir = _final_ir(payload)
    notes = "".join(
        f"<li>pass {_text(note_where(n))}: {_text(str(n.get('text', '')))}</li>"
        for n in payload.get("notes") or []
    )
    passes = "".join(_pass_rows(payload))
    n = len(payload.get("dumps") or [])
    return (
        '<div class="ascend-ir-lab-static">'
        f"<p><b>{title}</b>: {n} IR dumps. Open this notebook in JupyterLab with "
        "ascend-ir-lab installed for the interactive timeline.</p>"
        f"<details><summary>Passes ({n})</summary><table>"
        "<tr><th>#</th><th>stage</th><th>pass</th><th>phase</th><th>scope</th><th></th></tr>"
        f"{passes}</table></details>"
        + NOTES_START
        + (f"<details><summary>Notes</summary><ul>{notes}</ul></details>" if notes else "")
        + NOTES_END
        + f"<details><summary>Final IR: {_text(label)}</summary>"
        f"<pre>{_text(final_ir)}</pre></details></div>"
    )
