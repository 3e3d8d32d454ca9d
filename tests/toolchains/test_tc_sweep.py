"""Autotune sweeps with no NPU: every config a cheap record, the one that runs with passes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ascend_ir_lab.cli import main
from ascend_ir_lab.toolchains.common.run import Run

KERNELS = Path(__file__).resolve().parent.parent / "kernels"


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Run], str, str]:
    out = tmp_path_factory.mktemp("sweep") / "runs"
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "ascend_ir_lab.toolchains.ascend.script_capture", "--out", str(out),
         "--", str(KERNELS / "autotuned.py")],
        capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    names = json.loads((out / "collection.json").read_text())["runs"]
    return [Run(out / n) for n in names], done.stdout, done.stderr


def test_the_config_that_runs_holds_the_passes_and_lists_the_sweep(swept) -> None:  # type: ignore[no-untyped-def]
    runs, _, _ = swept
    assert len(runs) == 3
    chosen, *others = runs
    assert chosen.passes_captured and not any(r.passes_captured for r in others)
    sweep = chosen.manifest["extra"]["autotune"]
    assert [c["config"]["BLOCK"] for c in sweep["configs"]] == [256, 512, 1024]
    assert sweep["chosen"] == 0 and sweep["timed"] is False and "none timed" in sweep["note"]
    assert [c["passes_captured"] for c in sweep["configs"]] == [True, False, False]
    assert [Path(c["run"]).name for c in sweep["configs"]] == [r.path.name for r in runs]
    bishengir = [d for d in chosen.timeline.dumps if d.stage == "bishengir"]
    assert len(bishengir) > 20
    assert chosen.stage("bishengir")["log"].endswith(".log.zst")


def test_records_are_cheap_and_keep_what_the_compile_made(swept) -> None:  # type: ignore[no-untyped-def]
    runs, _, _ = swept
    record = runs[1]
    assert record.manifest["kernel"]["constexprs"] == {"BLOCK": 512}
    assert record.stage("adapter")["made_by"] == "triton"
    assert [s["name"] for s in record.stages] == ["ttir", "adapter"]
    (planned,) = record.manifest["extra"]["planned_stages"]
    assert planned["name"] == "bishengir" and "--mlir-print-ir-after-all" not in planned["command"]
    assert record.stage("ttir")["seconds"] > 0 and record.status == "ir-complete-no-binary"
    assert "record only" in record.manifest["status"]["text"]
    assert b"IR Dump" not in record.log("ttir")
    assert [d.stage for d in record.timeline.dumps] == ["ttir", "adapter"]  # the artifacts


def test_the_terminal_gets_progress_and_the_table_never_dumps(swept) -> None:  # type: ignore[no-untyped-def]
    from ascend_ir_lab.toolchains.common.collection import run_row, table_text

    runs, out, err = swept
    assert "script done" in out.splitlines()  # the script's own output
    assert "config 2/3 (record only)" in err and "IR Dump" not in out + err
    table = table_text(run_row(r) for r in runs)
    assert table.splitlines()[0].split() == [
        "kernel",
        "target",
        "status",
        "compile",
        "dumps",
        "size",
        "run",
    ]
    assert "passes (sweep of 3)" in table and table.count("record only") == 2


def test_capture_passes_turns_a_record_into_a_full_run(
    swept, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    runs, _, _ = swept
    record = runs[2]
    assert main(["capture-passes", str(record.path)]) == 0
    again = Run(record.path)
    assert again.passes_captured and again.manifest["kernel"]["constexprs"] == {"BLOCK": 1024}
    assert len([d for d in again.timeline.dumps if d.stage == "bishengir"]) > 20
    assert "passes" in capsys.readouterr().out
    assert again.capture().path == again.path  # already captured: nothing recompiled


def test_capture_passes_never_imports_code_a_run_carries(
    swept, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    import shutil

    runs, _, _ = swept
    hostile = tmp_path / "hostile"
    shutil.copytree(runs[1].path, hostile)
    planted = hostile / "evil.py"
    marker = tmp_path / "ran"
    planted.write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    manifest = json.loads((hostile / "run.json").read_text())
    manifest["extra"]["recompile"]["kernel"] = f"{planted}::scale_add"
    (hostile / "run.json").write_text(json.dumps(manifest))
    assert main(["capture-passes", str(hostile)]) == 2
    assert "inside the Run folder" in capsys.readouterr().err and not marker.exists()


def _record_copy(swept, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    import shutil

    runs, _, _ = swept
    copy = tmp_path / "record"
    shutil.copytree(runs[1].path, copy)
    assert not Run(copy).passes_captured
    return copy


def test_a_record_opened_in_the_terminal_is_captured_with_progress(swept, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import subprocess

    record = _record_copy(swept, tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "ascend_ir_lab", "inspect", str(record)],
        capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "capturing the passes of scale_add" in done.stderr  # progress, on stderr
    assert "IR Dump" not in done.stdout + done.stderr
    again = Run(record)
    assert again.passes_captured and again.manifest["kernel"]["constexprs"] == {"BLOCK": 512}
    assert "bishengir" in done.stdout and len(again.timeline.dumps) > 20


def test_a_record_whose_kernel_file_changed_opens_as_it_is(swept, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import subprocess

    record = _record_copy(swept, tmp_path)
    changed = tmp_path / "autotuned.py"
    changed.write_text((KERNELS / "autotuned.py").read_text() + "\n# edited since\n")
    manifest = json.loads((record / "run.json").read_text())
    manifest["extra"]["recompile"]["kernel"] = f"{changed}::scale_add"
    (record / "run.json").write_text(json.dumps(manifest))
    done = subprocess.run(
        [sys.executable, "-m", "ascend_ir_lab", "show", str(record), "last"],
        capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "opened as it is: its kernel file changed since" in done.stderr
    assert "capture-passes" in done.stderr and not Run(record).passes_captured


def test_a_record_opened_in_a_notebook_is_captured_with_progress(
    swept, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    from ascend_ir_lab.notebook.explorer import RunView

    record = _record_copy(swept, tmp_path)
    view = RunView.load(record)  # a fresh session: the kernel comes from its unchanged file
    shown = capsys.readouterr().out
    assert "scale_add: capturing every pass" in shown  # the progress display
    assert view.run.passes_captured
    assert any(d.stage == "bishengir" for d in view.timeline.dumps)


def test_a_capture_that_fails_keeps_the_record(swept, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import subprocess

    record = _record_copy(swept, tmp_path)
    manifest = json.loads((record / "run.json").read_text())
    manifest["kernel"]["signature"]["x_ptr"] = "*fp99"  # a Run edited by hand: no such type
    (record / "run.json").write_text(json.dumps(manifest))
    before = sorted(p.relative_to(record) for p in record.rglob("*"))
    done = subprocess.run(
        [sys.executable, "-m", "ascend_ir_lab", "inspect", str(record)],
        capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert "capturing its passes failed" in done.stderr and "kept as it was" in done.stderr
    assert sorted(p.relative_to(record) for p in record.rglob("*")) == before
    assert json.loads((record / "run.json").read_text()) == manifest
    assert done.returncode == 0 and "ttir" in done.stdout  # opened as the record it is


def test_the_chosen_config_finishes_in_the_background(swept) -> None:  # type: ignore[no-untyped-def]
    runs, _, err = swept
    assert "config 1/3 (with passes): bishengir-compile goes on in the background" in err
    lines = err.splitlines()
    first = lines.index("ascend-ir-lab: [1] scale_add config 1/3 (with passes) -> Ascend910B3 ...")
    done = [k for k, t in enumerate(lines) if "[1] scale_add" in t and "ir-complete" in t]
    last_record = max(k for k, t in enumerate(lines) if "(record only): ir-complete" in t)
    assert done and done[0] > last_record > first  # joined after the other configs compiled
    assert runs[0].status == "ir-complete-no-binary"
    statuses = [c["status"] for c in runs[0].manifest["extra"]["autotune"]["configs"]]
    assert statuses == ["ir-complete-no-binary"] * 3  # the one finished later is listed too


def _children() -> set[int]:
    """This process's child processes (zombies included: a reaped child is gone)."""
    import os

    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == os.getpid():
            found.add(int(stat.parent.name))
    return found


