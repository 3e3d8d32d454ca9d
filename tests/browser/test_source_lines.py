"""Source lines in the viewer are the file's own, 1-based: a real Run of a kernel whose `def` is
at line 40 of its file, on the offline page; clicking the `tl.dot` line highlights the dot's ops
in every pass that has them, and a blank line has none."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.export.files import payload_of, save_html
from tests.browser.conftest import KERNELS, open_offline

pytestmark = pytest.mark.browser

KERNEL = KERNELS / "dot_at_40.py"


def kernel_module() -> Any:
    spec = importlib.util.spec_from_file_location("_dot_at_40", KERNEL)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ops_of_line(payload: dict[str, Any], py: int) -> list[set[str]]:
    """Per Dump, the IR texts located at Python line `py` in the IR the viewer shows for it
    (a Before dump shows its pass's output, the next dump of its scope)."""
    out = []
    dumps = payload["dumps"]
    for d in dumps:
        if d["phase"] == "before" and d.get("next", -1) >= 0:
            d = dumps[d["next"]]
        snap = payload["snapshots"][d["snap"]]
        out.append(
            {payload["lines"][snap[i]] for i, ln in payload["srcmap"][d["snap"]] if ln == py}
        )
    return out


def test_the_dot_line_highlights_its_ops_in_every_pass(
    browser: Any, dot_run: Any, tmp_path: Path
) -> None:
    k = kernel_module()
    payload = payload_of(dot_run)
    assert payload["source"]["first_line"] == k.DEF_LINE == 40
    expected = ops_of_line(payload, k.DOT_LINE)
    assert sum(1 for e in expected if e) > 100  # ttir, adapter and most bishengir passes
    page, fetched = open_offline(browser, save_html(dot_run, tmp_path / "dot.html"))
    src = page.locator(".air-source")
    # the panel numbers the file from line 1, with the file's own text on each number
    assert (
        src.locator('.air-src-line[data-line="1"] .air-code').inner_text().startswith('"""A tile')
    )
    assert src.locator(".air-src-def .air-gut").inner_text() == "40"
    assert src.locator(".air-src-def .air-code").inner_text().startswith("def dot_tile(")
    dot = src.locator(f'.air-src-line[data-line="{k.DOT_LINE}"]')
    assert dot.locator(".air-code").inner_text().strip() == "c = tl.dot(a, b)"
    # a blank line and the import lines carry no ops
    for line in (k.BLANK_LINE, 2, 7, 8):
        assert src.locator(f'.air-src-line[data-line="{line}"] .air-src-count').inner_text() == ""
    dot.click()
    assert "air-src-sel" in (dot.get_attribute("class") or "")
    for i, want in enumerate(expected):
        if i:
            page.keyboard.press("j")
        assert page.inner_text(".air-pos").startswith(f"#{i} ")
        info = page.inner_text(".air-src-info")
        shown = set(page.locator(".air-ir .air-row.air-src .air-code").all_inner_texts())
        if want:
            assert info.startswith(f"line {k.DOT_LINE}: {len(want)} IR lines here"), (i, info)
            assert shown and shown <= want, (i, shown - want)
        else:
            assert info.startswith(f"line {k.DOT_LINE}: 0 IR lines here") and not shown, i
    blank = src.locator(f'.air-src-line[data-line="{k.BLANK_LINE}"]')
    blank.click()
    assert (
        page.inner_text(".air-src-info")
        == f"line {k.BLANK_LINE}: no IR in any pass carries this line"
    )
    assert page.locator(".air-ir .air-row.air-src").count() == 0
    assert fetched == []
    page.close()
