"""The notebooks under notebooks/, executed in a real kernel with nbclient (as CI does)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
from nb_helpers import needs_ascend

ROOT = Path(__file__).resolve().parents[2]
MIME = "application/vnd.ascend-ir-lab.timeline+json"
WIDGET = "application/vnd.jupyter.widget-view+json"

pytestmark = [pytest.mark.slow, pytest.mark.ascend, needs_ascend]


def _runner() -> Any:
    spec = importlib.util.spec_from_file_location(
        "run_notebooks", ROOT / "scripts" / "run_notebooks.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _execute(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> list[list[dict[str, Any]]]:
    monkeypatch.setenv("ASCEND_IR_LAB_RUNS", str(tmp_path / "runs"))
    runner = _runner()
    nb, seconds = runner.execute(ROOT / "notebooks" / name, timeout=300)
    assert runner.errors(nb) == []
    print(f"{name}: {seconds:.1f} s")
    return [list(c.get("outputs", [])) for c in nb.cells if c.cell_type == "code"]


def _text(outputs: list[dict[str, Any]]) -> str:
    parts = []
    for out in outputs:
        parts.append(out.get("text", ""))
        parts.append(out.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


def test_quickstart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cells = _execute("01-quickstart.ipynb", tmp_path, monkeypatch)
    compile_cell = cells[1]
    result = next(o for o in compile_cell if o["output_type"] == "execute_result")
    assert {MIME, WIDGET, "text/html", "text/plain"} <= set(result["data"])
    assert result["data"][MIME]["title"] == "add_kernel (Ascend910B3)"
    shown = _text(compile_cell)
    assert "ran in Triton's CPU interpreter" in shown and "IR complete, no binary" in shown
    assert "hivm-graph-sync-solver" in _text(cells[3])  # the set_flag lifecycle
    assert "Traceback" not in "\n".join(_text(c) for c in cells)


def test_sync_debugging(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cells = _execute("02-sync-debugging.ipynb", tmp_path, monkeypatch)
    everything = "\n".join(_text(c) for c in cells)
    assert "fine runs hivm-graph-sync-solver where barrier runs hivm-inject-sync x4" in everything
    assert "barrier: hivm.hir.set_flag never appears" in everything
    assert "+3     hivm-graph-sync-solver (func.func @matmul_mix_aiv)" in everything
    assert "pipe_barrier[<PIPE_ALL>]" in everything
    assert "Traceback" not in everything


def test_autotuned_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cells = _execute("04-autotuned-kernel.ipynb", tmp_path, monkeypatch)
    sweep = _text(cells[1])
    assert "config 3/3 (record only)" in sweep and "config 1/3 (with passes)" in sweep
    assert "3 kernel compiles; 2 cheap records" in sweep and "IR Dump" not in sweep
    listed = _text(cells[2])
    assert "config 0 stands in for the best" in listed and listed.count("record only") == 2
    assert "captured: False" in _text(cells[3]) and "captured: True" in _text(cells[3])
    assert "passes aligned" in _text(cells[4])
    assert "Traceback" not in "\n".join(_text(c) for c in cells)
