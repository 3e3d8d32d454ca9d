"""The op census chart, on the offline page of a real bishengir log: a HIVM Run opens with the
set_flag / wait_flag / pipe_barrier census, drawn with an axis and a legend; hovering names the
pass under the cursor and its values; a click goes to that pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.export.html import render_html
from tests.browser.conftest import open_offline

pytestmark = pytest.mark.browser


def test_census_reads_and_jumps(browser: Any, tmp_path: Path, real_payload: Any) -> None:
    payload = real_payload("matmul.bishengir.log.gz", "matmul bishengir")
    path = tmp_path / "matmul.html"
    path.write_text(render_html(payload, title="matmul bishengir"), encoding="utf-8")
    page, fetched = open_offline(browser, path)
    page.wait_for_selector(".air-census-plot svg")
    legend = page.locator(".air-census-legend .air-legend").all_inner_texts()
    assert legend == ["hivm.hir.set_flag", "hivm.hir.wait_flag", "hivm.hir.pipe_barrier"]
    n = len(payload["dumps"])
    assert page.locator(".air-census-svg rect").count() == 3 * n  # three bars a pass

    def count(op: str, i: int) -> int:
        snap = payload["snapshots"][payload["dumps"][i]["snap"]]
        return sum(1 for k in snap if f"hivm.hir.{op}" in payload["lines"][k].split("[")[0])

    most = max(range(n), key=lambda i: count("set_flag", i))
    peak = max(count(op, i) for op in ("set_flag", "wait_flag", "pipe_barrier") for i in range(n))
    assert (
        page.inner_text(".air-axis-max") == str(peak) and page.inner_text(".air-axis-zero") == "0"
    )
    assert page.inner_text(".air-axis-first") == "#0"
    assert page.inner_text(".air-axis-last") == f"#{n - 1}"
    box = page.locator(".air-census-plot").bounding_box()
    slots = max(n, 40)
    x = box["x"] + (most + 0.5) * box["width"] / slots
    page.mouse.move(x, box["y"] + box["height"] / 2)
    info = page.inner_text(".air-census-info")
    label = payload["dumps"][most]["arg"] or payload["dumps"][most]["pass"]
    assert info.startswith(f"#{most} {label}: set_flag {count('set_flag', most)} · wait_flag ")
    page.mouse.click(x, box["y"] + box["height"] / 2)
    assert page.inner_text(".air-pos").startswith(f"#{most} ")
    assert page.inner_text(".air-census-info").startswith(f"set_flag {count('set_flag', most)} ")
    # a filter leaving few passes draws thin bars, not blocks as wide as the chart
    page.fill(".air-filter", "hivm-graph-sync-solver")
    bar = page.locator(".air-census-svg rect").first.bounding_box()
    assert bar["width"] < box["width"] / 20
    assert fetched == []
    page.close()
