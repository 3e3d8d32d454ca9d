"""Two Runs side by side, as a person reads them: real Runs of tests/kernels/matmul.py
(fine-grained sync, barrier-all, and a second fine build for the noise), on the offline page
`ascend-ir-lab html A --compare B` writes and in a real JupyterLab from `%ir_diff A B`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.cli import main
from tests.browser.conftest import KERNELS, open_offline
from tests.browser.lab_server import jupyterlab

pytestmark = pytest.mark.browser
LONG = 180_000  # ms: a cold kernel on a busy two-core machine


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Run folders fine, barrier (barrier-all sync, and sub-block binding off: a pass that only
    fine runs) and fine2 (fine compiled again)."""
    from ascend_ir_lab.toolchains.common.tools import triton_ascend_available

    if not triton_ascend_available():
        pytest.skip("triton-ascend is not importable: pip install -e '.[ascend]'")
    from ascend_ir_lab.toolchains.ascend.compile import compile_kernel
    from tests.kernels import matmul

    c, root = matmul.COMPILE, tmp_path_factory.mktemp("cmp")
    out = {}
    for name, barrier in (("fine", False), ("barrier", True), ("fine2", False)):
        out[name] = root / name
        compile_kernel(f"{KERNELS / 'matmul.py'}::{c['kernel']}", signature=c["signature"],
                       constexprs=c["constexprs"], out=out[name], name=name,
                       barrier_all=barrier, check=False,
                       options={"enable_auto_bind_sub_block": False} if barrier else None)  # fmt: skip
    return out


def _expected(runs: dict[str, Path], noise: bool) -> dict[str, Any]:
    """What the analysis says of fine vs barrier: the first real divergence, as a label."""
    from ascend_ir_lab.analysis.compare import compare
    from ascend_ir_lab.analysis.noise import measure_noise
    from ascend_ir_lab.dumps import open_timeline

    a, b = open_timeline(runs["fine"]), open_timeline(runs["barrier"])
    measured = measure_noise([a, open_timeline(runs["fine2"])]) if noise else None
    first = compare(a, b, "fine", "barrier", noise=measured).first_real
    assert first is not None and first.a is not None and first.b is not None
    name = first.a.label if first.a.label == first.b.label else f"{first.a.label} → {first.b.label}"
    return {"first_real": f"{name} #{first.a.index} ↔ #{first.b.index}", "a": first.a}


def _read_as_a_person(page: Any, want: dict[str, Any]) -> None:
    """The first real divergence is a click away; the solver pair shows both IRs."""
    jump = page.locator(".air-cmp-jump").last  # the first divergence that is not noise
    assert jump.inner_text().endswith(f": {want['first_real']}")
    jump.click()
    assert page.locator(".air-cmp-kind").inner_text() == "≠ differs"
    a = want["a"]
    assert page.locator(".air-label-left").inner_text() == (
        f"− fine #{a.index} {a.stage}:{a.label} · {a.phase} · {a.scope}"
    )
    assert page.locator(".air-label-right").inner_text().startswith("+ barrier #")
    # the pass barrier-all replaces: its row names both, its two IRs sit side by side
    name = "hivm-graph-sync-solver → hivm-inject-sync"
    swapped = page.locator(".air-cmp-row.air-cmp-swapped", has_text=name)
    assert swapped.count() > 1 and swapped.first.locator(".air-cmp-name").inner_text() == name
    swapped.and_(page.locator("[title*='@matmul_mix_aiv ']")).click()  # the vector core's
    left = page.locator(".air-label-left").inner_text()
    right = page.locator(".air-label-right").inner_text()
    assert re.match(r"− fine #\d+ bishengir:hivm-graph-sync-solver · after · func\.func @", left)
    assert re.match(r"\+ barrier #\d+ bishengir:hivm-inject-sync · after · func\.func @", right)
    page.locator(".air-ir .air-row").first.wait_for()
    halves = page.locator(".air-ir .air-row .air-half")
    left_code = " ".join(
        halves.evaluate_all("hs => hs.filter((_, k) => k % 2 === 0).map(h => h.textContent)")
    )
    right_code = " ".join(
        halves.evaluate_all("hs => hs.filter((_, k) => k % 2 === 1).map(h => h.textContent)")
    )
    assert "set_flag" in left_code and "set_flag" not in right_code
    assert "pipe_barrier" in right_code


