"""`ascend-ir-lab compile | repro | cache` through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ascend_ir_lab.cli import main
from ascend_ir_lab.toolchains.common.run import Run

from .conftest import kernel_spec, needs_ascend

pytestmark = [pytest.mark.ascend, needs_ascend]


def test_compile_cli_writes_a_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    info = kernel_spec("vadd")
    argv = [
        "compile",
        info["spec"],
        "--signature",
        info["signature"],
        "--constexpr",
        "BLOCK=1024",
        "--barrier-all",
        "--name",
        "vb",
        "-o",
        str(tmp_path / "vb"),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "IR complete, no binary (hivmc ships with CANN)" in out and "bishengir" in out
    run = Run(tmp_path / "vb")
    assert run.name == "vb" and run.manifest["extra"]["barrier_all"] is True


def test_compile_cli_error_exit_code_and_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    info = kernel_spec("vadd")
    argv = [
        "compile",
        info["spec"],
        "--signature",
        info["signature"],
        "--constexpr",
        "BLOCK=1024",
        "--bishengir-flag=--bogus",
        "-o",
        str(tmp_path / "b"),
    ]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "stage bishengir: compiler exited with code 1" in err and "--bogus" in err
    assert main(["compile", "nope.py::k", "--signature", "a=i32"]) == 2
    assert "nope.py: no such kernel file" in capsys.readouterr().err


def test_repro_cli_json(fine_runs: dict[str, Run], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["repro", str(fine_runs["vadd"].path), "hivm-graph-sync-solver#2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["match"] is True and result["arg"] == "hivm-graph-sync-solver"


def test_cache_cli(
    tmp_path: Path,
    fine_runs: dict[str, Run],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import shutil

    entry = tmp_path / "cache" / "0123abcd"
    entry.mkdir(parents=True)
    shutil.copy(fine_runs["vadd"].path / "artifacts" / "vadd.ttir", entry / "vadd.ttir")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TRITON_DUMP_DIR", str(tmp_path / "nodump"))
    assert main(["cache", "list", "--json"]) == 0
    (item,) = json.loads(capsys.readouterr().out)
    assert item["name"] == "vadd" and item["stages"] == ["ttir"]
    assert main(["cache", "show", "0123"]) == 0
    assert "vadd.ttir" in capsys.readouterr().out
    assert main(["cache", "open", "vadd"]) == 0
    out = capsys.readouterr().out
    assert "0123abcd" in out and "ttir" in out
    assert main(["cache", "show", "zzz"]) == 2
