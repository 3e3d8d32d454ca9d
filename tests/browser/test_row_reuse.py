"""A diff row kept from the previous pass (same shown text, same place) still tells the
current pass's line on hover: its tooltip follows the pass, not the row it was drawn for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.export.html import render_html
from tests.browser.conftest import open_offline

pytestmark = pytest.mark.browser

LINES = [
    "module {",
    '  %0 = arith.constant 1 : i32 loc("k.py":3:5)',
    '  %0 = arith.constant 2 : i32 loc("k.py":3:5)',
    '  %0 = arith.constant 3 : i32 loc("k.py":3:5)',
    '  %1 = arith.constant 7 : i32 loc("k.py":4:5)',
    '  %1 = arith.constant 7 : i32 loc("k.py":9:5)',  # only its location moved
    "}",
]


def payload() -> dict[str, Any]:
    snapshots = [[0, 1, 4, 6], [0, 2, 4, 6], [0, 3, 5, 6]]
    dumps = [
        {"i": i, "stage": 0, "pass": f"p{i}", "arg": f"pass-{i}", "phase": "after",
         "scope": "builtin.module", "snap": i, "prev": i - 1, "changed": i > 0, "lines": 4,
         "truncated": False, "ms": None}
        for i in range(3)
    ]  # fmt: skip
    return {"format": "ascend-ir-lab/timeline@1", "title": "locs", "meta": {}, "lines": LINES,
            "snapshots": snapshots, "stages": [{"name": "s", "command": [], "returncode": 0}],
            "dumps": dumps, "messages": [], "source": None, "srcmap": [[], [], []], "notes": [],
            "warnings": []}  # fmt: skip


def test_a_reused_row_tells_the_current_pass_line(browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "locs.html"
    path.write_text(render_html(payload(), title="locs"), encoding="utf-8")
    page, _ = open_offline(browser, path)
    page.keyboard.press("j")
    assert page.inner_text(".air-passname") == "pass-1"
    page.keyboard.press("d")
    assert page.inner_text(".air-view.air-on") == "Unified diff"
    moved = page.locator(".air-ir .air-ctx .air-code", has_text="arith.constant 7")
    assert moved.inner_text().strip() == "%1 = arith.constant 7 : i32"  # locations hidden
    assert moved.get_attribute("title") == '%1 = arith.constant 7 : i32 loc("k.py":4:5)'
    page.keyboard.press("j")
    assert page.inner_text(".air-passname") == "pass-2"
    assert moved.get_attribute("title") == '%1 = arith.constant 7 : i32 loc("k.py":9:5)'
    page.close()
