"""Offline HTML: one self-contained page, payload embedded safely; static fallback escaped."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

import pytest

from ascend_ir_lab.export.html import embed_json, render_html, static_html


def payload(text: str = "module {", note: str = "n") -> dict[str, Any]:
    return {
        "format": "ascend-ir-lab/timeline@1", "title": "t <b>", "meta": {},
        "lines": [text, "}"], "snapshots": [[0, 1]],
        "stages": [{"name": "s", "command": [], "returncode": 0}],
        "dumps": [{"i": 0, "stage": 0, "pass": "P<x>", "arg": "p", "phase": "after",
                   "scope": "builtin.module", "snap": 0, "prev": -1, "changed": True,
                   "lines": 2, "truncated": False, "ms": None}],
        "messages": [], "source": None, "srcmap": [],
        "notes": [{"id": "n1", "dump": 0, "line": 0, "text": note, "created": ""}], "warnings": [],
    }  # fmt: skip


class Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.data: dict[str, str] = {}
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in = dict(attrs).get("id") or tag

    def handle_data(self, data: str) -> None:
        if self._in:
            self.data[self._in] = self.data.get(self._in, "") + data


EVIL = "</script><script>alert(1)</script> & <!-- \u2028 \u2029 <img src=x onerror=alert(2)>"


def test_embed_json_escapes_and_parses_back() -> None:
    text = embed_json({"x": EVIL})
    assert not re.search(r"[<>&\u2028\u2029]", text)
    assert json.loads(text) == {"x": EVIL}


def test_page_is_self_contained_and_payload_cannot_break_out() -> None:
    page = render_html(payload(EVIL, EVIL), title="</title><script>x</script>")
    p = Collect()
    p.feed(page)
    scripts = [a for t, a in p.tags if t == "script"]
    assert len(scripts) == 2 and scripts[0] == {"type": "application/json", "id": "air-payload"}
    assert json.loads(p.data["air-payload"])["lines"][0] == EVIL
    assert "<title>&lt;/title&gt;&lt;script&gt;x&lt;/script&gt;</title>" in page
    assert not [a for _, a in p.tags if "src" in a or "href" in a]
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page
    csp = next(a["content"] for t, a in p.tags if t == "meta" and a.get("http-equiv"))
    assert csp is not None and "connect-src 'none'" in csp and "default-src 'none'" in csp
    assert re.search(r"script-src 'sha256-[A-Za-z0-9+/=]+'", csp)


def test_title_must_be_text() -> None:
    with pytest.raises(TypeError, match="title must be a str"):
        render_html(payload(), title=3)  # type: ignore[arg-type]


def test_static_fallback_lists_passes_final_ir_and_notes_escaped() -> None:
    out = static_html(payload(EVIL, "<b>note</b>"))
    assert "<script" not in out and "<img" not in out and "<b>note" not in out
    assert "&lt;/script&gt;" in out and "&lt;b&gt;note&lt;/b&gt;" in out
    assert "P&lt;x&gt;" not in out  # the pass column shows the argument
    assert "<td>p</td>" in out and "1 IR dumps" in out
    assert "pass #0, line 1" in out
