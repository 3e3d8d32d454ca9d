"""The "capture passes" button, as a person uses it. In a real JupyterLab with a kernel: an
autotuned kernel compiled under %%triton_npu keeps its other config as a cheap record; the
button compiles it again with every pass, shows progress, then the viewer shows its passes.
On the offline page of a cheap record (no kernel) it says what command to run instead."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.export.files import save_html
from tests.browser.conftest import KERNELS, open_offline
from tests.browser.lab_server import jupyterlab

pytestmark = pytest.mark.browser
LONG = 240_000  # ms: compiles on a busy two-core machine
AUTOTUNED_CELL = """
import torch, triton, triton.language as tl

@triton.autotune(configs=[triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 1024})], key=["n"])
@triton.jit
def add_tuned(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)

tx, ty, tout = torch.randn(4096), torch.randn(4096), torch.zeros(4096)
add_tuned[lambda meta: (triton.cdiv(4096, meta["BLOCK"]),)](tx, ty, tout, 4096)
"""


def _triton_ascend() -> None:
    from ascend_ir_lab.toolchains.common.tools import triton_ascend_available

    if not triton_ascend_available():
        pytest.skip("triton-ascend is not importable: pip install -e '.[ascend]'")


def test_offline_page_says_what_to_run(browser: Any, tmp_path: Path) -> None:
    _triton_ascend()
    from ascend_ir_lab.toolchains.ascend.compile import compile_kernel
    from tests.kernels import vadd

    c = vadd.COMPILE
    run = compile_kernel(f"{KERNELS / 'vadd.py'}::{c['kernel']}", signature=c["signature"],
                         constexprs=c["constexprs"], out=tmp_path / "run", dumps=False)  # fmt: skip
    page, fetched = open_offline(browser, save_html(run, tmp_path / "cheap.html"))
    bar = page.locator(".air-capture")
    assert "This Run is a cheap record: no per-pass dumps." in bar.inner_text()
    bar.get_by_role("button", name="capture passes").click()
    assert page.locator(".air-capture-status").inner_text() == (
        f"No kernel behind this page: in a terminal, run  ascend-ir-lab capture-passes "
        f"{run.path}  (or Run(path).capture() in Python), then open the Run again."
    )
    assert fetched == []
    page.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Path]]:
    _triton_ascend()
    root = tmp_path_factory.mktemp("labcapture")
    runs = root / "runs"
    cells = ["%load_ext ascend_ir_lab", f"%%triton_npu --runs-dir {runs}\n{AUTOTUNED_CELL}"]
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "id": f"c{k}", "metadata": {},
                     "source": src, "outputs": []} for k, src in enumerate(cells)],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                      "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}  # fmt: skip
    with jupyterlab(root, {"tuned.ipynb": nb}) as (base, token):
        yield base, token, runs


def test_capture_passes_in_jupyterlab(browser: Any, lab: tuple[str, str, Path]) -> None:
    base, token, runs = lab
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    page.goto(f"{base}/lab/tree/tuned.ipynb?token={token}")
    cells = page.locator(".jp-Notebook .jp-Cell")
    cells.nth(1).locator(".cm-content").wait_for(timeout=LONG)
    page.get_by_text(re.compile(r"Python 3 \(ipykernel\) \| Idle")).wait_for(timeout=LONG)
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")
    page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
    out = cells.nth(1).locator(".jp-OutputArea-output .air-root")
    button = out.locator(".air-capture-btn[data-run='add_tuned-2']")
    button.wait_for(timeout=LONG)
    record = runs / "add_tuned-2" / "run.json"
    assert json.loads(record.read_text())["extra"]["passes_captured"] is False
    assert "autotune sweep: 2 configs; passes of #0" in out.locator(".air-capture").inner_text()
    assert out.locator(".air-title").inner_text().startswith("add_tuned ")
    button.click()
    status = out.locator(".air-capture-status")
    status.filter(has_text="capturing the passes of config #1").wait_for(timeout=10_000)
    # the viewer then shows the captured config's Run, bishengir's passes included
    shown = "add_tuned (Ascend910B3) · autotune config #1"
    cells.nth(1).locator(".air-title", has_text=shown).wait_for(timeout=LONG)
    root = cells.nth(1).locator(".air-root").filter(has=page.locator(".air-title", has_text=shown))
    root.locator(".air-pl-stage[data-stage='2']").wait_for(state="attached", timeout=LONG)
    assert (
        root.locator(".air-pl-stage[data-stage='2'] .air-pl-stagename").inner_text() == "bishengir"
    )
    assert json.loads(record.read_text())["extra"].get("passes_captured", True) is True
    # saved, the output holds the captured Run: a reopened notebook with no kernel shows it
    cells.nth(1).locator(".jp-InputArea-prompt").click()  # focus the notebook, not the viewer
    page.keyboard.press("Control+s")
    saved = _saved_output(runs.parent / "work" / "tuned.ipynb", shown)
    html = saved["text/html"]  # nbformat may keep it as a list of lines
    assert shown in ("".join(html) if isinstance(html, list) else html)
    page.close()
    _reopened_without_a_kernel(browser, runs.parent / "reopen", saved, shown)


def _saved_output(nb_path: Path, title: str) -> dict[str, Any]:
    """The data of the viewer's output in the notebook on disk, once it holds the Run `title`."""
    from ascend_ir_lab.export.packing import unpack_payload
    from ascend_ir_lab.export.payload import MIME_TYPE

    data: dict[str, Any] = {}
    for _ in range(120):
        outputs = json.loads(nb_path.read_text())["cells"][1]["outputs"]
        data = next((o["data"] for o in outputs if MIME_TYPE in o.get("data", {})), {})
        if data and title in unpack_payload(data[MIME_TYPE])["title"]:
            return data
        time.sleep(0.25)
    raise AssertionError(f"the saved output never held {title!r}: {str(data)[:300]}")


def _reopened_without_a_kernel(browser: Any, root: Path, data: dict[str, Any], title: str) -> None:
    cell = {"cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {},
            "source": "%%triton_npu", "outputs": [{"output_type": "display_data", "data": data,
                                                  "metadata": {}}]}  # fmt: skip
    nb = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    root.mkdir(exist_ok=True)
    with jupyterlab(root, {"saved.ipynb": nb}, kernels=False) as (base, token):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{base}/lab/tree/saved.ipynb?token={token}")
        page.wait_for_selector(".jp-Dialog", timeout=60_000)
        page.click(".jp-Dialog-footer button:has-text('No Kernel')")
        out = page.locator(".jp-OutputArea-output .air-root")
        out.locator(".air-title", has_text=title).wait_for(timeout=60_000)
        names = out.locator(".air-pl-stage .air-pl-stagename")
        names.last.wait_for(timeout=60_000)
        assert "bishengir" in names.all_inner_texts()  # the captured passes, not the record
        page.close()
