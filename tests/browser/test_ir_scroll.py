"""The virtualised IR pane: scrolling draws the rows in view, keeps the rows still in view."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.export.html import render_html

pytestmark = pytest.mark.browser

ROW = 18


def test_scrolling_draws_rows_in_view_and_keeps_the_others(
    browser: Any, tmp_path: Path, real_payload: Any
) -> None:
    payload = real_payload("matmul.bishengir.log.gz", "matmul")
    path = tmp_path / "matmul.html"
    path.write_text(render_html(payload, title="matmul"), encoding="utf-8")
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    page.goto(path.as_uri())
    page.wait_for_selector(".air-passname")
    biggest = max(payload["dumps"], key=lambda d: len(payload["snapshots"][d["snap"]]))
    page.locator(f".air-cell[data-dump='{biggest['i']}']").click()
    n = len(payload["snapshots"][biggest["snap"]])
    assert n * ROW > 3 * 520, "needs a snapshot several views long"
    vlist = page.locator(".air-vlist")

    def shown() -> list[int]:
        nums = page.eval_on_selector_all(
            ".air-vwin .air-row .air-gut", "els => els.map(e => +e.textContent)"
        )
        return [int(x) for x in nums]

    def in_view() -> tuple[int, int]:
        top, height = vlist.evaluate("el => [el.scrollTop, el.clientHeight]")
        return top // ROW + 1, (top + height - 1) // ROW + 1

    def scroll_to_row(row: int) -> None:
        vlist.evaluate(f"el => {{ el.scrollTop = {(row - 1) * ROW}; }}")
        page.wait_for_function(
            "n => [...document.querySelectorAll('.air-vwin .air-gut')].some(e => +e.textContent === n)",
            arg=row,
        )

    scroll_to_row(40)
    first, last = in_view()
    assert first == 40 and first in shown() and last in shown()
    probe = page.locator(f".air-vwin .air-row:has(.air-gut:text-is('{first + 1}'))")
    probe.evaluate("el => { el.dataset.probe = 'kept'; }")
    before = shown()
    scroll_to_row(42)
    first, last = in_view()
    assert first == 42 and last in shown()
    # rows still in view are the same nodes: scrolling two rows draws two rows, not a view's worth
    kept = page.locator(".air-vwin .air-row[data-probe='kept'] .air-gut")
    assert kept.inner_text() == str(40 + 1)
    assert len(set(shown()) - set(before)) == 2

    vlist.evaluate("el => { el.scrollTop = el.scrollHeight; }")
    page.wait_for_function(
        f"() => [...document.querySelectorAll('.air-vwin .air-gut')].some(e => +e.textContent === {n})"
    )
    first, last = in_view()
    assert last == n and first in shown()
    assert page.locator(".air-vwin .air-row").count() < 60  # virtualised: a view, not n rows
    page.close()
