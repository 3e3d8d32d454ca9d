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


def test_census_sits_beside_each_pass_of_the_list(
    browser: Any, tmp_path: Path, real_payload: Any
) -> None:
    """Each row of the pass list carries its pass's census (a bar per op against the largest
    value over the shown passes, the values in its tooltip), the same values the chart gives
    for that pass; a filter redraws the bars against the passes it leaves."""
    payload = real_payload("matmul.bishengir.log.gz", "matmul bishengir")
    path = tmp_path / "matmul.html"
    path.write_text(render_html(payload, title="matmul bishengir"), encoding="utf-8")
    page, fetched = open_offline(browser, path)
    page.wait_for_selector(".air-pl-census")
    dumps, ops = payload["dumps"], ("set_flag", "wait_flag", "pipe_barrier")

    def count(op: str, i: int) -> int:
        snap = payload["snapshots"][dumps[i]["snap"]]
        return sum(1 for k in snap if f"hivm.hir.{op}" in payload["lines"][k].split("[")[0])

    def row(i: int) -> Any:
        return page.locator(f".air-pl-row[data-dump='{i}']")

    def widths(i: int) -> list[float]:
        cell = row(i).locator(".air-pl-census")
        full = cell.bounding_box()["width"]
        return [b["width"] / full for b in cell.locator(".air-plc").evaluate_all(
            "bs => bs.map(b => b.getBoundingClientRect())")]  # fmt: skip

    n = len(dumps)
    peak = max(count(op, i) for op in ops for i in range(n))
    most = max(range(n), key=lambda i: count("set_flag", i))
    want = " · ".join(f"{op} {count(op, most)}" for op in ops)
    row(most).scroll_into_view_if_needed()
    assert row(most).locator(".air-pl-census").get_attribute("title") == want
    assert [round(w, 2) for w in widths(most)] == [
        round(max(0.04, count(op, most) / peak), 2) if count(op, most) else 0.0 for op in ops
    ]
    row(0).scroll_into_view_if_needed()
    assert widths(0) == [0.0, 0.0, 0.0] and count("set_flag", 0) == 0
    # the chart says the same of that pass
    row(most).click()
    assert page.inner_text(".air-census-info").startswith(want + " here")
    # filtered to the sync solver's runs: the bars are measured against those passes
    page.fill(".air-filter", "hivm-graph-sync-solver")
    shown = [int(x) for x in page.locator(".air-pl-row").evaluate_all(
        "rs => rs.map(r => r.dataset.dump)")]  # fmt: skip
    assert shown == [i for i in range(n) if dumps[i]["arg"] == "hivm-graph-sync-solver"]
    low = max(count(op, i) for op in ops for i in shown)
    top = max(shown, key=lambda i: max(count(op, i) for op in ops))
    assert low > 0 and round(max(widths(top)), 2) == 1.0  # the solver's output holds sync ops
    assert fetched == []
    page.close()
