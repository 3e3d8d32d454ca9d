"""Run folders: written incrementally in the documented format, reopened with clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.toolchains.common.run import FORMAT, Run, RunWriter, status_record


def test_writer_starts_interrupted_and_finishes(tmp_path: Path) -> None:
    writer = RunWriter.create(
        "demo", {"toolchain": "ascend", "target": "Ascend910B3"}, tmp_path / "demo"
    )
    first = json.loads((tmp_path / "demo" / "run.json").read_text())
    assert first["status"]["code"] == "interrupted" and first["format"] == FORMAT
    assert list(first)[:4] == ["format", "name", "created", "toolchain"]
    assert writer.log_path("ttir").name == "1-ttir.log"
    writer.add_stage(
        {
            "name": "ttir",
            "log": "stages/1-ttir.log",
            "artifact": None,
            "command": ["x"],
            "returncode": 0,
            "seconds": 0.1,
        }
    )
    assert writer.log_path("adapter").name == "2-adapter.log"
    run = writer.finish("ir-complete-no-binary")
    assert isinstance(run, Run) and run.status == "ir-complete-no-binary"
    assert run.stage("ttir")["command"] == ["x"]
    with pytest.raises(InputError, match="no stage 'llir'.*ttir"):
        run.stage("llir")


def test_default_location_never_overwrites(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASCEND_IR_LAB_RUNS", str(tmp_path / "runs"))
    a = RunWriter.create("my kernel/1", {})
    b = RunWriter.create("my kernel/1", {})
    assert a.path.name == "my_kernel_1" and b.path.name == "my_kernel_1-2"


def test_explicit_folder_replaces_a_run_but_not_other_data(tmp_path: Path) -> None:
    RunWriter.create("a", {}, tmp_path / "r").finish("ok")
    RunWriter.create("b", {}, tmp_path / "r")
    assert Run(tmp_path / "r").name == "b"
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "precious.txt").write_text("keep")
    with pytest.raises(InputError, match="not a Run folder"):
        RunWriter.create("c", {}, tmp_path / "data")
    assert (tmp_path / "data" / "precious.txt").read_text() == "keep"


def test_bad_run_folders_say_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a Run folder"):
        Run(tmp_path)
    (tmp_path / "run.json").write_text("{broken")
    with pytest.raises(InputError, match="run.json:1: broken manifest"):
        Run(tmp_path)
    (tmp_path / "run.json").write_text('{"format": "other"}')
    with pytest.raises(InputError, match="expected 'ascend-ir-lab/run@1'"):
        Run(tmp_path)


def test_status_codes_are_the_documented_ones() -> None:
    assert status_record("ir-complete-no-binary")["text"].startswith("IR complete, no binary")
    with pytest.raises(ValueError, match="unknown status code 'crashed'"):
        status_record("crashed")


def test_fresh_folders_number_on_and_never_reuse_a_run(tmp_path: Path) -> None:
    """A suite's many Runs of one kernel: each a new folder, numbered on from the last one
    (one try each), a name taken by someone else skipped, an emptied folder started over."""
    import os
    import shutil

    from ascend_ir_lab.toolchains.common.launch import fresh_folder

    made = [fresh_folder("add_kernel", tmp_path).name for _ in range(3)]
    assert made == ["add_kernel", "add_kernel-2", "add_kernel-3"]
    (tmp_path / "add_kernel-4").mkdir()  # another process's Run
    assert fresh_folder("add_kernel", tmp_path).name == "add_kernel-5"
    shutil.rmtree(tmp_path / "add_kernel-2")  # a gap left behind stays free: no Run is reused
    assert fresh_folder("add_kernel", tmp_path).name == "add_kernel-6"
    assert os.listdir(tmp_path / "add_kernel-6") == []
    for child in tmp_path.iterdir():
        shutil.rmtree(child)
    assert fresh_folder("add_kernel", tmp_path).name == "add_kernel"
    assert fresh_folder("other", tmp_path).name == "other"
