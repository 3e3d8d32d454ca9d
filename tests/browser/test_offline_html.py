"""The offline HTML page from file:// with the network blocked: step with keys, read the page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.export.html import render_html
from tests.browser.conftest import open_offline

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def vadd_page(tmp_path_factory: pytest.TempPathFactory, real_payload: Any) -> Path:
    payload = real_payload("vadd.adapter.log", "vadd adapter")
    path = tmp_path_factory.mktemp("html") / "vadd.html"
    path.write_text(render_html(payload, title="vadd adapter"), encoding="utf-8")
    return path


def test_step_through_passes_with_keys(browser: Any, vadd_page: Path) -> None:
    page, fetched = open_offline(browser, vadd_page)
    assert page.inner_text(".air-title") == "vadd adapter"
    assert page.inner_text(".air-passname") == "discrete-mask-access-conversion"
    assert page.inner_text(".air-pos") == "#0 (1/14)"
    page.keyboard.press("j")
    assert page.inner_text(".air-pos") == "#1 (2/14)"
    assert page.inner_text(".air-passname") == "triton-to-annotation"
    page.keyboard.press("k")
    assert page.inner_text(".air-pos") == "#0 (1/14)"
    page.keyboard.press("n")  # next changed pass
    changed = page.inner_text(".air-passname")
    assert page.inner_text(".air-change").startswith("+")
    page.keyboard.press("d")  # unified diff
    assert page.get_attribute(".air-view.air-on", "aria-pressed") == "true"
    assert page.inner_text(".air-view.air-on") == "Unified diff"
    added = page.locator(".air-ir .air-row.air-add")
    removed = page.locator(".air-ir .air-row.air-del")
    assert added.count() + removed.count() > 0
    page.keyboard.press("d")  # side by side: word-level marks on changed lines
    assert page.inner_text(".air-view.air-on") == "Side by side"
    assert page.locator(".air-ir .air-srow").count() > 0
    page.keyboard.press("p")
    assert page.inner_text(".air-passname") != changed or page.inner_text(".air-pos") != "#0 (1/14)"
    page.keyboard.press("?")
    assert "next / previous changed pass" in page.inner_text(".air-help")
    page.keyboard.press("Escape")
    assert page.locator(".air-help").count() == 0
    assert fetched == []
    page.close()


def test_search_hits_and_jump_to_appearance(browser: Any, vadd_page: Path) -> None:
    page, fetched = open_offline(browser, vadd_page)
    page.keyboard.press("/")
    page.keyboard.type("memref.reinterpret_cast")
    page.keyboard.press("Enter")
    info = page.inner_text(".air-search-info")
    assert "passes match" in info
    assert page.locator(".air-cell.air-hit").count() > 0
    page.click("text=↦ appears")
    first = int(page.inner_text(".air-pos").split()[0][1:])
    assert "matching lines here" in page.inner_text(".air-search-info")
    assert not page.inner_text(".air-search-info").startswith("0 ")
    assert page.locator(".air-ir .air-row.air-match").count() > 0
    assert first > 0
    page.fill(".air-census-op", "tt.load")
    page.click("text=Census")
    assert page.inner_text(".air-census-info").startswith("tt.load:")
    assert page.locator(".air-census-svg rect").count() == 14
    assert fetched == []
    page.close()


def test_notes_on_a_line(browser: Any, vadd_page: Path) -> None:
    page, _ = open_offline(browser, vadd_page)
    page.locator(".air-ir .air-row .air-gut").nth(2).click()
    pass0 = "#0 discrete-mask-access-conversion"
    assert page.inner_text(".air-note-form .air-note-where") == f"Note on {pass0}, line 3"
    page.fill(".air-note-input", "look <b>here</b>")
    page.click("text=Save note")
    assert page.inner_text(".air-note-text") == "look <b>here</b>"
    assert page.inner_text(".air-note .air-note-where") == f"{pass0}, line 3"  # pass and line
    assert page.locator(".air-ir .air-row.air-noted").count() == 1
    with page.expect_download() as dl:
        page.click("text=Export notes")
    exported = json.loads(Path(dl.value.path()).read_text(encoding="utf-8"))
    assert exported["format"] == "ascend-ir-lab/notes@2"
    assert [(n["dump"], n["pass"], n["ir_line"], n["text"]) for n in exported["notes"]] == [
        (0, "discrete-mask-access-conversion", 3, "look <b>here</b>")
    ]  # 1-based, the number the gutter showed
    page.close()
