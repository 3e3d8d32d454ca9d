"""Notes made in the mimerenderer of a saved notebook, with no kernel, are saved into the .ipynb."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.export.html import static_html
from ascend_ir_lab.export.packing import is_packed, pack_payload, unpack_payload
from ascend_ir_lab.export.payload import MIME_TYPE
from tests.browser.lab_server import jupyterlab

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def lab(
    tmp_path_factory: pytest.TempPathFactory, real_payload: Any
) -> Iterator[tuple[str, str, Path]]:
    root = tmp_path_factory.mktemp("labnotes")
    payload = real_payload("vadd.adapter.log", "vadd adapter")
    output = {"output_type": "display_data", "metadata": {},
              "data": {MIME_TYPE: pack_payload(payload), "text/html": static_html(payload), "text/plain": "<IR timeline>"}}  # fmt: skip
    cell = {"cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {}, "source": "%ir_load vadd", "outputs": [output]}  # fmt: skip
    nb = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    with jupyterlab(root, {"notes.ipynb": nb}, kernels=False) as (base, token):
        yield base, token, root / "work" / "notes.ipynb"


def test_note_made_without_a_kernel_is_saved_in_the_notebook(
    browser: Any, lab: tuple[str, str, Path]
) -> None:
    base, token, nb_path = lab
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{base}/lab/tree/{nb_path.name}?token={token}")
    page.wait_for_selector(".jp-Dialog", timeout=60_000)
    page.click(".jp-Dialog-footer button:has-text('No Kernel')")
    page.wait_for_selector(".jp-Dialog", state="detached")
    out = page.locator(".jp-OutputArea-output .air-root")
    out.locator(".air-passname").wait_for(timeout=60_000)
    out.locator(".air-passinfo").click()
    page.keyboard.press("j")
    assert out.locator(".air-pos").inner_text() == "#1 (2/14)"
    out.locator(".air-ir .air-row .air-gut").nth(2).click()
    page.fill(".air-note-input", "kept <b>after save</b>")
    page.click("text=Save note")
    assert out.locator(".air-note-text").inner_text() == "kept <b>after save</b>"
    assert out.locator(".air-pos").inner_text() == "#1 (2/14)"  # the place is kept
    page.click(".jp-Notebook .jp-Cell .jp-InputArea-prompt")  # focus the notebook, not the viewer
    page.keyboard.press("Control+s")
    for _ in range(60):
        data = json.loads(nb_path.read_text())["cells"][0]["outputs"][0]["data"][MIME_TYPE]
        if data.get("notes"):
            break
        time.sleep(0.25)
    assert is_packed(data)
    note = unpack_payload(data)["notes"][0]
    # the third line, as its gutter numbers it (1-based)
    assert (note["dump"], note["ir_line"], note["text"]) == (1, 3, "kept <b>after save</b>")
    page.close()
