"""Messages where they belong, on the offline page of a real Run whose bishengir stage fails
(no hivmc without CANN): its messages sit on bishengir's passes, never on an adapter pass,
and a failure-first header names the stage, its errors and the pass to look at."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.export.files import payload_of, save_html
from tests.browser.conftest import open_offline

pytestmark = pytest.mark.browser


def test_messages_sit_on_their_stage_and_failure_comes_first(
    browser: Any, dot_run: Any, tmp_path: Path
) -> None:
    payload = payload_of(dot_run)
    stages = [s["name"] for s in payload["stages"]]
    adapter = [d["i"] for d in payload["dumps"] if stages[d["stage"]] == "adapter"]
    bishengir = [d["i"] for d in payload["dumps"] if stages[d["stage"]] == "bishengir"]
    page, fetched = open_offline(browser, save_html(dot_run, tmp_path / "dot.html"))

    def messages_at(i: int) -> list[str]:
        page.keyboard.press("g")
        page.keyboard.type(f"#{i}")
        page.keyboard.press("Enter")
        return page.locator(".air-passinfo .air-msg").all_inner_texts()

    assert not any("hivmc" in m for m in messages_at(adapter[-1]))  # the pass before bishengir
    assert any("Cannot find hivmc" in m for m in messages_at(bishengir[0]))  # printed at its start
    header = page.locator(".air-failures")
    assert (
        header.locator(".air-failure-what").inner_text() == "✗ stage bishengir failed (exit code 1)"
    )
    assert "Cannot find hivmc" in header.inner_text()
    header.locator("button", has_text=f"last pass #{bishengir[-1]}").click()
    assert page.inner_text(".air-pos").startswith(f"#{bishengir[-1]} ")
    assert any(
        "Failed to run BiShengIR pipeline" in m for m in page.locator(".air-msg").all_inner_texts()
    )
    row = page.locator(f".air-pl-row[data-dump='{bishengir[0]}']")
    assert "air-pl-msgs" in (row.get_attribute("class") or "")
    assert fetched == []
    page.close()
