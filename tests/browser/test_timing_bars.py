"""Pass times drawn along the strip of a real upstream-Triton Run (cuda:90, MLIR_ENABLE_TIMING)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.dumps import open_timeline
from ascend_ir_lab.export import build_payload
from ascend_ir_lab.export.html import render_html

pytestmark = pytest.mark.browser

SOFTMAX = Path(__file__).resolve().parents[1] / "data" / "triton" / "runs" / "softmax.cuda90"


@pytest.fixture(scope="module")
def softmax() -> dict[str, Any]:
    payload: dict[str, Any] = build_payload(open_timeline(SOFTMAX), title="softmax cuda:90")
    return payload


def open_page(browser: Any, tmp_path: Path, payload: dict[str, Any]) -> Any:
    path = tmp_path / "page.html"
    path.write_text(render_html(payload, title=payload["title"]), encoding="utf-8")
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    page.goto(path.as_uri())
    page.wait_for_selector(".air-passname")
    return page


def test_timing_bars_show_pass_times(browser: Any, tmp_path: Path, softmax: dict[str, Any]) -> None:
    timed = [d for d in softmax["dumps"] if d["ms"] is not None]
    assert timed, "the fixture Run should carry pass timings"
    slowest = max(timed, key=lambda d: d["ms"])
    page = open_page(browser, tmp_path, softmax)
    bars = page.locator(".air-strip .air-msbar")
    assert bars.count() == len(timed)
    # the slowest pass of its stage has the full-height bar, and it is visible
    cell = page.locator(f".air-cell[data-dump='{slowest['i']}']")
    box = cell.locator(".air-msbar").bounding_box()
    assert box is not None and box["height"] == 8 and box["width"] > 0
    assert f"{slowest['ms']:.1f} ms" in (cell.get_attribute("title") or "")
    # a faster pass of the same stage has a shorter bar
    other = next(d for d in timed if d["stage"] == slowest["stage"] and d["ms"] < slowest["ms"] / 4)
    low = page.locator(f".air-cell[data-dump='{other['i']}'] .air-msbar").bounding_box()
    assert low is not None and 1 <= low["height"] < 8
    # selecting the pass shows its time in the pass header
    cell.click()
    assert page.inner_text(".air-passname") == slowest["arg"]
    ms = page.inner_text(".air-passinfo .air-ms")
    assert f"{slowest['ms']:.1f} ms" in ms and "% of ttir" in ms
    # a pass with no reported time shows none
    untimed = next(d for d in softmax["dumps"] if d["ms"] is None)
    page.locator(f".air-cell[data-dump='{untimed['i']}']").click()
    assert page.locator(".air-passinfo .air-ms").count() == 0
    assert "ms" not in (
        page.locator(f".air-cell[data-dump='{untimed['i']}']").get_attribute("title") or ""
    )
    page.close()


def test_no_bars_without_timings(browser: Any, tmp_path: Path, real_payload: Any) -> None:
    payload = real_payload("vadd.adapter.log", "vadd adapter")
    assert all(d["ms"] is None for d in payload["dumps"])
    page = open_page(browser, tmp_path, payload)
    assert page.locator(".air-cell").count() == len(payload["dumps"])
    assert page.locator(".air-msbar").count() == 0
    assert page.locator(".air-stage.air-timed").count() == 0
    assert page.locator(".air-passinfo .air-ms").count() == 0
    page.close()
