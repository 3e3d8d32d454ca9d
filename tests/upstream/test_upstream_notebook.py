"""notebooks/03-upstream-triton.ipynb executed with nbclient in a kernel of this venv (.venv-gpu).

The notebook names the kernel `ascend-ir-lab-gpu` (scripts/setup --all registers it for
JupyterLab); here a kernel spec of that name pointing at this interpreter is written into a
temporary JUPYTER_PATH, so the test needs nothing installed beyond .venv-gpu itself.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from upstream_skips import ROOT, needs_upstream

NOTEBOOK = ROOT / "notebooks" / "03-upstream-triton.ipynb"
MIME = "application/vnd.ascend-ir-lab.timeline+json"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.gpu,
    needs_upstream,
    pytest.mark.skipif(
        importlib.util.find_spec("nbclient") is None
        or importlib.util.find_spec("ipykernel") is None,
        reason="nbclient/ipykernel not installed in this venv: scripts/setup --all installs them "
        "into .venv-gpu",
    ),
]


def _kernel_spec(root: Path) -> None:
    spec = root / "kernels" / "ascend-ir-lab-gpu"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": "Python (.venv-gpu)", "language": "python"})
    )


def _text(outputs: list[dict[str, Any]]) -> str:
    parts = []
    for out in outputs:
        parts.append(out.get("text", ""))
        parts.append(out.get("data", {}).get("text/plain", ""))
        parts.append(out.get("evalue", ""))
    return "\n".join(parts)


def test_upstream_notebook_runs_in_the_gpu_venv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import nbformat
    from nbclient import NotebookClient

    _kernel_spec(tmp_path / "jupyter")
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("ASCEND_IR_LAB_RUNS", str(tmp_path / "runs"))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert nb.metadata["kernelspec"]["name"] == "ascend-ir-lab-gpu"
    client = NotebookClient(
        nb, timeout=300, kernel_name="ascend-ir-lab-gpu",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )  # fmt: skip
    start = time.perf_counter()
    client.execute()
    print(f"03-upstream-triton.ipynb: {time.perf_counter() - start:.1f} s")
    cells = [list(c.get("outputs", [])) for c in nb.cells if c.cell_type == "code"]
    everything = "\n".join(_text(c) for c in cells)
    assert not [o for c in cells for o in c if o["output_type"] == "error"], everything
    compiled = next(o for o in cells[1] if o["output_type"] == "execute_result")
    assert compiled["data"][MIME]["title"] == "softmax (cuda:90)"
    assert "ttir ✓" in everything and "ptx ✓" in everything
    assert "launch of softmax[(128,)] skipped; cross-compiled for cuda:90" in everything
    for stage in ("ttir", "ttgir", "llir", "ptx"):
        assert f"\n{stage} " in everything  # the timing table has a row per stage
    assert "ttg.convert_layout" in _text(cells[4])  # what tritongpu-coalesce did
    assert ".target sm_90a" in _text(cells[5])
    assert "softmax vs softmax-sm80:" in everything and "first divergence" in everything
    assert (tmp_path / "runs" / "softmax" / "run.json").is_file()
