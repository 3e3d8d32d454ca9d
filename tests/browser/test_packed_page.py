"""The offline page with a packed payload (gzip+base64): unpacked in Chromium from file://."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.export.html import render_html
from ascend_ir_lab.export.packing import pack_payload
from tests.browser.conftest import open_offline

pytestmark = pytest.mark.browser

EVIL = '<img src=x onerror="window.__pwned=1"></script><script>window.__pwned=2</script> javascript:alert(1)'


def test_packed_matmul_page_steps_and_shows_notes(
    browser: Any, real_payload: Any, tmp_path: Path
) -> None:
    payload = real_payload("matmul.bishengir.log.gz", "matmul " + EVIL)
    payload["notes"] = [{"id": "n1", "dump": 0, "line": 1, "text": "note " + EVIL, "created": ""}]
    path = tmp_path / "matmul.html"
    path.write_text(render_html(payload, title="matmul", compress=True), encoding="utf-8")
    page, fetched = open_offline(browser, path, ".air-passname")
    assert page.inner_text(".air-title") == "matmul " + EVIL
    assert page.inner_text(".air-pos") == "#0 (1/386)"
    assert page.inner_text(".air-note-text") == "note " + EVIL
    page.keyboard.press("j")
    assert page.inner_text(".air-pos") == "#1 (2/386)"
    assert page.evaluate("window.__pwned") is None
    assert fetched == []
    page.close()


def test_corrupt_packed_data_shows_an_error_not_a_half_render(
    browser: Any, real_payload: Any, tmp_path: Path
) -> None:
    packed = pack_payload(real_payload("vadd.adapter.log", "vadd"))
    packed["data"] = packed["data"][: len(packed["data"]) // 2]  # truncated in transit
    path = tmp_path / "bad.html"
    path.write_text(render_html(packed, title="bad"), encoding="utf-8")
    page, fetched = open_offline(browser, path, ".air-error")
    assert page.inner_text(".air-error-text").startswith("data: not gzip+base64")
    assert page.locator(".air-passname").count() == 0
    assert fetched == []
    page.close()
