"""Bug-report bundle and `html`/`report` CLI on real matmul Runs (fine and barrier-all)."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.cli import main
from ascend_ir_lab.export.files import payload_of, save_html
from ascend_ir_lab.export.packing import unpack_payload
from ascend_ir_lab.export.report_md import branch_style
from ascend_ir_lab.safe_text import markdown_text
from ascend_ir_lab.share.report import make_report

HOST = {"versions": {"cann": None}, "npu_model": None}


@pytest.fixture
def fine(matmul_runs: tuple[Any, Any], tmp_path: Path) -> Any:
    """A copy of the fine Run, with notes (one names a pass the Run does not have)."""
    from ascend_ir_lab.toolchains.common.run import Run

    folder = tmp_path / "matmul"
    shutil.copytree(matmul_runs[0].path, folder)
    notes = [{"id": "n1", "dump": 5, "line": 3, "text": "set_flag <b>moves</b>", "created": ""},
             {"id": "n2", "dump": 99999, "line": None, "text": "stale", "created": ""}]  # fmt: skip
    (folder / "notes.json").write_text(json.dumps({"notes": notes}))
    return Run(folder)


def test_bundle_holds_what_the_guide_asks_for(
    fine: Any, matmul_runs: tuple[Any, Any], tmp_path: Path
) -> None:
    barrier = matmul_runs[1]
    report = make_report(
        fine, which="hivm-graph-sync-solver", against=barrier, out=tmp_path / "bug", host=HOST
    )
    assert report.zip_path == tmp_path / "bug.zip" and report.markdown_path == tmp_path / "bug.md"
    names = set(zipfile.ZipFile(report.zip_path).namelist())
    assert {"README.md", "repro/kernel.py", "repro/pass/before.mlir", "repro/pass/repro.sh",
            "logs/stages/3-bishengir.log", "ir/matmul.ttadapter", "environment.json", "notes.json",
            "barrier-all/comparison.json", "barrier-all/logs/stages/3-bishengir.log",
            "timeline.html"} <= names  # fmt: skip
    zf = zipfile.ZipFile(report.zip_path)
    kernel = zf.read("repro/kernel.py").decode()
    assert "def matmul(" in kernel and '"BLOCK_M": 32' in kernel and '"a_ptr": "*fp16"' in kernel
    assert zf.read("logs/stages/3-bishengir.log") == fine.log("bishengir")
    assert "bishengir-opt before.mlir" in zf.read("repro/pass/repro.sh").decode()
    rep = report.facts["pass_reproducer"]
    assert rep["pass"] == "hivm-graph-sync-solver" and rep["matches_recorded"] is True
    env = report.facts["environment"]
    assert env["branch_style"] == "release/3.2.2 (.ttadapter)" and env["triton-ascend"]
    cmp = report.facts["barrier_all"]
    assert cmp["fine"]["sync_ops"]["hivm.hir.set_flag"] > 0
    assert cmp["barrier_all"]["sync_ops"].get("hivm.hir.set_flag", 0) == 0
    assert (
        cmp["barrier_all"]["sync_ops"]["hivm.hir.pipe_barrier"]
        > cmp["fine"]["sync_ops"]["hivm.hir.pipe_barrier"]
    )
    assert any(
        s.startswith("hivm-graph-sync-solver → hivm-inject-sync") for s in cmp["substituted"]
    )
    md = report.markdown
    assert md == zf.read("README.md").decode() == report.markdown_path.read_text()
    # the note of notes.json's earlier 0-based form (line 3) is line 4, 1-based, with its pass
    label = fine.timeline.dumps[5].label
    notes = json.loads(zf.read("notes.json"))
    assert notes["format"] == "ascend-ir-lab/notes@2"
    assert [(n["dump"], n["pass"], n["ir_line"]) for n in notes["notes"]] == [(5, label, 4)]
    for part in ("## Environment", "| branch_style | release/3.2.2 (.ttadapter) |", "## Minimal reproducer",
                 "--pass-pipeline=builtin.module(func.func(hivm-graph-sync-solver))",
                 "## Does barrier-all change the outcome?", "| hivm.hir.set_flag |",
                 f"pass #5 {markdown_text(label)}, line 4: set_flag &lt;b&gt;moves&lt;/b&gt;",
                 "gitcode.com/Ascend/AscendNPU-IR"):  # fmt: skip
        assert part in md, part
    page = zf.read("timeline.html").decode()
    assert '"packed":"gzip+base64"' in page and "set_flag \\u003cb\\u003emoves" in page


def test_verdict_recorded_on_an_npu_host_is_the_outcome(
    fine: Any, matmul_runs: tuple[Any, Any], tmp_path: Path
) -> None:
    (fine.path / "verdict.json").write_text(
        json.dumps({"verdict": "sync", "text": "barrier-all fixes it"})
    )
    report = make_report(fine, against=matmul_runs[1], out=tmp_path / "v.zip", host=HOST)
    assert report.facts["barrier_all"]["outcome"] == "NPU check: barrier-all fixes it"
    assert (
        report.facts["pass_reproducer"] is None
        and "repro/pass/before.mlir" not in report.facts["files"]
    )
    assert "No barrier-all Run" not in report.markdown


def test_notes_json_travels_into_the_page_and_stale_notes_warn(fine: Any, tmp_path: Path) -> None:
    payload = payload_of(fine)
    assert [n["id"] for n in payload["notes"]] == ["n1"]
    assert any("note n2 dropped" in w for w in payload["warnings"])
    page = save_html(fine, tmp_path / "p" / "matmul.html")
    blob = page.read_text().split('id="air-payload">')[1].split("</script>")[0]
    assert unpack_payload(json.loads(blob))["notes"][0]["text"] == "set_flag <b>moves</b>"
    with pytest.raises(TypeError, match="expected a path, a Run or a Timeline, got int: 3"):
        save_html(3, tmp_path / "x.html")


def test_cli_html_and_report(
    fine: Any, matmul_runs: tuple[Any, Any], tmp_path: Path, capsys: Any
) -> None:
    assert main(["html", str(fine.path), "-o", str(tmp_path / "m.html")]) == 0
    assert "m.html" in capsys.readouterr().out and (tmp_path / "m.html").stat().st_size > 0
    assert (
        main(
            [
                "html",
                str(fine.path / "stages" / "3-bishengir.log.zst"),
                "-o",
                str(tmp_path / "l.html"),
                "--plain",
            ]
        )
        == 0
    )
    assert '"packed"' not in (tmp_path / "l.html").read_text()
    rc = main(
        [
            "report",
            str(fine.path),
            "--pass",
            "last",
            "--against",
            str(matmul_runs[1].path),
            "-o",
            str(tmp_path / "r"),
        ]
    )
    out = capsys.readouterr().out
    assert rc == 0 and "r.zip" in out and "r.md (paste into the issue)" in out
    assert main(["report", str(tmp_path / "nothing"), "-o", str(tmp_path / "x")]) == 2
    assert "not a Run folder (no run.json)" in capsys.readouterr().err


def test_branch_style_from_artifact_names() -> None:
    assert branch_style(["k.ttir", "k.ttadapter"]) == "release/3.2.2 (.ttadapter)"
    assert branch_style(["k.ttir", "k.bcmlir", "k.o"]) == "master (.bcmlir)"
    assert branch_style(["k.ttir"]).startswith("unknown")
