"""The live widget in a real JupyterLab with a real kernel: run the notebook, step with keys, read
the pass and the diff, add a note that reaches the kernel, and see a note set by the kernel."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.dumps import open_timeline
from ascend_ir_lab.export import build_payload
from tests.browser.lab_server import jupyterlab

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]

LOG = ROOT / "tests" / "data" / "ascend" / "vadd.bishengir.log.gz"
NOTE = "set_flag <here> & why"
LONG = 180_000  # ms: a cold kernel on a busy two-core machine

CELLS = [
    "%load_ext ascend_ir_lab",
    f"%ir_load {LOG}",
    "view = _",
    'import json\nprint("NOTES", json.dumps([[n["dump"], n["ir_line"], n["text"]] for n in view.notes()]))',
]


def notebook() -> dict[str, Any]:
    cells = [{"cell_type": "code", "execution_count": None, "id": f"c{k}", "metadata": {},
              "source": src, "outputs": []} for k, src in enumerate(CELLS)]  # fmt: skip
    meta = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    return {"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    with jupyterlab(tmp_path_factory.mktemp("lablive"), {"live.ipynb": notebook()}) as server:
        yield server


def expected() -> dict[str, Any]:
    payload = build_payload(open_timeline(LOG))
    dumps = payload["dumps"]
    label = [d["arg"] or d["pass"] for d in dumps]
    changed = [d for d in dumps[2:] if d["changed"] or d["phase"] == "failed"]
    # the first changed pass after #1 that has a previous state to diff against
    presses = next(k + 1 for k, d in enumerate(changed) if d["prev"] >= 0)
    nxt = changed[presses - 1]["i"]
    snap = payload["snapshots"][dumps[nxt]["snap"]]
    prev = (
        payload["snapshots"][dumps[dumps[nxt]["prev"]]["snap"]] if dumps[nxt]["prev"] >= 0 else []
    )
    added = {payload["lines"][i] for i in set(snap) - set(prev)}
    return {
        "n": len(dumps),
        "label": label,
        "next_changed": nxt,
        "presses": presses,
        "added": added,
    }


def test_live_widget_steps_and_notes_reach_the_kernel(browser: Any, lab: tuple[str, str]) -> None:
    base, token = lab
    want = expected()
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    page.goto(f"{base}/lab/tree/live.ipynb?token={token}")
    cells = page.locator(".jp-Notebook .jp-Cell")
    cells.nth(3).locator(".cm-content").wait_for(timeout=LONG)
    page.get_by_text(re.compile(r"Python 3 \(ipykernel\) \| Idle")).wait_for(timeout=LONG)
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")
    page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
    printed = cells.nth(3).locator(".jp-OutputArea-output")
    printed.filter(has_text="NOTES").wait_for(timeout=LONG)
    assert "NOTES []" in printed.inner_text()

    out = cells.nth(1).locator(".jp-OutputArea-output .air-root")
    out.locator(".air-passname").wait_for(timeout=LONG)
    n = want["n"]
    assert out.locator(".air-pos").inner_text() == f"#0 (1/{n})"
    assert out.locator(".air-passname").inner_text() == want["label"][0]

    out.locator(".air-passinfo").click()
    page.keyboard.press("j")
    assert out.locator(".air-pos").inner_text() == f"#1 (2/{n})"
    assert out.locator(".air-passname").inner_text() == want["label"][1]
    for _ in range(want["presses"]):
        page.keyboard.press("n")
    k = want["next_changed"]
    assert out.locator(".air-pos").inner_text() == f"#{k} ({k + 1}/{n})"
    assert out.locator(".air-passname").inner_text() == want["label"][k]
    assert out.locator(".air-change").inner_text().startswith("+")

    page.keyboard.press("d")
    assert out.locator(".air-view.air-on").inner_text() == "Unified diff"
    added = out.locator(".air-ir .air-row.air-add")
    added.first.wait_for()
    texts = [added.nth(i).locator(".air-code").inner_text() for i in range(min(5, added.count()))]
    assert texts and all(t in want["added"] for t in texts), texts

    page.keyboard.press("?")
    help_box = out.locator(".air-help")
    help_box.wait_for()
    assert "next / previous changed pass" in help_box.inner_text()
    page.keyboard.press("Escape")
    help_box.wait_for(state="detached")

    # a note on the first added line, made in the page, is seen by the kernel
    added.first.locator(".air-gut").click()
    out.locator(".air-note-input").fill(NOTE)
    out.locator("button:has-text('Save note')").click()
    assert out.locator(".air-note-text").inner_text() == NOTE
    line = int(added.first.locator(".air-gut").inner_text())  # 1-based, as the gutter says
    cells.nth(3).locator(".jp-InputArea-editor").click()
    page.keyboard.press("Control+Enter")
    printed.filter(has_text=NOTE).wait_for(timeout=LONG)
    notes = json.loads(printed.inner_text().split("NOTES", 1)[1])
    assert notes == [[k, line, NOTE]]
    # and a note set from the kernel shows in the page, next to the one made there
    code = (f"w = view.widget()\nw.notes = [*w.notes, "
            f"{{'id': 'k1', 'dump': {k}, 'line': None, 'text': 'from the kernel', 'created': ''}}]")  # fmt: skip
    cells.nth(3).locator(".jp-InputArea-editor").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(code)
    page.keyboard.press("Control+Enter")
    out.locator(".air-note-text", has_text="from the kernel").wait_for(timeout=LONG)
    assert out.locator(".air-note-text").all_inner_texts() == [NOTE, "from the kernel"]
    assert out.locator(".air-pos").inner_text() == f"#{k} ({k + 1}/{n})"  # the place is kept
    # the notebook's own shortcuts did not fire while the viewer had the keys: still 4 cells
    assert cells.count() == 4
    page.close()
