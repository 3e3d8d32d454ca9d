"""Lines mapped right everywhere: a kernel below other code in its cell, and a kernel imported
from another file, each compiled from a real cell; the payload, notes.json and the report number
lines from line 1 of the cell or file, 1-based, as the CLI does."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from nb_helpers import needs_ascend, run_cell, shown

from ascend_ir_lab.cli import main
from ascend_ir_lab.notebook.explorer import RunView

pytestmark = [pytest.mark.ascend, needs_ascend]

KERNELS = Path(__file__).resolve().parents[1] / "kernels"

DOT_CELL = """import torch, triton, triton.language as tl

N = 16
a = torch.randn(N, N, dtype=torch.float16)


def host_side(n):
    return n * 2


@triton.jit
def cell_dot(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    rows = tl.arange(0, N)
    x = tl.load(a_ptr + rows[:, None] * N + rows[None, :])

    y = tl.load(b_ptr + rows[:, None] * N + rows[None, :])
    z = tl.dot(x, y)
    tl.store(c_ptr + rows[:, None] * N + rows[None, :], z)

b = torch.randn(N, N, dtype=torch.float16)
c = torch.empty(N, N, dtype=torch.float32)
cell_dot[(1,)](a, b, c, N=N)
"""


def line_of(text: str, needle: str) -> int:
    """1-based number of the first line of `text` holding `needle`."""
    return next(k + 1 for k, ln in enumerate(text.splitlines()) if needle in ln)


def mapped(payload: dict[str, Any], py: int, stage: str) -> set[str]:
    """IR texts of `stage`'s Dumps located at Python line `py`."""
    names = [s["name"] for s in payload["stages"]]
    out = set()
    for d in payload["dumps"]:
        if names[d["stage"]] == stage:
            snap = payload["snapshots"][d["snap"]]
            out |= {payload["lines"][snap[i]] for i, ln in payload["srcmap"][d["snap"]] if ln == py}
    return out


def check_numbering(payload: dict[str, Any], def_needle: str, dot_needle: str) -> int:
    """The payload's source is numbered from line 1: the def, the dot and blank lines agree."""
    text = payload["source"]["text"]
    lines = text.splitlines()
    assert payload["source"]["first_line"] == line_of(text, def_needle) > 1
    dot = line_of(text, dot_needle)
    assert any("tt.dot" in t for t in mapped(payload, dot, "ttir"))
    assert any("linalg.matmul" in t or "mmad" in t for t in mapped(payload, dot, "bishengir"))
    used = {ln for m in payload["srcmap"] for _, ln in m}
    assert used and all(lines[ln - 1].strip() for ln in used)  # no op on a blank line
    assert all(ln >= payload["source"]["first_line"] for ln in used)  # none above the def
    return dot


def test_kernel_below_other_code_in_its_cell(shell: InteractiveShell, runs_dir: Path) -> None:
    result, io = run_cell(shell, f"%%triton_npu --name cell-dot --runs-dir {runs_dir}\n{DOT_CELL}")
    view = result.result
    assert isinstance(view, RunView), shown(io)
    payload = view.payload()
    assert payload["source"]["text"].strip() == DOT_CELL.strip()  # the whole cell
    dot = check_numbering(payload, "def cell_dot(", "z = tl.dot(x, y)")
    assert dot == 17


def test_kernel_imported_from_another_file(
    shell: InteractiveShell, runs_dir: Path, tmp_path: Path, capsys: Any
) -> None:
    spec = importlib.util.spec_from_file_location("_dot_at_40_nb", KERNELS / "dot_at_40.py")
    assert spec and spec.loader
    k = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(k)
    cell = ("from dot_at_40 import dot_tile\n"
            "a = torch.randn(16, 16, dtype=torch.float16)\n"
            "b = torch.randn(16, 16, dtype=torch.float16)\n"
            "c = torch.empty(16, 16, dtype=torch.float32)\n"
            "dot_tile[(1,)](a, b, c, N=16)\n")  # fmt: skip
    result, io = run_cell(shell, f"%%triton_npu --name file-dot --runs-dir {runs_dir}\n{cell}")
    view = result.result
    assert isinstance(view, RunView), shown(io)
    payload = view.payload()
    assert payload["source"]["file"] == "dot_at_40.py"
    assert payload["source"]["text"] == (KERNELS / "dot_at_40.py").read_text()
    assert check_numbering(payload, "def dot_tile(", "tl.dot(a, b)") == k.DOT_LINE
    assert payload["source"]["first_line"] == k.DEF_LINE
    # the CLI's `source` command reads the same line
    assert main(["source", str(view.run.path), str(k.DOT_LINE), "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["changes"] and cli["file"] == "dot_at_40.py"

    # a note made in the page (the widget's notes) lands in the Run's notes.json, 1-based
    widget = view.widget()
    last = len(payload["dumps"]) - 1
    label = payload["dumps"][last]["arg"] or payload["dumps"][last]["pass"]
    widget.notes = [{"id": "n1", "dump": last, "pass": label, "ir_line": 7, "text": "here",
                     "created": ""}]  # fmt: skip
    stored = json.loads((view.run.path / "notes.json").read_text())
    assert stored["format"] == "ascend-ir-lab/notes@2"
    assert [(n["dump"], n["pass"], n["ir_line"]) for n in stored["notes"]] == [(last, label, 7)]
    # and reaches the report, which names the pass and the same line
    report = view.report(tmp_path / "bug")
    assert f"- pass #{last} {label}, line 7: here" in report.markdown
