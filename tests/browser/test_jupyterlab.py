"""A real JupyterLab on loopback opens a saved notebook with no kernel; the output still steps."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from ascend_ir_lab.export.html import static_html
from ascend_ir_lab.export.payload import MIME_TYPE
from tests.browser.lab_server import jupyterlab

pytestmark = pytest.mark.browser


def saved_notebook(payload: dict[str, Any]) -> dict[str, Any]:
    output = {
        "output_type": "display_data",
        "data": {
            MIME_TYPE: payload,
            "text/html": static_html(payload),
            "text/plain": "<IR timeline>",
        },
        "metadata": {},
    }
    cell = {"cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {},
            "source": "%ir_load tests/data/ascend/vadd.adapter.log", "outputs": [output]}  # fmt: skip
    return {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, real_payload: Any) -> Iterator[tuple[str, str]]:
    nb = saved_notebook(real_payload("vadd.adapter.log", "vadd adapter"))
    with jupyterlab(tmp_path_factory.mktemp("lab"), {"saved.ipynb": nb}, kernels=False) as server:
        yield server


def kernels(base: str, token: str) -> list[Any]:
    with urllib.request.urlopen(f"{base}/api/kernels?token={token}", timeout=5) as r:
        return list(json.load(r))


def test_saved_notebook_steps_without_a_kernel(browser: Any, lab: tuple[str, str]) -> None:
    base, token = lab
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{base}/lab/tree/saved.ipynb?token={token}")
    # No kernelspec is allowed, so JupyterLab asks which kernel to use: decline.
    page.wait_for_selector(".jp-Dialog", timeout=60_000)
    page.click(".jp-Dialog-footer button:has-text('No Kernel')")
    page.wait_for_selector(".jp-Dialog", state="detached")
    page.wait_for_selector(".jp-OutputArea-output .air-passname", timeout=60_000)
    out = page.locator(".jp-OutputArea-output .air-root")
    assert out.locator(".air-title").inner_text() == "vadd adapter"
    assert out.locator(".air-pos").inner_text() == "#0 (1/14)"
    out.locator(".air-passinfo").click()
    page.keyboard.press("j")
    assert out.locator(".air-pos").inner_text() == "#1 (2/14)"
    assert out.locator(".air-passname").inner_text() == "triton-to-annotation"
    page.keyboard.press("n")
    assert out.locator(".air-pos").inner_text() == "#11 (12/14)"
    page.keyboard.press("d")
    assert out.locator(".air-view.air-on").inner_text() == "Unified diff"
    assert out.locator(".air-ir .air-row.air-add").count() > 0
    page.keyboard.press("j")
    assert out.locator(".air-passname").inner_text() == "canonicalize"
    # the notebook's own j/k/d shortcuts did not fire: still one cell, still there
    assert page.locator(".jp-Notebook .jp-Cell").count() == 1
    assert kernels(base, token) == []
    page.close()
