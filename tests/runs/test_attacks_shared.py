"""Attacks through folders others can write into: a Triton cache shared on a machine
(`TRITON_CACHE_DIR=/tmp/...`), a Run's verdict.json, a cache folder's metadata. Each hostile
input is made here; one bad file never blocks, fills memory or spoils the whole answer."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from ascend_ir_lab.cli import main
from tests.conftest import Hung
from tests.runs.hostile import BASE

HOST = {"npu_model": None, "versions": {}}


def _sparse(path: Path, size: int = 20 << 30) -> None:
    with path.open("wb") as f:
        f.truncate(size)


@pytest.fixture
def shared_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache anyone may write into, with one good kernel and the files a stranger left."""
    root = tmp_path / "cache"
    good = root / "AAAAgood"
    good.mkdir(parents=True)
    (good / "add_kernel.ttir").write_text("module {\n  hivm.hir.vadd\n}\n")
    fifo = root / "BBBBfifo"
    fifo.mkdir()
    (fifo / "kernel.ttir").write_text("module {}\n")
    os.mkfifo(fifo / "kernel.ttadapter")  # a reader that opens it waits for a writer forever
    os.mkfifo(fifo / "kernel.json")
    deep = root / "CCCCdeep"
    deep.mkdir()
    (deep / "kernel.ttir").write_text("module {}\n")
    (deep / "kernel.json").write_text("[" * 100_000)  # json.loads: RecursionError
    holes = root / "DDDDholes"
    holes.mkdir()
    (holes / "kernel.ttir").write_text("module {}\n")
    _sparse(holes / "kernel.json")
    _sparse(holes / "kernel.ttadapter")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(root))
    monkeypatch.setenv("TRITON_DUMP_DIR", str(tmp_path / "no-dump"))
    return root


def test_a_shared_cache_with_a_fifo_a_deep_json_and_holes_lists_and_searches(
    shared_cache: Path, capsys: pytest.CaptureFixture[str], deadline: None
) -> None:
    try:
        assert main(["cache", "list"]) == 0
        listed = capsys.readouterr().out
        assert main(["cache", "search", "hivm.hir.vadd"]) == 0
        found = capsys.readouterr().out
    except Hung:
        pytest.fail("a FIFO in a shared cache blocked the listing or the search")
    for key in ("AAAAgood", "BBBBfifo", "CCCCdeep", "DDDDholes"):
        assert key in listed, listed  # one stranger's folder spoils nothing of the rest
    assert "add_kernel" in listed
    assert found.startswith("AAAAgood") and "hivm.hir.vadd" in found
    assert len(found.splitlines()) == 1


def test_a_verdict_json_of_20_gb_of_holes_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], deadline: None
) -> None:
    run = tmp_path / "run"
    shutil.copytree(BASE, run)
    _sparse(run / "verdict.json")
    try:
        assert main(["report", str(run), "-o", str(tmp_path / "bug")]) == 0
    except Hung:
        pytest.fail("the report read a sparse verdict.json")
    assert "too large" not in capsys.readouterr().err
    (run / "verdict.json").unlink()
    os.mkfifo(run / "verdict.json")
    try:
        assert main(["report", str(run), "-o", str(tmp_path / "bug2")]) == 0
    except Hung:
        pytest.fail("the report waited on a verdict.json that is a FIFO")
    (run / "verdict.json").unlink()
    (run / "verdict.json").write_text(json.dumps({"verdict": "sync", "text": "seen"}))
    assert main(["report", str(run), "-o", str(tmp_path / "bug3")]) == 0
    assert "seen" in (tmp_path / "bug3.md").read_text()  # a real verdict is still read


# Input shaped to make a reader's regex retry: each ran for minutes before (the deadline
# guards against a hang, it measures nothing).


def test_a_log_of_one_line_without_newline_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], deadline: None
) -> None:
    log = tmp_path / "one-line.log"  # a 4 MB word after the IR began: `\w+Warning: ` tried
    log.write_text("// -----// IR Dump After P (p) //----- //\nmodule {\n" + "x" * (4 << 20))
    try:
        assert main(["inspect", str(log)]) == 0
    except Hung:
        pytest.fail("a line without newline hung the reader")
    out = capsys.readouterr()
    assert "1 dumps" in out.out and "truncated" in out.err


def test_a_prefix_of_100_000_blanks_before_each_line_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], deadline: None
) -> None:
    lead = "x" + " " * 100_000
    log = tmp_path / "padded.log"
    log.write_text(f"{lead}// -----// IR Dump After P (p) //----- //\n{lead}module {{\n{lead}}}\n")
    try:
        assert main(["inspect", str(log)]) == 0
    except Hung:
        pytest.fail("a long blank prefix hung the prefix finder")
    assert "1 dumps" in capsys.readouterr().out


def test_locations_stripped_from_a_line_indented_40_000_deep(deadline: None) -> None:
    from ascend_ir_lab.analysis.loc_strip import strip_loc

    indent = " \t" * 20_000  # an op nested 20 000 regions deep, printed with its location
    try:
        assert strip_loc(f'{indent}%0 = arith.addf %a, %b : f32 loc("k.py":3:1)') == (
            f"{indent}%0 = arith.addf %a, %b : f32"
        )
        assert strip_loc(f"{indent}x = myloc(1) @loc(2)") == f"{indent}x = myloc(1) @loc(2)"
    except Hung:
        pytest.fail("strip_loc retried every blank of the indent")


def test_a_note_on_a_line_no_ir_has_keeps_its_pass_and_text(tmp_path: Path) -> None:
    from ascend_ir_lab.dumps import open_timeline
    from ascend_ir_lab.export import build_payload

    run = tmp_path / "run"
    shutil.copytree(BASE, run)
    hostile = [
        {"id": "far", "dump": 0, "text": "far away", "ir_line": 10**12},
        {"id": "old", "dump": 1, "text": "legacy", "line": 10**9},
        {"id": "ok", "dump": 1, "text": "here", "ir_line": 3},
    ]  # the viewer refuses a payload whose note names a line past 1e9: the page went blank
    (run / "notes.json").write_text(json.dumps(hostile))
    notes = build_payload(open_timeline(run), notes=hostile)["notes"]
    assert [(n["id"], n["ir_line"], n["text"]) for n in notes] == [
        ("far", None, "far away"), ("old", None, "legacy"), ("ok", 3, "here"),
    ]  # fmt: skip
    assert main(["html", str(run), "-o", str(tmp_path / "p.html")]) == 0


def test_a_manifest_naming_a_key_twice_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Python's json keeps the last "log", other readers the first: the Run shown would be
    # another than the one they show
    run = tmp_path / "run"
    shutil.copytree(BASE, run)
    text = (run / "run.json").read_text()
    log = '"log": "stages/1-bishengir-opt.log"'
    assert text.count(log) == 1
    (run / "run.json").write_text(text.replace(log, f'{log}, "log": "../secret.log"'))
    before = (run / "run.json").read_bytes()
    assert main(["inspect", str(run)]) != 0
    err = capsys.readouterr().err
    assert 'the key "log" is given twice' in err and len(err.strip().splitlines()) == 1
    assert (run / "run.json").read_bytes() == before
