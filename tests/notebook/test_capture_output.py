"""The "capture passes" button's kernel side: after a capture the page gets, besides the new
payload, the output the notebook saves from then on (the packed payload and its static HTML),
so a notebook saved after a capture shows the captured Run with no kernel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ascend_ir_lab.dumps import open_timeline
from ascend_ir_lab.export import build_payload
from ascend_ir_lab.export.packing import is_packed, unpack_payload
from ascend_ir_lab.export.payload import MIME_TYPE
from ascend_ir_lab.notebook.widget import TimelineWidget

DATA = Path(__file__).resolve().parents[1] / "data" / "ascend"


def _widget(capture: Any) -> tuple[TimelineWidget, list[Any]]:
    before = build_payload(open_timeline(DATA / "vadd.adapter.log"), title="vadd cheap record")
    w = TimelineWidget(before, capture=capture)
    sent: list[Any] = []
    w.send = sent.append  # type: ignore[method-assign]  # the comm to the page
    return w, sent


def test_a_capture_sends_the_output_to_save() -> None:
    captured = build_payload(open_timeline(DATA / "matmul.bishengir.log.gz"), title="matmul #1")

    def capture(name: str, say: Any) -> dict[str, Any]:
        say(f"capturing {name}")
        return captured

    w, sent = _widget(capture)
    w._on_page_message(w, {"kind": "capture", "run": "matmul-1"}, [])
    assert sent[0] == {"kind": "capture-progress", "text": "capturing matmul-1"}
    done = sent[-1]
    assert done["kind"] == "capture-done" and done["run"] == "matmul-1"
    out = done["output"]
    assert is_packed(out[MIME_TYPE]) and unpack_payload(out[MIME_TYPE]) == captured
    assert "matmul #1" in out["text/html"] and "vadd cheap record" not in out["text/html"]
    assert w.payload == captured
    data, _ = w._repr_mimebundle_()  # a later display saves the same Run
    assert unpack_payload(data[MIME_TYPE]) == captured


def test_a_failed_capture_keeps_the_shown_run() -> None:
    def capture(name: str, say: Any) -> dict[str, Any]:
        raise RuntimeError("bishengir-compile not found")

    w, sent = _widget(capture)
    before = w.payload
    w._on_page_message(w, {"kind": "capture", "run": "x"}, [])
    assert sent == [{"kind": "capture-error", "text": "RuntimeError: bishengir-compile not found"}]
    assert w.payload == before
