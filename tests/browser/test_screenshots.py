"""The README's pictures, made here from real Runs and logs: the explorer with its pass list and
source panel, a side-by-side diff, the sync lens, the census and the pass list filtered, and
two Runs side by side. Each
picture is taken after the test has read on the page that it shows what its caption says.
With ASCEND_IR_LAB_SCREENSHOTS=1 they are written to docs/screenshots (what the README shows);
otherwise to a temporary folder, and the README is only checked to show every one of them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.export.files import save_html
from ascend_ir_lab.export.html import render_html
from tests.browser.conftest import open_offline

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "screenshots"
SHOTS = ("explorer", "diff", "sync-lens", "census", "pass-list", "compare")


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if os.environ.get("ASCEND_IR_LAB_SCREENSHOTS") == "1":
        DOCS.mkdir(parents=True, exist_ok=True)
        return DOCS
    return tmp_path_factory.mktemp("shots")


def shoot(page: Any, path: Path) -> None:
    page.wait_for_timeout(150)  # the frame after the last key
    page.screenshot(path=str(path))
    assert path.stat().st_size > 10_000


def go(page: Any, i: int) -> None:
    page.keyboard.press("g")
    page.keyboard.type(f"#{i}")
    page.keyboard.press("Enter")
    assert page.inner_text(".air-pos").startswith(f"#{i} ")


def test_readme_shows_every_picture() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in SHOTS:
        assert f"docs/screenshots/{name}.png" in readme, name
        assert (DOCS / f"{name}.png").is_file(), name


def test_explorer_picture(browser: Any, dot_run: Any, out: Path, tmp_path: Path) -> None:
    page, _ = open_offline(browser, save_html(dot_run, tmp_path / "dot.html"))
    page.set_viewport_size({"width": 1280, "height": 760})
    page.check("label:has-text('no locs') input")
    payload_dumps = page.locator(".air-pl-row")
    payload_dumps.first.wait_for()
    first_bishengir = page.locator(".air-pl-stage", has_text="bishengir")
    assert first_bishengir.count() == 1
    page.locator(".air-src-line[data-line='47']").click()
    go(page, 40)
    assert page.locator(".air-ir .air-row.air-src").count() > 0
    assert "tl.dot" in page.inner_text(".air-src-sel")
    shoot(page, out / "explorer.png")
    page.close()


@pytest.fixture(scope="module")
def matmul_page(tmp_path_factory: pytest.TempPathFactory, real_payload: Any) -> Path:
    payload = real_payload("matmul.bishengir.log.gz", "matmul (Ascend910B3), bishengir")
    path = tmp_path_factory.mktemp("shots-page") / "matmul.html"
    path.write_text(render_html(payload, title="matmul (Ascend910B3), bishengir"), encoding="utf-8")
    return path


def test_diff_sync_census_and_list_pictures(browser: Any, matmul_page: Path, out: Path) -> None:
    page, _ = open_offline(browser, matmul_page)
    page.set_viewport_size({"width": 1280, "height": 760})
    page.wait_for_selector(".air-census-plot svg")
    go(page, 348)  # hivm-graph-sync-solver on the mix kernel: it places set_flag / wait_flag
    page.keyboard.press("d")
    page.keyboard.press("d")
    assert page.inner_text(".air-label-right").startswith("+ #348 log:hivm-graph-sync-solver")
    assert page.locator(".air-ir .air-srow .air-add").count() > 0
    shoot(page, out / "diff.png")
    page.keyboard.press("d")  # back to the IR view
    page.keyboard.press("s")
    page.keyboard.press("f")
    assert "air-sync" in (page.locator(".air-ir .air-hit-cur").get_attribute("class") or "")
    shoot(page, out / "sync-lens.png")
    page.keyboard.press("s")
    chart = page.locator(".air-searchbar")
    assert page.locator(".air-census-legend .air-legend").count() == 3
    page.wait_for_timeout(150)
    chart.screenshot(path=str(out / "census.png"))
    page.fill(".air-filter", "hivm sync")
    page.check("label:has-text('hide unchanged') input")
    names = page.locator(".air-pl-row .air-pl-name").all_inner_texts()
    assert names and "hivm-graph-sync-solver" in names
    page.locator(".air-passlist").screenshot(path=str(out / "pass-list.png"))
    page.close()


def test_compare_picture(browser: Any, out: Path, tmp_path: Path) -> None:
    from ascend_ir_lab.toolchains.common.tools import triton_ascend_available

    if not triton_ascend_available():
        pytest.skip("triton-ascend is not importable: pip install -e '.[ascend]'")
    from ascend_ir_lab.export.files import save_comparison_html
    from ascend_ir_lab.toolchains.ascend.compile import compile_kernel
    from tests.browser.conftest import KERNELS
    from tests.kernels import matmul

    c = matmul.COMPILE
    runs = [compile_kernel(f"{KERNELS / 'matmul.py'}::{c['kernel']}", signature=c["signature"],
                           constexprs=c["constexprs"], out=tmp_path / name, name=name,
                           barrier_all=name == "barrier", check=False)
            for name in ("fine", "barrier")]  # fmt: skip
    page, _ = open_offline(
        browser, save_comparison_html(*runs, tmp_path / "c.html"), ".air-cmp-row"
    )
    page.set_viewport_size({"width": 1280, "height": 760})
    name = "hivm-graph-sync-solver → hivm-inject-sync"
    row = page.locator(".air-cmp-row.air-cmp-swapped", has_text=name)
    row.and_(page.locator("[title*='@matmul_mix_aiv ']")).click()
    assert page.inner_text(".air-label-right").startswith("+ barrier #")
    assert page.locator(".air-ir .air-srow .air-add").count() > 0
    shoot(page, out / "compare.png")
    page.close()
