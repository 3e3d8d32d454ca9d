"""Before-only logs (upstream Triton): a pass's diff is its own input against its output."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.analysis.diff import unified
from ascend_ir_lab.dumps import open_timeline
from ascend_ir_lab.export import build_payload
from ascend_ir_lab.export.html import render_html

pytestmark = pytest.mark.browser

SOFTMAX = Path(__file__).resolve().parents[1] / "data" / "triton" / "runs" / "softmax.cuda90"


def test_the_diff_of_a_before_dump_is_what_its_pass_did(browser: Any, tmp_path: Path) -> None:
    tl = open_timeline(SOFTMAX)
    d = tl.select("ttgir:tritongpu-coalesce")
    old, new = tl.change(d)
    assert old is d and new is not None and d.phase == "before" and tl.changed(d)
    added = [
        s[1:]
        for s in unified(tl.lines(old), tl.lines(new))
        if s.startswith("+") and not s.startswith("+++")
    ]
    page_path = tmp_path / "page.html"
    payload = build_payload(tl, title="softmax")
    page_path.write_text(render_html(payload, title="softmax"), encoding="utf-8")
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    page.goto(page_path.as_uri())
    page.wait_for_selector(".air-passname")
    page.locator(f".air-cell[data-dump='{d.index}']").click()
    page.keyboard.press("d")  # unified diff
    assert page.inner_text(".air-passname") == "tritongpu-coalesce"
    assert f"before → #{new.index}" in page.inner_text(".air-passinfo")
    change = page.inner_text(".air-passinfo .air-change")
    assert change.startswith("+") and change != "+0 −0"
    shown = page.inner_text(".air-ir")
    # the coalesce pass's own additions (its layouts) are what the diff shows
    assert any(s.strip() and s.strip() in shown for s in added[:20])