@pytest.mark.parametrize("stop", [KeyboardInterrupt, SystemExit])
def test_a_sweep_stopped_midway_kills_and_reaps_the_background_compile(
    tmp_path: Path, stop: type[BaseException]
) -> None:
    import importlib.util
    import threading

    import torch

    from ascend_ir_lab.toolchains.ascend.launch import intercept_launches

    events: list[str] = []

    def progress(event: str, info: dict[str, object]) -> None:
        events.append(event)
        if event == "start" and "config 2/3" in str(info.get("sweep")):
            raise stop  # Ctrl-C, or the script exiting, while config 1's bishengir runs

    threads, children = set(threading.enumerate()), _children()
    with pytest.raises(stop), intercept_launches(runs_dir=tmp_path, progress=progress):
        spec = importlib.util.spec_from_file_location("autotuned_stopped", KERNELS / "autotuned.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)  # defined under the capture, as a script defines it
        x, y, out = torch.rand(4096), torch.rand(4096), torch.empty(4096)
        module.scale_add[lambda meta: (4096 // meta["BLOCK"],)](x, y, out, 4096)
    assert "background" in events
    assert set(threading.enumerate()) <= threads  # no thread left copying the log
    assert _children() <= children  # bishengir-compile killed and reaped
    run = Run(tmp_path / "scale_add")
    assert run.status == "interrupted" and run.stage("bishengir")["status"] == "interrupted"
    assert run.stage("bishengir")["log"].endswith(".log.zst")  # what it printed, kept
