"""`%ir_report` on a Run from someone else: its default output name never leaves the folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("IPython")

from tests.runs.hostile import BASE  # noqa: E402


@pytest.mark.parametrize(
    ("name", "safe"),
    [("../../escaped", "escaped"), ("/tmp/ascend-ir-lab-escaped/x", "tmp_ascend-ir-lab-escaped_x")],
)
def test_default_report_name_comes_from_the_safe_name(  # type: ignore[no-untyped-def]
    shell, tmp_path: Path, name: str, safe: str
) -> None:
    run = tmp_path / "deep" / "er" / "run"
    shutil.copytree(BASE, run)
    manifest = json.loads((run / "run.json").read_text())
    manifest["name"] = name
    (run / "run.json").write_text(json.dumps(manifest))
    shell.run_line_magic("ir_load", str(run))
    out = shell.run_line_magic("ir_report", json.dumps(name))
    assert out is not None and "Bundle" in out.data
    made = sorted(p.name for p in run.parent.glob("*-report.*"))
    assert made == [f"{safe}-report.md", f"{safe}-report.zip"]
    assert not (tmp_path / "escaped-report.zip").exists()
    assert not Path("/tmp/ascend-ir-lab-escaped").exists()
