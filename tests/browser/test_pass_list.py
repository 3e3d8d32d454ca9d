"""The named pass list and the layout, on the offline page of a real 386-pass bishengir log:
read the rows, filter fuzzily, hide and collapse, jump with `g`, step search hits with Enter,
and check the layout at 1280 px (one toolbar row, the page filled, long names cut with a tip)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.export.html import render_html
from tests.browser.conftest import open_offline

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def matmul(tmp_path_factory: pytest.TempPathFactory, real_payload: Any) -> tuple[Path, Any]:
    payload = real_payload("matmul.bishengir.log.gz", "matmul bishengir")
    path = tmp_path_factory.mktemp("passlist") / "matmul.html"
    path.write_text(render_html(payload, title="matmul bishengir"), encoding="utf-8")
    return path, payload


def label(d: dict[str, Any]) -> str:
    return str(d["arg"] or d["pass"])


def open_page(browser: Any, path: Path, width: int = 1280) -> Any:
    page, _ = open_offline(browser, path)
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_selector(".air-pl-row")  # the list is drawn the frame after the IR
    return page


def current_row(page: Any) -> Any:
    return page.locator(".air-pl-row[aria-selected='true']")


def test_rows_name_every_pass_and_follow_keys_and_clicks(
    browser: Any, matmul: tuple[Path, Any]
) -> None:
    path, payload = matmul
    dumps = payload["dumps"]
    page = open_page(browser, path)
    rows = page.locator(".air-pl-row")
    assert rows.count() == len(dumps)
    assert page.locator(".air-pl-stage .air-pl-stagename").all_inner_texts() == ["log"]
    assert page.inner_text(".air-pl-stage .air-pl-stageinfo").startswith("386 passes")
    for d in (dumps[0], dumps[328], next(x for x in dumps if not x["changed"])):
        row = page.locator(f".air-pl-row[data-dump='{d['i']}']")
        assert row.locator(".air-pl-name").inner_text() == label(d)
        assert row.locator(".air-pl-idx").inner_text() == f"#{d['i']}"
        assert row.locator(".air-pl-mark").inner_text() == ("●" if d["changed"] else "○")
        assert (
            d["scope"].split(" ")[-1] in row.locator(".air-pl-scope").inner_text()
            or d["scope"] == "builtin.module"
        )
    # mouse: a click on a row shows that pass; keyboard: j moves the list's selection with it
    page.locator(".air-pl-row[data-dump='328']").click()
    assert page.inner_text(".air-pos").startswith("#328 ")
    assert page.inner_text(".air-passname") == "hivm-graph-sync-solver"
    assert current_row(page).get_attribute("data-dump") == "328"
    page.keyboard.press("j")
    assert current_row(page).get_attribute("data-dump") == "329"
    page.locator(".air-cell[data-dump='5']").click()  # the strip, the same selection
    assert current_row(page).get_attribute("data-dump") == "5"
    # Δ lines: the line count the pass added or removed
    d = next(x for x in dumps[1:] if x["changed"] and x["prev"] >= 0)
    delta = d["lines"] - dumps[d["prev"]]["lines"]
    text = page.locator(f".air-pl-row[data-dump='{d['i']}'] .air-pl-delta").inner_text()
    assert text == (f"+{delta}" if delta > 0 else f"−{-delta}" if delta < 0 else "±0")
    page.close()


def test_fuzzy_filter_hide_unchanged_and_collapse(browser: Any, matmul: tuple[Path, Any]) -> None:
    path, payload = matmul
    page = open_page(browser, path)
    page.fill(".air-filter", "hvsync")  # fuzzy, as Compiler Explorer's filter
    names = page.locator(".air-pl-row .air-pl-name").all_inner_texts()
    assert "hivm-graph-sync-solver" in names
    assert names and all(_subsequence("hvsync", n) for n in names)
    page.fill(".air-filter", "")
    page.check("label:has-text('hide unchanged') input")
    marks = set(page.locator(".air-pl-row .air-pl-mark").all_inner_texts())
    assert marks == {"●"}
    assert page.locator(".air-pl-row").count() == sum(1 for d in payload["dumps"] if d["changed"])
    page.uncheck("label:has-text('hide unchanged') input")
    page.check("label:has-text('collapse cse') input")
    group = page.locator(".air-pl-group").first
    assert group.locator(".air-pl-name").inner_text().startswith("clean-up ×")
    assert (
        "scf-canonicalize-iter-arg"
        not in page.locator(".air-pl-row .air-pl-name").all_inner_texts()
    )
    n_before = page.locator(".air-pl-row").count()
    group.click()
    assert page.locator(".air-pl-row").count() > n_before
    page.close()


def _subsequence(query: str, text: str) -> bool:
    it = iter(text.lower())
    return all(ch in it for ch in query)


def test_g_jumps_by_index_or_name(browser: Any, matmul: tuple[Path, Any]) -> None:
    path, _ = matmul
    page = open_page(browser, path)
    page.keyboard.press("g")
    assert page.evaluate("document.activeElement.className") == "air-goto"
    page.keyboard.type("#42")
    page.keyboard.press("Enter")
    assert page.inner_text(".air-pos").startswith("#42 ")
    page.keyboard.press("g")
    page.keyboard.type("sync-solver")
    page.keyboard.press("Enter")
    assert page.inner_text(".air-pos").startswith("#328 ")
    page.keyboard.press("g")
    page.keyboard.type("sync-solver")
    page.keyboard.press("Enter")  # the next one after the current pass
    assert page.inner_text(".air-pos").startswith("#338 ")
    page.keyboard.press("g")
    page.keyboard.type("no-such-pass-anywhere")
    page.keyboard.press("Enter")
    assert page.inner_text(".air-goto-info") == "no pass matches “no-such-pass-anywhere”"
    assert page.inner_text(".air-pos").startswith("#338 ")
    page.close()


def test_enter_in_search_steps_to_the_next_hit(browser: Any, matmul: tuple[Path, Any]) -> None:
    path, payload = matmul
    page = open_page(browser, path)
    page.keyboard.press("/")
    page.keyboard.type("hivm.hir.set_flag")
    page.keyboard.press("Enter")
    info = page.inner_text(".air-search-info")
    first = int(page.inner_text(".air-pos").split()[0][1:])
    total = int(info.split(" of ")[1].split()[0])
    assert info.startswith("hit 1 of ") and total >= 2
    # the first pass (in order) whose IR holds a set_flag line
    snaps, lines = payload["snapshots"], payload["lines"]
    has = [any("hivm.hir.set_flag" in lines[i] for i in snaps[d["snap"]]) for d in payload["dumps"]]
    assert has[first] and not any(has[:first])
    marked = page.locator(".air-ir .air-hit-cur .air-code").inner_text()
    assert "hivm.hir.set_flag" in marked
    page.keyboard.press("Enter")
    assert page.inner_text(".air-search-info").startswith(f"hit 2 of {total} in #{first}")
    assert page.locator(".air-ir .air-hit-cur").count() == 1
    page.keyboard.press("Shift+Enter")
    assert page.inner_text(".air-search-info").startswith(f"hit 1 of {total} in #{first}")
    for _ in range(total):
        page.keyboard.press("Enter")
    after = int(page.inner_text(".air-pos").split()[0][1:])
    assert after > first and has[after]  # past the last hit: the next pass that has one
    assert page.inner_text(".air-search-info").startswith("hit 1 of ")
    page.close()


def test_layout_at_1280(browser: Any, matmul: tuple[Path, Any]) -> None:
    path, payload = matmul
    page = open_page(browser, path, 1280)
    toolbar = page.evaluate(
        "() => { const t = document.querySelector('.air-toolbar');"
        " const hs = [...t.children].map(c => c.getBoundingClientRect()).filter(r => r.height > 0)"
        "   .map(r => r.top);"
        " return [t.scrollWidth, t.clientWidth, Math.max(...hs) - Math.min(...hs)]; }"
    )
    assert toolbar[0] <= toolbar[1] and toolbar[2] < 6, toolbar  # one row, nothing cut off
    root = page.locator(".air-root").bounding_box()
    assert root["height"] > 0.9 * 900  # the page is filled
    longest = max(payload["dumps"], key=lambda d: len(label(d)))
    row = page.locator(f".air-pl-row[data-dump='{longest['i']}']")
    name = row.locator(".air-pl-name")
    assert name.evaluate("e => e.scrollWidth > e.clientWidth")  # cut with an ellipsis...
    assert label(longest) in (row.get_attribute("title") or "")  # ...and whole in the tooltip
    # every control says what it is (text, aria-label or title)
    unnamed = page.evaluate(
        "() => [...document.querySelectorAll('.air-root button, .air-root input, .air-root select')]"
        ".filter(e => !(e.getAttribute('aria-label') || e.textContent.trim() || e.title ||"
        " (e.closest('label') && e.closest('label').textContent.trim()))).map(e => e.outerHTML)"
    )
    assert unnamed == []
    # keyboard focus is visible: a focused button gets an outline
    page.keyboard.press("Tab")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"
    page.close()
