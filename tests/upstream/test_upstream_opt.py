"""`run_opt` and the `opt` command with the real bishengir-opt (the Ascend venv)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from upstream_skips import DATA, needs_bishengir_opt

from ascend_ir_lab.cli import main
from ascend_ir_lab.dumps import open_timeline
from ascend_ir_lab.errors import CompilerError, InputError, ToolNotFoundError
from ascend_ir_lab.toolchains.common.opt import pipeline_arg, run_opt

INPUT = DATA / "opt" / "softmax_linalg.mlir"
PIPELINE = (
    "builtin.module(convert-arith-to-hfusion,convert-math-to-hfusion,"
    "convert-linalg-to-hfusion,canonicalize,cse,convert-hfusion-to-hivm,canonicalize)"
)
FAILING = "builtin.module(func.func(convert-elementwise-to-linalg),convert-linalg-to-hfusion)"


@needs_bishengir_opt
def test_pipeline_into_a_run_with_dumps_and_timings(tmp_path: Path) -> None:
    run = run_opt("bishengir-opt", INPUT, PIPELINE, out=tmp_path / "run")
    assert run.status == "ok" and run.manifest["toolchain"] == "opt"
    timeline = open_timeline(run.path)
    assert [d.arg for d in timeline.dumps] == [
        "convert-arith-to-hfusion",
        "convert-math-to-hfusion",
        "convert-linalg-to-hfusion",
        "canonicalize",
        "cse",
        "convert-hfusion-to-hivm",
        "canonicalize",
    ]
    assert all(d.phase == "after" for d in timeline.dumps)
    assert "hivm" in timeline.text(timeline.dumps[-1])
    timings = run.stage("bishengir-opt")["timings"]
    assert {"convert-hfusion-to-hivm", "canonicalize", "canonicalize#2"} <= set(timings)
    assert run.file("artifacts/output.mlir").read_text().strip()
    assert "--mlir-timing" in run.stage("bishengir-opt")["command"]


@needs_bishengir_opt
def test_failing_pass_raises_and_keeps_the_failed_dump(tmp_path: Path) -> None:
    with pytest.raises(CompilerError) as info:
        run_opt("bishengir-opt", INPUT, FAILING, out=tmp_path / "run")
    assert info.value.returncode == 1 and "failed to legalize" in str(info.value)
    timeline = open_timeline(tmp_path / "run")
    assert timeline.dumps[-1].phase == "failed"
    assert (
        json.loads((tmp_path / "run" / "run.json").read_text())["status"]["code"] == "compile-error"
    )


@needs_bishengir_opt
def test_check_false_returns_the_failed_run(tmp_path: Path) -> None:
    run = run_opt("bishengir-opt", INPUT, FAILING, out=tmp_path / "run", check=False)
    assert run.status == "compile-error" and run.stage("bishengir-opt")["returncode"] == 1


@needs_bishengir_opt
def test_opt_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "opt",
            "bishengir-opt",
            str(INPUT),
            "--pass-pipeline",
            PIPELINE,
            "-o",
            str(tmp_path / "run"),
            "--json",
        ]
    )
    assert code == 0
    assert json.loads(capsys.readouterr().out)["status"]["code"] == "ok"
    assert (
        main(
            [
                "opt",
                "bishengir-opt",
                str(INPUT),
                "--pass-pipeline",
                FAILING,
                "-o",
                str(tmp_path / "bad"),
            ]
        )
        == 2
    )


def test_missing_tool_and_input(tmp_path: Path) -> None:
    with pytest.raises(ToolNotFoundError, match="pip install"):
        run_opt("no-such-opt", INPUT, "canonicalize", out=tmp_path / "a")
    with pytest.raises(InputError, match="no such MLIR file"):
        run_opt("/bin/true", tmp_path / "missing.mlir", "canonicalize", out=tmp_path / "b")


def test_pipeline_arg() -> None:
    assert pipeline_arg("canonicalize,cse") == "builtin.module(canonicalize,cse)"
    assert pipeline_arg("builtin.module(cse)") == "builtin.module(cse)"
    with pytest.raises(InputError):
        pipeline_arg("  ")
