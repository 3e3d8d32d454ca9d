"""Bidirectional overrides and invisible characters in a payload from someone else are drawn
as visible codes (`<U+202E>`), never obeyed: in the title, pass names, IR, messages, notes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.export.html import render_html
from tests.browser.conftest import open_offline

pytestmark = pytest.mark.browser

RLO, ZWSP, LRI = "\u202e", "\u200b", "\u2066"


def payload() -> dict[str, Any]:
    lines = ["module {", f"  %0 = arith.constant {RLO}1 : i32 // evil{ZWSP}", "}"]
    dump = {"i": 0, "stage": 0, "pass": f"pass{LRI}x", "arg": f"safe{RLO}lave", "phase": "after",
            "scope": "builtin.module", "snap": 0, "prev": -1, "changed": True, "lines": 3,
            "truncated": False, "ms": None}  # fmt: skip
    return {"format": "ascend-ir-lab/timeline@1", "title": f"kernel{RLO}gnp.exe", "meta": {},
            "lines": lines, "snapshots": [[0, 1, 2]],
            "stages": [{"name": "s", "command": [], "returncode": 0}], "dumps": [dump],
            "messages": [{"stage": 0, "after": 0, "level": "error", "text": f"bad{RLO}txt"}],
            "source": {"file": "k.py", "first_line": 1, "text": f"x = 1  # {RLO}comment"},
            "srcmap": [[]], "notes": [{"id": "n1", "dump": 0, "ir_line": 2, "text": f"see{RLO}this"}],
            "warnings": []}  # fmt: skip


def test_reordering_and_invisible_characters_are_shown(browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "bidi.html"
    path.write_text(render_html(payload(), title="bidi"), encoding="utf-8")
    page, fetched = open_offline(browser, path)
    assert page.inner_text(".air-title") == "kernel<U+202E>gnp.exe"
    assert page.inner_text(".air-passname") == "safe<U+202E>lave"
    assert page.inner_text(".air-passfull") == "(pass<U+2066>x)"
    assert page.inner_text(".air-pl-name") == "safe<U+202E>lave"
    assert page.inner_text(".air-msg") == "bad<U+202E>txt"
    ir = page.locator(".air-ir .air-row .air-code").all_inner_texts()
    assert ir[1] == "  %0 = arith.constant <U+202E>1 : i32 // evil<U+200B>"
    assert page.locator(".air-ir .air-ctl").count() == 2
    assert page.inner_text(".air-src-line .air-code") == "x = 1  # <U+202E>comment"
    assert page.inner_text(".air-note-text") == "see<U+202E>this"
    # the page itself holds no raw override character in what it draws
    assert RLO not in page.inner_text(".air-root")
    assert fetched == []
    page.close()
