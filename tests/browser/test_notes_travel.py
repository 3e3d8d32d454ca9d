"""Notes that travel: a note made in JupyterLab on a saved notebook with no kernel is saved in
the .ipynb (1-based line, the pass named, the static fallback redrawn) and reaches the bug
report through `ascend-ir-lab report RUN --notebook NB.ipynb`."""

from __future__ import annotations

import json
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.cli import main
from ascend_ir_lab.export.files import payload_of
from ascend_ir_lab.export.html import static_html
from ascend_ir_lab.export.packing import pack_payload, unpack_payload
from ascend_ir_lab.export.payload import MIME_TYPE
from tests.browser.lab_server import jupyterlab

pytestmark = pytest.mark.browser

NOTE = "dot <here> & why"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, dot_run: Any) -> Iterator[tuple[str, str, Path]]:
    root = tmp_path_factory.mktemp("labtravel")
    payload = payload_of(dot_run, title=f"{dot_run.name} (Ascend910B3)")
    output = {"output_type": "display_data", "metadata": {},
              "data": {MIME_TYPE: pack_payload(payload), "text/html": static_html(payload),
                       "text/plain": "<IR timeline>"}}  # fmt: skip
    cell = {"cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {},
            "source": "dot_tile[(1,)](a, b, c, N=16)", "outputs": [output]}  # fmt: skip
    nb = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    with jupyterlab(root, {"travel.ipynb": nb}, kernels=False) as (base, token):
        yield base, token, root / "work" / "travel.ipynb"


def test_note_in_a_saved_notebook_reaches_the_report(
    browser: Any, lab: tuple[str, str, Path], dot_run: Any, tmp_path: Path, capsys: Any
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
    pos = out.locator(".air-pos").inner_text()
    dump = int(pos.split()[0][1:])
    name = out.locator(".air-passname").inner_text()
    row = out.locator(".air-ir .air-row").nth(4)
    line = int(row.locator(".air-gut").inner_text())
    row.locator(".air-gut").click()
    out.locator(".air-note-input").fill(NOTE)
    out.locator("button:has-text('Save note')").click()
    where = out.locator(".air-note .air-note-where").inner_text()
    assert where == f"#{dump} {name}, line {line}"  # the list names the pass and the line
    page.click(".jp-Notebook .jp-Cell .jp-InputArea-prompt")
    page.keyboard.press("Control+s")
    data: dict[str, Any] = {}
    for _ in range(80):
        try:  # JupyterLab may be writing the file right now
            data = json.loads(nb_path.read_text())["cells"][0]["outputs"][0]["data"]
        except json.JSONDecodeError:
            data = {}
        if data.get(MIME_TYPE, {}).get("notes"):
            break
        time.sleep(0.25)
    note = unpack_payload(data[MIME_TYPE])["notes"][0]
    assert (note["dump"], note["pass"], note["ir_line"], note["text"]) == (dump, name, line, NOTE)
    # the static fallback (nbviewer, GitHub) was redrawn with the note, escaped
    html = data["text/html"]
    html = "".join(html) if isinstance(html, list) else html  # nbformat splits it into lines
    assert f"pass #{dump} {name}, line {line}: dot &lt;here&gt; &amp; why" in html
    page.close()
    # and the report takes it from the notebook
    rc = main(["report", str(dot_run.path), "--notebook", str(nb_path), "-o", str(tmp_path / "r")])
    assert rc == 0 and "1 note from" in capsys.readouterr().out
    md = (tmp_path / "r.md").read_text()
    assert f"- pass #{dump} {name}, line {line}: dot &lt;here&gt; &amp; why" in md  # escaped
    stored = json.loads(zipfile.ZipFile(tmp_path / "r.zip").read("notes.json"))
    assert stored["notes"][0]["ir_line"] == line
    # a notebook without this Run's timeline says so
    other = tmp_path / "other.ipynb"
    other.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    assert (
        main(["report", str(dot_run.path), "--notebook", str(other), "-o", str(tmp_path / "x")])
        == 2
    )
    assert "no timeline output of" in capsys.readouterr().err
