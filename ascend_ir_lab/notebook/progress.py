"""Compile progress as one display that updates stage by stage, and launch notes."""

from __future__ import annotations

import html
import time
from typing import Any

from ascend_ir_lab.notebook.ipython_api import display
from ascend_ir_lab.notebook.text import ErrorPanel

__all__ = ["CompileProgress"]


class CompileProgress:
    """The `progress` callback of `intercept_launches`: one updating line per compile."""

    def __init__(self) -> None:
        self._handle: Any = None
        self._head = ""
        self._stages: list[str] = []
        self._start = 0.0
        # each distinct launch note: its display and how many launches said it
        self._notes: dict[str, list[Any]] = {}

    def __call__(self, event: str, info: dict[str, Any]) -> None:
        getattr(self, "_on_" + event, lambda _info: None)(info)

    def _on_start(self, info: dict[str, Any]) -> None:
        step = f" · {info['sweep']}" if info.get("sweep") else ""
        self._head = f"{info['kernel']} → {info['target']}{step}"
        self._stages = []
        self._start = time.perf_counter()
        self._handle = display(self._bundle("compiling: ttir …"), raw=True, display_id=True)

    def _on_stage(self, info: dict[str, Any]) -> None:
        record = info["record"]
        ok = record.get("returncode") == 0
        mark = "✓" if ok else f"⚠ exit {record.get('returncode')}"
        self._stages.append(
            f"{record.get('name')} {mark} {float(record.get('seconds') or 0):.2f} s"
        )
        following = {"ttir": "adapter", "adapter": "bishengir"}.get(record.get("name", ""))
        self._update(" · ".join(self._stages) + (f" · {following} …" if following and ok else ""))

    def _on_done(self, info: dict[str, Any]) -> None:
        run = info["run"]
        status = run.manifest.get("status", {})
        total = time.perf_counter() - self._start
        self._update(f"{' · '.join(self._stages)}  ({total:.1f} s) — {status.get('text', '')}")

    def _on_failed(self, info: dict[str, Any]) -> None:
        self._update(" · ".join(self._stages) + " — failed")
        display(ErrorPanel(info["error"], info.get("kernel", "")))

    def _on_launch(self, info: dict[str, Any]) -> None:
        """One line per distinct note: a loop launching the same kernel on the same grid
        counts on that line (`× 40`) instead of adding a line per launch."""
        note = info["launch"].note
        seen = self._notes.get(note)
        if seen is None:
            handle = display(_note_bundle(note, 1), raw=True, display_id=True)
            self._notes[note] = [handle, 1]
            return
        seen[1] += 1
        if seen[0] is not None:
            seen[0].update(_note_bundle(note, seen[1]), raw=True)

    def _on_capture(self, info: dict[str, Any]) -> None:
        self._start = time.perf_counter()
        self._head = f"{info.get('kernel')}: capturing every pass"
        self._handle = display(self._bundle("recompiling …"), raw=True, display_id=True)

    def _on_captured(self, info: dict[str, Any]) -> None:
        total = time.perf_counter() - self._start
        self._update(f"passes captured ({total:.1f} s)")

    def _on_error(self, info: dict[str, Any]) -> None:
        display(ErrorPanel(info["error"], info.get("kernel", "")))

    def _bundle(self, body: str) -> dict[str, str]:
        text = f"{self._head}: {body}"
        return {
            "text/plain": text,
            "text/html": f"<div style='font-family:monospace'><b>{html.escape(self._head)}"
            f"</b>: {html.escape(body)}</div>",
        }

    def _update(self, body: str) -> None:
        if self._handle is not None:
            self._handle.update(self._bundle(body), raw=True)


def _note_bundle(note: str, count: int) -> dict[str, str]:
    times = f" × {count}" if count > 1 else ""
    return {
        "text/plain": f"⏭ {note}{times}",
        "text/html": f"<div style='color:#666'>⏭ {html.escape(note)}{times}</div>",
    }
