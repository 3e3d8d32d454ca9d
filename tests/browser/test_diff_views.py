"""Diff views that read well, on the offline page of a real Run compiled with line info: each
side labelled with its pass and scope, locations hidden (on hover, or with a toggle), both
sides scrolled sideways together, and ] / [ stepping from change to change."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.export.files import payload_of, save_html
from tests.browser.conftest import open_offline

pytestmark = pytest.mark.browser

LOC = re.compile(r"(?<![\w.])loc\(")  # a location, not `memref.alloc(`


def has_loc(texts: list[str]) -> bool:
    return any(LOC.search(t) for t in texts)


@pytest.fixture(scope="module")
def page_of(dot_run: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_html(dot_run, tmp_path_factory.mktemp("diffs") / "dot.html")


def go_to(page: Any, i: int) -> None:
    page.keyboard.press("g")
    page.keyboard.type(f"#{i}")
    page.keyboard.press("Enter")
    assert page.inner_text(".air-pos").startswith(f"#{i} ")


def test_side_by_side_reads_well(browser: Any, dot_run: Any, page_of: Path) -> None:
    payload = payload_of(dot_run)
    dumps, stages = payload["dumps"], [s["name"] for s in payload["stages"]]
    # an adapter pass that changed the IR, after its scope's previous state
    d = next(
        x for x in dumps if stages[x["stage"]] == "adapter" and x["changed"] and x["prev"] >= 0
    )
    prev = dumps[d["prev"]]
    page, fetched = open_offline(browser, page_of)
    go_to(page, d["i"])
    assert has_loc(page.locator(".air-ir .air-code").all_inner_texts())  # the IR view has them
    page.keyboard.press("d")
    page.keyboard.press("d")
    assert page.inner_text(".air-view.air-on") == "Side by side"
    left = page.inner_text(".air-label-left")
    right = page.inner_text(".air-label-right")
    label = lambda x: x["arg"] or x["pass"]  # noqa: E731
    assert left.startswith(f"− #{prev['i']} adapter:{label(prev)}") and prev["scope"] in left
    assert right.startswith(f"+ #{d['i']} adapter:{label(d)}") and d["scope"] in right
    codes = page.locator(".air-ir .air-srow .air-code")
    texts = codes.all_inner_texts()
    assert texts and not has_loc(texts)  # locations hidden in the diff
    titled = page.locator(".air-ir .air-srow .air-code[title*='loc(']")
    assert titled.count() > 0  # ...and on hover
    # both sides move sideways together; the gutters stay
    first_left = page.locator(".air-ir .air-srow .air-half:not(.air-blank)").first
    halves = page.locator(".air-ir .air-srow").first.locator(".air-code")
    before = [b["x"] for b in (halves.nth(0).bounding_box(), halves.nth(1).bounding_box())]
    gut = first_left.locator(".air-gut").bounding_box()["x"]
    page.evaluate("() => { const s = document.querySelector('.air-hscroll'); s.scrollLeft = 120; }")
    page.wait_for_timeout(100)
    after = [b["x"] for b in (halves.nth(0).bounding_box(), halves.nth(1).bounding_box())]
    assert page.evaluate("document.querySelector('.air-hscroll').scrollLeft") == 120
    assert [round(a - b) for a, b in zip(before, after, strict=True)] == [120, 120]
    assert first_left.locator(".air-gut").bounding_box()["x"] == gut
    # locations back on with the toggle
    page.check("label:has-text('diff locs') input")
    assert has_loc(page.locator(".air-ir .air-srow .air-code").all_inner_texts())
    assert fetched == []
    page.close()


def test_next_and_previous_change_keys(browser: Any, dot_run: Any, page_of: Path) -> None:
    payload = payload_of(dot_run)
    d = max(payload["dumps"], key=lambda x: x["lines"] if x["changed"] and x["prev"] >= 0 else 0)
    page, _ = open_offline(browser, page_of)
    go_to(page, d["i"])
    page.keyboard.press("d")  # unified diff
    rows = page.locator(".air-ir .air-row")
    assert rows.count() > 0
    page.keyboard.press("]")
    first = page.locator(".air-ir .air-hit-cur")
    assert first.count() == 1
    cls = first.get_attribute("class") or ""
    assert "air-add" in cls or "air-del" in cls  # a changed line
    top1 = first.locator(".air-gut").inner_text()
    page.keyboard.press("]")
    second = page.locator(".air-ir .air-hit-cur")
    if second.count():  # a second block of changes further down
        assert second.locator(".air-gut").inner_text() != top1
        page.keyboard.press("[")
        assert page.locator(".air-ir .air-hit-cur .air-gut").inner_text() == top1
    page.keyboard.press("?")
    assert "next / previous change" in page.inner_text(".air-help")
    page.close()


LONGEST_ROW_JS = """() => {
  const codes = [...document.querySelectorAll('.air-ir .air-row .air-code')];
  const c = codes.reduce((a, b) => (b.textContent.length > a.textContent.length ? b : a));
  return [c.textContent, c.closest('.air-row').querySelector('.air-gut').textContent];
}"""
NONE_PLAIN_JS = "() => !document.querySelector('.air-ir .air-plain')"
# the text of the coloured tokens of the probed row, and the plain text left after them
COLOURED_JS = """(gut) => {
  const row = [...document.querySelectorAll('.air-ir .air-row')].find(
    r => r.querySelector('.air-gut').textContent === gut);
  const code = row.querySelector('.air-code');
  const spans = [...code.querySelectorAll("span[class^='air-t-']")].map(s => s.textContent);
  const tail = code.lastChild.nodeType === Node.TEXT_NODE ? code.lastChild.data : '';
  return [spans, tail];
}"""


def test_long_lines_read_whole_and_colour_what_is_in_view(
    browser: Any, dot_run: Any, page_of: Path
) -> None:
    payload = payload_of(dot_run)
    d = max(payload["dumps"], key=lambda x: x["lines"])
    page, _ = open_offline(browser, page_of)
    go_to(page, d["i"])
    text, gut = page.evaluate(LONGEST_ROW_JS)
    assert text in payload["lines"] and len(text) > 200  # the whole line, locations and all
    page.wait_for_function(NONE_PLAIN_JS)  # rows past a frame's budget get colours next frames
    spans, tail = page.evaluate(COLOURED_JS, gut)
    assert spans and tail and text.endswith(tail)  # coloured where seen, the far end plain
    # scrolled to its end, the end is coloured and the line still reads the same
    page.evaluate(
        "() => { const s = document.querySelector('.air-hscroll'); s.scrollLeft = s.scrollWidth; }"
    )
    page.wait_for_timeout(150)
    page.wait_for_function(NONE_PLAIN_JS)
    spans2, tail2 = page.evaluate(COLOURED_JS, gut)
    assert len(tail2) < len(tail) and spans2 != spans
    code = page.locator(f".air-ir .air-row:has(.air-gut:text-is('{gut}')) .air-code")
    assert code.count() == 1 and code.text_content() == text
    page.close()


# Each drawn line of the IR pane: its gutter, text, word marks, token spans and whether plain.
ROWS_JS = """() => [...document.querySelectorAll('.air-ir .air-row:not(.air-gap) .air-code')].map(c => ({
  gut: c.closest('.air-row').querySelector('.air-gut').textContent, text: c.textContent,
  marks: [...c.querySelectorAll('.air-wd')].map(w => w.textContent),
  spans: c.querySelectorAll("span[class^='air-t-']").length,
  plain: c.classList.contains('air-plain')}))"""
# A step pressed at the start of a frame, and the lines that frame draws (read before the next).
STEP_FRAME_JS = f"""async (key) => {{
  const root = document.querySelector('.air-root');
  await new Promise(r => requestAnimationFrame(r));
  root.dispatchEvent(new KeyboardEvent('keydown', {{key, bubbles: true}}));
  return await new Promise(r => requestAnimationFrame(() => r(({ROWS_JS})())));
}}"""


def test_a_step_paints_text_and_word_marks_at_once_and_colours_after(
    browser: Any, dot_run: Any, page_of: Path
) -> None:
    payload = payload_of(dot_run)
    changed = [d for d in payload["dumps"] if d["changed"] and d["prev"] >= 0 and d["i"] > 0]
    page, _ = open_offline(browser, page_of)
    page.keyboard.press("d")  # unified diff
    for d in sorted(changed, key=lambda x: -x["lines"])[:12]:
        go_to(page, d["i"] - 1)
        first = page.evaluate(STEP_FRAME_JS, "j")
        assert page.inner_text(".air-pos").startswith(f"#{d['i']} ")
        page.wait_for_function(NONE_PLAIN_JS)
        done = {(r["gut"], r["text"]): r for r in page.evaluate(ROWS_JS)}
        # the step's own frame: every line's whole text with the changed words marked, and no
        # token spans yet; the frames after colour the same lines and keep the same marks
        assert first and all(r["plain"] and r["spans"] == 0 for r in first)
        same = [r for r in first if (r["gut"], r["text"]) in done]
        assert len(same) >= len(done) - 2  # (a resize may draw a row less or more)
        assert all(done[r["gut"], r["text"]]["marks"] == r["marks"] for r in same)
        assert any(r["spans"] > 0 for r in done.values())  # coloured now
        if any(r["marks"] for r in same):
            break
    else:
        pytest.fail("no changed pass with word marks in the Run")
    page.close()
