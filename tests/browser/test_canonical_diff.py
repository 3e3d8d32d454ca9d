"""Diffs in the canonical form, and Before dumps inside the inliner, as a person reads them on
the offline page of real logs: hfusion-add-ffts-addr inserts an argument first, so every
later %argN is renumbered and the plain diff is mostly noise; in the canonical form only the
signature changes. TTIR's Before dumps of the inliner's nested canonicalize say whose change
the IR up to the next dump is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.dumps import open_timeline
from ascend_ir_lab.export import build_payload
from ascend_ir_lab.export.html import render_html
from tests.browser.conftest import DATA, open_offline

pytestmark = pytest.mark.browser
GOLDEN = Path(__file__).parents[1] / "data" / "golden" / "canonical.json"


def _page(browser: Any, tmp_path: Path, log: str) -> tuple[Any, list[str], dict[str, Any]]:
    payload = build_payload(open_timeline(DATA / log))
    path = tmp_path / "page.html"
    path.write_text(render_html(payload, title=log), encoding="utf-8")
    page, fetched = open_offline(browser, path)
    return page, fetched, payload


def _go(page: Any, i: int) -> None:
    page.locator(".air-root").focus()
    page.keyboard.press("g")
    page.keyboard.type(f"#{i}")
    page.keyboard.press("Enter")
    assert page.inner_text(".air-pos").startswith(f"#{i} ")


def _changed(page: Any) -> tuple[list[str], list[str]]:
    code = ".air-code"
    return (page.locator(f".air-ir .air-row.air-del {code}").all_inner_texts(),
            page.locator(f".air-ir .air-row.air-add {code}").all_inner_texts())  # fmt: skip


def test_an_inserted_argument_is_one_changed_line_in_the_canonical_form(
    browser: Any, tmp_path: Path
) -> None:
    page, fetched, payload = _page(browser, tmp_path, "vadd.bishengir.log.gz")
    at = next(d["i"] for d in payload["dumps"] if d["arg"] == "hfusion-add-ffts-addr")
    _go(page, at)
    page.locator(".air-view", has_text="Unified diff").click()
    removed, added = _changed(page)
    assert len(added) > 3  # every use of a renumbered argument
    page.get_by_label("value names").select_option(label="canonical form")
    removed, added = _changed(page)
    golden = json.loads(GOLDEN.read_text("utf-8"))["cases"]
    signature = next(line for line in golden[1]["expected"] if line.startswith("func.func"))
    assert [t.strip() for t in added] == [signature]
    assert len(removed) == 1 and removed[0].strip().startswith("func.func @vadd(%memref_xi8_0")
    # the indentation of the IR is kept: a body line sits deeper than the function
    ctx = page.locator(".air-ir .air-row.air-ctx .air-code").all_inner_texts()
    assert any(t.startswith("    %v") for t in ctx)
    # back to the names as printed: the long diff again
    page.get_by_label("value names").select_option(label="names as printed")
    assert len(_changed(page)[1]) > 3
    assert fetched == []
    page.close()


def test_the_inliners_nested_canonicalize_is_not_blamed_alone(browser: Any, tmp_path: Path) -> None:
    page, fetched, payload = _page(browser, tmp_path, "vadd.ttir-passes.log")
    dumps = payload["dumps"]
    nested = next(
        d["i"] for d in dumps if d["arg"] == "canonicalize" and d["scope"] != "builtin.module"
    )
    inliner = max(d["i"] for d in dumps[:nested] if d["arg"] == "inline")
    after = next(d["i"] for d in dumps[nested:] if d["scope"] == "builtin.module")
    _go(page, nested)
    assert page.inner_text(".air-passname") == "canonicalize"
    assert page.inner_text(".air-nested") == (
        f"inside inline (#{inliner}): the change up to #{after} is inline's and canonicalize's together"
    )
    top = next(d["i"] for d in dumps[after:] if d["arg"] == "canonicalize")
    _go(page, top)  # the module-level canonicalize of the pipeline is its own
    assert page.locator(".air-nested").count() == 0
    assert fetched == []
    page.close()