def test_offline_page_of_two_runs_side_by_side(
    browser: Any, runs: dict[str, Path], tmp_path: Path, capsys: Any
) -> None:
    page_file = tmp_path / "cmp.html"
    argv = ["html", str(runs["fine"]), "--compare", str(runs["barrier"]),
            "--noise", str(runs["fine2"]), "-o", str(page_file)]  # fmt: skip
    assert main(argv) == 0
    assert str(page_file) in capsys.readouterr().out
    page, fetched = open_offline(browser, page_file, ".air-cmp-row")
    counts = page.locator(".air-cmp-counts").inner_text()
    total = int(counts.split(" passes aligned")[0])
    assert page.locator(".air-cmp-row").count() == total
    assert "of them noise (2 identical compiles of fine)" in counts
    _read_as_a_person(page, _expected(runs, noise=True))

    # differences only: every listed pair differs or runs on one side
    page.get_by_label("differences only").check()
    kinds = {
        k.split()[1]
        for k in page.locator(".air-cmp-row").evaluate_all("rs => rs.map(r => r.className)")
    }
    assert kinds and "air-cmp-same" not in kinds
    page.get_by_label("differences only").uncheck()
    # a pass that made the same IR on both sides: shown once, said so
    page.locator(".air-cmp-row.air-cmp-same").first.click()
    assert "the same IR on both sides" in page.locator(".air-cmp-info .air-change").inner_text()
    # one side only: the other side says it does not run it
    page.locator(".air-cmp-row.air-cmp-only-a").first.click()
    assert page.locator(".air-label-right").inner_text() == "+ barrier: does not run this pass"
    # keys: n steps to the next real difference
    page.locator(".air-cmp-jump", has_text="first real divergence").click()
    before = page.locator(".air-cmp-row.air-current").get_attribute("data-pair")
    page.locator(".air-cmp-info").click()
    page.keyboard.press("n")
    after = page.locator(".air-cmp-row.air-current")
    assert after.get_attribute("data-pair") != before
    assert "air-cmp-real" in (after.get_attribute("class") or "")
    assert fetched == []
    page.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, runs: dict[str, Path]) -> Iterator[Any]:
    cells = ["%load_ext ascend_ir_lab", f"%ir_load {runs['fine']} --name fine",
             f"%ir_load {runs['barrier']} --name barrier", "%ir_diff fine barrier"]  # fmt: skip
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "id": f"c{k}", "metadata": {},
                     "source": src, "outputs": []} for k, src in enumerate(cells)],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                      "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}  # fmt: skip
    with jupyterlab(tmp_path_factory.mktemp("labcmp"), {"cmp.ipynb": nb}) as server:
        yield server


def test_ir_diff_shows_two_runs_side_by_side_in_jupyterlab(
    browser: Any, lab: Any, runs: dict[str, Path]
) -> None:
    base, token = lab
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    page.goto(f"{base}/lab/tree/cmp.ipynb?token={token}")
    cells = page.locator(".jp-Notebook .jp-Cell")
    cells.nth(3).locator(".cm-content").wait_for(timeout=LONG)
    page.get_by_text(re.compile(r"Python 3 \(ipykernel\) \| Idle")).wait_for(timeout=LONG)
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")
    page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
    out = cells.nth(3).locator(".jp-OutputArea-output .air-compare")
    out.locator(".air-cmp-row").first.wait_for(timeout=LONG)
    assert out.locator(".air-title").inner_text() == "fine vs barrier"
    _read_as_a_person(out, _expected(runs, noise=False))
    page.close()
