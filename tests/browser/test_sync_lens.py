"""The sync lens as a view, on the offline page of a real bishengir log: it keeps the place,
colours each pipe, links a wait_flag to its set_flag, steps from sync op to sync op, and shows
the sync checker's findings (payload `sync_check`) as markers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.export.html import render_html
from tests.browser.conftest import open_offline

pytestmark = pytest.mark.browser


def first_with_pairs(payload: dict[str, Any]) -> tuple[int, list[str]]:
    """The first dump whose IR has both set_flag and wait_flag lines, and its lines."""
    for d in payload["dumps"]:
        text = [payload["lines"][i] for i in payload["snapshots"][d["snap"]]]
        if any("hivm.hir.wait_flag" in t for t in text) and any(
            "hivm.hir.set_flag" in t for t in text
        ):
            return d["i"], text
    raise AssertionError("no dump with flags")


@pytest.fixture(scope="module")
def page_path(tmp_path_factory: pytest.TempPathFactory, real_payload: Any) -> tuple[Path, int, int]:
    payload = real_payload("matmul.bishengir.log.gz", "matmul bishengir")
    dump, text = first_with_pairs(payload)
    line = next(k + 1 for k, t in enumerate(text) if "hivm.hir.wait_flag" in t)
    payload["sync_check"] = {"dumps": {str(dump): [
        {"line": line, "severity": "definite", "kind": "unmatched-wait", "message": "wait with no set before it",
         "pipes": ["MTE1", "MTE2"], "buffer": None, "source_line": None}]}}  # fmt: skip
    path = tmp_path_factory.mktemp("sync") / "matmul.html"
    path.write_text(render_html(payload, title="matmul bishengir"), encoding="utf-8")
    return path, dump, line


def test_sync_lens_keeps_the_place_and_links_flags(
    browser: Any, page_path: tuple[Path, int, int]
) -> None:
    path, dump, line = page_path
    page, fetched = open_offline(browser, path)
    page.keyboard.press("g")
    page.keyboard.type(f"#{dump}")
    page.keyboard.press("Enter")
    page.evaluate("() => { const v = document.querySelector('.air-ir'); v.scrollTop = 360; }")
    page.wait_for_timeout(100)
    page.keyboard.press("s")
    page.wait_for_timeout(100)
    assert page.evaluate("document.querySelector('.air-ir').scrollTop") == 360  # the place is kept
    assert "sync lens:" in page.inner_text(".air-syncinfo")
    # f: the next sync op, its pipe coloured
    page.keyboard.press("f")
    hit = page.locator(".air-ir .air-hit-cur")
    assert "air-sync" in (hit.get_attribute("class") or "")
    colours = page.evaluate(
        "() => [...new Set([...document.querySelectorAll('.air-ir .air-sync')]"
        ".map(e => getComputedStyle(e).getPropertyValue('--air-pipe').trim()))]"
    )
    page.keyboard.press("g")
    page.keyboard.type(f"#{dump}")
    page.keyboard.press("Enter")
    for _ in range(60):  # walk the sync ops until a paired wait_flag is drawn
        page.keyboard.press("f")
        waits = page.locator(".air-ir .air-sync-wait_flag .air-pair:not(.air-unpaired)")
        if waits.count():
            break
    colours += page.evaluate(
        "() => [...document.querySelectorAll('.air-ir .air-sync')]"
        ".map(e => getComputedStyle(e).getPropertyValue('--air-pipe').trim())"
    )
    assert len(set(colours)) >= 2  # more than one pipe, more than one colour
    badge = waits.first
    pair = badge.inner_text()
    assert pair.startswith("→")
    badge.click()
    partner = page.locator(".air-ir .air-sync-set_flag .air-pair", has_text="←" + pair[1:])
    assert partner.count() == 1 and partner.is_visible()
    # the checker's finding: a marker on its line, and e steps to it
    page.keyboard.press("e")
    hit = page.locator(".air-ir .air-hit-cur")
    assert hit.locator(".air-gut").inner_text() == str(line)
    mark = hit.locator(".air-finding-mark")
    assert mark.inner_text() == "✗" and "wait with no set before it" in (
        mark.get_attribute("title") or ""
    )
    assert "1 checker finding" in page.inner_text(".air-syncinfo")
    assert fetched == []
    page.close()
