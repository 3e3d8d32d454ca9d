"""Hostile payload text is shown literally and nothing from the payload runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.export.html import render_html

pytestmark = pytest.mark.browser

EVIL = [
    "module {",
    '  func.func @k() attributes {doc = "<img src=x onerror=window.__pwned=1>"} {',
    '    %0 = arith.constant "</script><script>window.__pwned=2</script>" : none',
    '    %1 = "javascript:window.__pwned=3" loc("<svg onload=window.__pwned=4>":1:2)',
    "  }",
    "}",
]


def evil_payload() -> dict[str, Any]:
    return {
        "format": "ascend-ir-lab/timeline@1",
        "title": "<b onmouseover=window.__pwned=5>title</b>",
        "meta": {"target": "<script>window.__pwned=6</script>"},
        "lines": EVIL + ["  // added </script>"],
        "snapshots": [list(range(6)), [0, 1, 2, 6, 3, 4, 5]],
        "stages": [{"name": "<i>stage</i>", "command": ["x"], "returncode": 0}],
        "dumps": [
            {
                "i": 0,
                "stage": 0,
                "pass": "<img src=x onerror=window.__pwned=7>",
                "arg": "a",
                "phase": "after",
                "scope": "builtin.module",
                "snap": 0,
                "prev": -1,
                "changed": True,
                "lines": 6,
                "truncated": False,
                "ms": None,
            },
            {
                "i": 1,
                "stage": 0,
                "pass": "P",
                "arg": "<script>window.__pwned=8</script>",
                "phase": "after",
                "scope": "builtin.module",
                "snap": 1,
                "prev": 0,
                "changed": True,
                "lines": 7,
                "truncated": False,
                "ms": None,
            },
        ],  # fmt: skip
        "messages": [
            {
                "stage": 0,
                "after": 1,
                "level": "error",
                "text": "<img src=x onerror=window.__pwned=9>",
            }
        ],
        "source": None,
        "srcmap": [],
        "notes": [
            {
                "id": "n1",
                "dump": 1,
                "line": 3,
                "text": "<a href='javascript:window.__pwned=10'>x</a>",
                "created": "",
            }
        ],
        "warnings": ["<img src=x onerror=window.__pwned=11>"],
    }


def load(browser: Any, tmp_path: Path, payload: dict[str, Any]) -> tuple[Any, list[str]]:
    path = tmp_path / "page.html"
    path.write_text(
        render_html(payload, title="</title><script>window.__pwned=12</script>"), encoding="utf-8"
    )
    page = browser.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
    page.goto(path.as_uri())
    return page, dialogs


def test_hostile_text_is_shown_literally_and_never_runs(browser: Any, tmp_path: Path) -> None:
    page, dialogs = load(browser, tmp_path, evil_payload())
    page.wait_for_selector(".air-passname")
    assert page.inner_text(".air-title") == "<b onmouseover=window.__pwned=5>title</b>"
    assert page.inner_text(".air-passfull") == "(<img src=x onerror=window.__pwned=7>)"
    assert "<img src=x onerror=window.__pwned=1>" in page.inner_text(".air-ir")
    page.keyboard.press("j")
    assert page.inner_text(".air-passname") == "<script>window.__pwned=8</script>"
    assert page.inner_text(".air-msg") == "<img src=x onerror=window.__pwned=9>"
    assert page.inner_text(".air-note-text") == "<a href='javascript:window.__pwned=10'>x</a>"
    page.keyboard.press("d")
    assert "// added </script>" in page.inner_text(".air-ir")
    page.keyboard.press("d")
    page.hover(".air-title")
    assert page.locator("img, svg[onload], a[href^='javascript']").count() == 0
    assert page.evaluate("window.__pwned") is None
    assert page.title() == "</title><script>window.__pwned=12</script>"
    assert dialogs == []
    page.close()


def test_invalid_payload_shows_an_error_panel_not_a_half_render(
    browser: Any, tmp_path: Path
) -> None:
    bad = evil_payload()
    bad["dumps"][1]["snap"] = 9
    page, _ = load(browser, tmp_path, bad)
    page.wait_for_selector(".air-error")
    assert page.inner_text(".air-error-title") == "This IR timeline cannot be shown"
    assert page.inner_text(".air-error-text") == "dumps[1].snap: expected an integer in 0..1, got 9"
    assert page.locator(".air-strip, .air-ir").count() == 0
    assert page.evaluate("window.__pwned") is None
    page.close()
