"""MLIR highlighting in a real JupyterLab: .mlir/.ttir files open coloured from the shared
grammar, and a `%%mlir_opt` cell is MLIR while its first line is the magic, python otherwise,
also after the kernel has started (JupyterLab then resets every cell's language)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.lab_server import jupyterlab

pytestmark = pytest.mark.browser

DATA = Path(__file__).resolve().parents[1] / "data" / "ascend"
LONG = 180_000  # ms: a cold kernel on a busy two-core machine

MAGIC = "%%mlir_opt bishengir-opt --pass-pipeline 'builtin.module(cse)'"
MLIR_CELL = f"""{MAGIC}
func.func @f(%a: i32) -> i32 {{
  %0 = arith.addi %a, %a : i32 loc(#loc1)
  return %0 : i32
}}
#loc1 = loc("f.py":3:0)"""
PY_CELL = 'import os\nx = os.path.join("a", "b")  # a comment'

# Every span of the editor's visible text: what it says, its classes, the colour it is drawn in.
SPANS = """root => [...root.querySelectorAll('.cm-content .cm-line span')].map(s => ({
  text: s.textContent, cls: s.className, color: getComputedStyle(s).color}))"""
# The colour a theme variable resolves to, as getComputedStyle writes it.
THEME_COLOUR = """name => { const p = document.createElement('span');
  p.style.color = `var(${name})`; document.body.appendChild(p);
  const c = getComputedStyle(p).color; p.remove(); return c; }"""


def notebook() -> dict[str, Any]:
    cells = [{"cell_type": "code", "execution_count": None, "id": f"c{k}", "metadata": {},
              "source": src, "outputs": []} for k, src in enumerate([MLIR_CELL, PY_CELL])]  # fmt: skip
    meta = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    return {"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    files = {
        "vadd.mlir": (DATA / "vadd.ttadapter").read_text(encoding="utf-8"),
        "vadd.ttir": (DATA / "vadd.ttir").read_text(encoding="utf-8"),
    }
    root = tmp_path_factory.mktemp("labmlir")
    with jupyterlab(root, {"magic.ipynb": notebook()}, files=files) as server:
        yield server


def spans(editor: Any) -> list[dict[str, str]]:
    return list(editor.evaluate(SPANS))


def span(found: list[dict[str, str]], text: str) -> dict[str, str]:
    hits = [s for s in found if s["text"] == text]
    assert hits, f"no span {text!r} among {[s['text'] for s in found][:60]}"
    return hits[0]


def colour(page: Any, var: str) -> str:
    return str(page.evaluate(THEME_COLOUR, f"--jp-mirror-editor-{var}-color"))


def assert_mlir(page: Any, found: list[dict[str, str]], op: str, ssa: str, attr: str) -> None:
    """op, SSA value and attribute alias carry the grammar's classes and the theme's colours."""
    for text, rule, var in [(op, "op", "builtin"), (ssa, "ssa", "variable-2"), (attr, "attr-alias", "atom")]:  # fmt: skip
        s = span(found, text)
        assert f"mlir-{rule}" in s["cls"].split(), (text, s)
        assert s["color"] == colour(page, var), (text, s)


def open_file(page: Any, base: str, token: str, name: str) -> Any:
    page.goto(f"{base}/lab/tree/{name}?token={token}")
    editor = page.locator(".jp-FileEditor .cm-editor")
    editor.locator(".cm-content .mlir-ssa").first.wait_for(timeout=60_000)
    return editor


def test_mlir_files_open_highlighted(browser: Any, lab: tuple[str, str]) -> None:
    base, token = lab
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    editor = open_file(page, base, token, "vadd.mlir")
    found = spans(editor)
    s = span(found, "arith.muli")
    assert "mlir-op" in s["cls"].split() and s["color"] == colour(page, "builtin")
    s = span(found, "%arg9")
    assert "mlir-ssa" in s["cls"].split() and s["color"] == colour(page, "variable-2")
    s = span(found, "@vadd")
    assert "mlir-symbol" in s["cls"].split() and s["color"] == colour(page, "def")
    s = span(found, "attributes")
    assert "mlir-keyword" in s["cls"].split() and s["color"] == colour(page, "keyword")
    assert "mlir-builtin-type" in span(found, "memref")["cls"].split()
    # the status bar names the language
    expect(page.locator(".jp-StatusBar-Widget").get_by_text("MLIR", exact=True)).to_be_visible()
    # .ttir is registered too, and its #loc aliases are attributes
    editor = open_file(page, base, token, "vadd.ttir")
    assert_mlir(page, spans(editor), "tt.get_program_id", "%0", "#loc1")
    assert "mlir-attr-alias" in span(spans(editor), "#loc")["cls"].split()
    page.close()


def test_mlir_opt_cell_follows_its_first_line(browser: Any, lab: tuple[str, str]) -> None:
    base, token = lab
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{base}/lab/tree/magic.ipynb?token={token}")
    cells = page.locator(".jp-Notebook .jp-Cell")
    mlir, py = cells.nth(0).locator(".cm-editor"), cells.nth(1).locator(".cm-editor")
    py.locator(".cm-content").wait_for(timeout=LONG)
    # The kernel's language_info resets every cell's mimeType: MLIR must survive it.
    page.get_by_text(re.compile(r"Python 3 \(ipykernel\) \| Idle")).wait_for(timeout=LONG)
    mlir.locator(".mlir-ssa").first.wait_for()
    found = spans(mlir)
    assert_mlir(page, found, "arith.addi", "%0", "#loc1")
    assert "mlir-magic" in span(found, MAGIC)["cls"].split()
    assert span(found, MAGIC)["color"] == colour(page, "meta")
    # the python cell is python: keyword colour, no MLIR classes
    expect(py.locator("span", has_text=re.compile("^import$"))).to_have_count(1)
    found = spans(py)
    assert span(found, "import")["color"] == colour(page, "keyword")
    assert span(found, '"a"')["color"] == colour(page, "string")
    assert not [s for s in found if "mlir-" in s["cls"]]

    # Edit the magic away: the cell goes back to python.
    mlir.locator(".cm-line").first.click()
    page.keyboard.press("Control+Home")
    page.keyboard.press("Delete")
    page.keyboard.press("Delete")
    expect(mlir.locator("[class*='mlir-']")).to_have_count(0)
    expect(mlir.locator(".cm-line").first).to_have_text(MAGIC[2:])
    found = spans(mlir)
    assert not [s for s in found if s["text"] == "arith.addi"]  # python splits it at the dot
    assert span(found, "return")["color"] == colour(page, "keyword")
    assert span(found, "addi")["color"] == colour(page, "property")

    # Type it back: MLIR again.
    page.keyboard.type("%%")
    mlir.locator(".mlir-op").first.wait_for()
    assert_mlir(page, spans(mlir), "arith.addi", "%0", "#loc1")
    expect(py.locator("[class*='mlir-']")).to_have_count(0)
    page.close()
