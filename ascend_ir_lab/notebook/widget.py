"""The explorer as an anywidget: the shared viewer on a timeline payload, notes synced both ways."""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from ascend_ir_lab.export.html import static_html
from ascend_ir_lab.export.packing import pack_payload
from ascend_ir_lab.export.payload import MIME_TYPE

__all__ = ["TimelineWidget"]

_STATIC = Path(__file__).resolve().parent.parent / "static"


class TimelineWidget(anywidget.AnyWidget):
    """Pass-timeline viewer for one payload; `notes` holds the notes made in the browser."""

    _esm = _STATIC / "viewer.js"
    _css = _STATIC / "viewer.css"
    payload = traitlets.Dict().tag(sync=True)
    notes = traitlets.List(traitlets.Dict()).tag(sync=True)
    key = traitlets.Unicode().tag(sync=True)

    def __init__(
        self,
        payload: dict[str, Any],
        *,
        capture: Callable[[str, Callable[[str], None]], dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        """`capture(run_name, say)`: what the viewer's "capture passes" button does with a
        kernel behind it ("" names this Run); it returns the payload shown next."""
        if not isinstance(payload, dict):
            raise TypeError(
                f"payload must be a dict from build_payload(), got {type(payload).__name__}"
            )
        notes = kwargs.pop("notes", None)
        super().__init__(
            payload=payload,
            notes=list(payload.get("notes") or []) if notes is None else list(notes),
            key=uuid.uuid4().hex,
            **kwargs,
        )
        self._capture = capture
        self.on_msg(self._on_page_message)

    def _on_page_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """`{"kind": "capture", "run": NAME}` from the page: capture, then show that Run."""
        if not isinstance(content, dict) or content.get("kind") != "capture":
            return
        name = content.get("run")
        if self._capture is None or not isinstance(name, str):
            self.send({"kind": "capture-error", "text": "this view has no Run to capture"})
            return
        try:
            payload = self._capture(
                name, lambda text: self.send({"kind": "capture-progress", "text": text})
            )
        except Exception as exc:  # one clear line in the page; the kernel goes on
            self.send({"kind": "capture-error", "text": f"{type(exc).__name__}: {exc}"})
            return
        self.notes = list(payload.get("notes") or [])
        self.payload = payload
        # what the notebook saves for this output from now on: a page with no kernel shows it
        output = {MIME_TYPE: pack_payload(payload), "text/html": static_html(payload)}
        self.send({"kind": "capture-done", "run": name, "output": output})

    def current_payload(self) -> dict[str, Any]:
        """The payload with the notes as they are now (for saving and exports)."""
        out = copy.copy(self.payload)
        out["notes"] = [dict(n) for n in self.notes]
        return out

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        # Besides the widget view: the payload under its own MIME type (JupyterLab renders it
        # through the ascend-ir-lab extension, with or without a kernel) and static HTML for
        # nbviewer, GitHub and nbconvert. The payload goes packed (gzip+base64, one string), so
        # the saved notebook grows by less than the payload's JSON, not by an indented copy.
        bundle: Any = super()._repr_mimebundle_(**kwargs) or {}
        data, meta = bundle if isinstance(bundle, tuple) else (bundle, {})
        payload = self.current_payload()
        data = {**data, MIME_TYPE: pack_payload(payload), "text/html": static_html(payload)}
        meta = {**meta, MIME_TYPE: {"widget_key": self.key}}
        return data, meta
