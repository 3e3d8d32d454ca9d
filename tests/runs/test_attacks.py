"""Attacks through the files a command writes and the files a Run names: outputs that are
links or FIFOs, hard links to someone else's files, sparse logs, a kernel file someone else
placed, control characters in `--json`, zip-hostile file dates, packed-payload bombs.
Each hostile input is made here; each must give one clear line and change nothing of yours."""

from __future__ import annotations

import base64
import gzip
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ascend_ir_lab.cli import main
from ascend_ir_lab.dumps import open_timeline
from ascend_ir_lab.dumps.builder import read_bytes
from ascend_ir_lab.errors import InputError
from ascend_ir_lab.export import packing
from ascend_ir_lab.export.files import save_html
from ascend_ir_lab.export.notes import notebook_notes, write_notes
from ascend_ir_lab.share.report import make_report
from ascend_ir_lab.toolchains.ascend.sweep import not_yours
from tests.conftest import Hung
from tests.runs.hostile import BASE, LOG, SECRET, make_secret
from tests.toolchains.conftest import needs_ascend

HOST = {"npu_model": None, "versions": {}}
ROOT = os.getuid() == 0
STRANGER = 65534  # the uid of `nobody`: someone else, for the tests that run as root


def _run(root: Path, name: str = "run") -> Path:
    run = root / name
    shutil.copytree(BASE, run)
    return run


def _error(capsys: pytest.CaptureFixture[str], command: str) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if ": error: " in line]
    assert len(lines) == 1 and lines[0].startswith(f"ascend-ir-lab {command}: error: "), err
    return lines[0]


def _zip(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def test_an_output_that_is_a_link_is_refused_and_its_target_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _run(tmp_path)
    mine = tmp_path / "bashrc"
    mine.write_text("export PATH=/usr/bin\n")
    (tmp_path / "page.html").symlink_to(mine)
    assert main(["html", str(run), "-o", str(tmp_path / "page.html")]) == 2
    assert "a symbolic link; it is not written through" in _error(capsys, "html")
    (tmp_path / "bug.md").symlink_to(mine)
    assert main(["report", str(run), "-o", str(tmp_path / "bug")]) == 2
    assert "bug.md: a symbolic link" in _error(capsys, "report")
    assert mine.read_text() == "export PATH=/usr/bin\n"
    assert (tmp_path / "page.html").is_symlink() and not (tmp_path / "bug.zip").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_an_output_that_is_a_fifo_or_a_hard_link_never_blocks_or_writes_through(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], deadline: None
) -> None:
    run = _run(tmp_path)
    os.mkfifo(tmp_path / "page.html")
    try:
        code = main(["html", str(run), "-o", str(tmp_path / "page.html")])
    except Hung:
        pytest.fail("html -o FIFO blocked")
    assert code == 2 and "not a regular file" in _error(capsys, "html")
    mine = tmp_path / "mine.txt"
    mine.write_text("precious")
    os.link(mine, tmp_path / "linked.html")  # the name is replaced, the other name kept
    assert main(["html", str(run), "-o", str(tmp_path / "linked.html")]) == 0
    assert mine.read_text() == "precious"
    assert (tmp_path / "linked.html").read_text().startswith("<!DOCTYPE html>")


def test_notes_are_never_written_through_a_link_in_someone_elses_run(tmp_path: Path) -> None:
    run = _run(tmp_path)
    mine = tmp_path / "mine.json"
    mine.write_text("mine")
    (run / "notes.json").symlink_to(mine)
    (run / "notes.json.tmp").symlink_to(mine)  # where notes were once written aside
    write_notes(run, [{"id": "n1", "dump": 0, "text": "hi"}], "t")
    assert mine.read_text() == "mine"
    assert not (run / "notes.json").is_symlink()
    assert json.loads((run / "notes.json").read_text())["notes"][0]["text"] == "hi"


def _cheap_record(root: Path, kernel: Path) -> Path:
    """A cheap record naming `kernel` as its kernel file, its source.py the same text."""
    run = _run(root, "cheap")
    (run / "source.py").write_text(kernel.read_text())
    m = json.loads((run / "run.json").read_text())
    m["kernel"] = {"name": "k", "source": "source.py", "signature": {"x": "*fp32"}}
    m["extra"].update(passes_captured=False,
                      recompile={"kernel": f"{kernel}::k", "target": "Ascend910B3"})  # fmt: skip
    (run / "run.json").write_text(json.dumps(m))
    return run


def _planted(folder: Path, marker: Path) -> Path:
    kernel = folder / "kernel.py"
    kernel.write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    return kernel


@needs_ascend
def test_a_cheap_record_never_imports_a_kernel_file_others_could_have_placed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "RAN"
    shared = tmp_path / "shared"  # as /tmp is: anyone may write into it
    shared.mkdir()
    shared.chmod(0o1777)
    run = _cheap_record(tmp_path / "a", _planted(shared, marker))
    assert main(["inspect", str(run)]) == 0
    err = capsys.readouterr().err
    assert not marker.exists(), "a Run made the reader run a file someone could have placed"
    assert "not imported on the Run's word" in err and "a folder others may write into" in err
    assert main(["capture-passes", str(run)]) == 2
    assert "is not imported" in _error(capsys, "capture-passes") and not marker.exists()
    mine = tmp_path / "mine"  # the same file in a folder of the user's own is imported
    mine.mkdir()
    assert not_yours(_planted(mine, marker)) is None
    kernel = _planted(mine, marker)
    kernel.chmod(0o666)
    assert "writable by others" in str(not_yours(kernel))
    if ROOT:
        kernel.chmod(0o644)
        os.chown(kernel, STRANGER, STRANGER)
        assert "owned by someone else" in str(not_yours(kernel))


@needs_ascend
def test_the_users_own_unchanged_kernel_file_is_still_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "RAN"
    mine = tmp_path / "mine"
    mine.mkdir()
    run = _cheap_record(tmp_path / "a", _planted(mine, marker))
    main(["inspect", str(run)])
    capsys.readouterr()
    assert marker.read_text() == "ran"  # the check above is not one that refuses everything


def test_json_output_keeps_control_and_bidi_characters_exactly(tmp_path: Path) -> None:
    log = tmp_path / "c1.log"
    names = ["Foo\x9b", "Bar\u202e", "Baz\x7f\u2028"]
    log.write_text("".join(
        f"// -----// IR Dump After {n} (p{k}) //----- //\nmodule {{\n  %{k} = \"x{n}\"()\n}}\n\n"
        for k, n in enumerate(names)
    ))  # fmt: skip
    for command in (["inspect", str(log), "--json"], ["search", str(log), "x", "--json"]):
        done = subprocess.run(
            [sys.executable, "-m", "ascend_ir_lab", *command],
            capture_output=True, text=True, check=True, timeout=120,
        )  # fmt: skip
        data = json.loads(done.stdout)  # a C1 CSI once ate the quote closing its string
        for raw in ("\x9b", "\u202e", "\x7f", "\u2028", "\x1b"):
            assert raw not in done.stdout
        passes = [d["pass"] for d in data.get("dumps") or data["changes"]]
        assert passes == names[: len(passes)] and passes


def _sparse(path: Path, size: int = 50 << 30) -> None:
    path.unlink(missing_ok=True)
    with path.open("wb") as f:
        f.truncate(size)


def test_a_50_gb_sparse_log_is_refused_without_reading_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], deadline: None
) -> None:
    _sparse(tmp_path / "huge.log")
    try:
        assert main(["inspect", str(tmp_path / "huge.log")]) == 2
        assert "a sparse file (53687091200 bytes" in _error(capsys, "inspect")
        run = _run(tmp_path)
        _sparse(run / LOG)
        assert main(["report", str(run), "-o", str(tmp_path / "bug")]) == 0
    except Hung:
        pytest.fail("a sparse log was read")
    assert any("a sparse file" in w for w in open_timeline(run).warnings)
    zipped = _zip(tmp_path / "bug.zip")
    assert f"logs/{LOG}" not in zipped and "ir/output.mlir" in zipped
    assert "a sparse file" in zipped["README.md"].decode()


def test_a_file_swapped_for_a_fifo_after_its_check_does_not_block(
    tmp_path: Path, deadline: None
) -> None:
    os.mkfifo(tmp_path / "x.log")
    try:
        with pytest.raises(InputError, match="not a regular file"):
            read_bytes(tmp_path / "x.log")  # the open after the check, on what is there now
    except Hung:
        pytest.fail("reading a FIFO blocked")


@pytest.mark.skipif(not ROOT, reason="a Run of someone else needs a second user (root chowns)")
def test_a_hard_link_to_someone_elses_file_is_neither_read_nor_zipped(tmp_path: Path) -> None:
    secret = make_secret(tmp_path)
    run = _run(tmp_path)
    (run / LOG).unlink()
    os.link(secret / "passwd", run / LOG)
    os.link(secret / "ssh" / "id_rsa", run / "artifacts" / "key.mlir")
    os.chown(run, STRANGER, STRANGER)  # the Run is someone else's, the linked files yours
    tl = open_timeline(run)
    assert all(SECRET not in tl.text(d) for d in tl.dumps)
    assert any("a hard link to a file of someone else" in w for w in tl.warnings)
    assert SECRET not in save_html(run, tmp_path / "p.html").read_text()
    report = make_report(run, out=tmp_path / "bug", host=HOST)
    assert all(SECRET.encode() not in data for data in _zip(report.zip_path).values())
    assert "artifacts/key.mlir: a hard link to a file of someone else" in report.markdown


def test_files_dated_before_1980_or_after_2107_are_zipped(tmp_path: Path) -> None:
    run = _run(tmp_path)  # as unpacked from a store that dates every file 1970 (Nix: 1)
    for p in (run / "artifacts").iterdir():
        os.utime(p, (1, 1))
    os.utime(run / LOG, (8e9, 8e9))
    zipped = _zip(make_report(run, out=tmp_path / "bug", host=HOST).zip_path)
    assert {"ir/output.mlir", "ir/input.mlir", f"logs/{LOG}"} <= set(zipped)


def test_a_packed_payload_bomb_is_one_error_not_all_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(packing, "UNPACKED_MAX_BYTES", 1 << 20)  # the bound, made small here
    bomb = {"format": "ascend-ir-lab/timeline@1", "title": "run", "packed": "gzip+base64",
            "data": base64.b64encode(gzip.compress(b" " * (4 << 20))).decode(), "notes": []}  # fmt: skip
    with pytest.raises(ValueError, match="unpacks to more than 1 MiB"):
        packing.unpack_payload(bomb)
    nb = tmp_path / "nb.ipynb"
    output = {
        "output_type": "display_data",
        "data": {"application/vnd.ascend-ir-lab.timeline+json": bomb},
    }
    nb.write_text(json.dumps({"cells": [{"cell_type": "code", "outputs": [output]}]}))
    assert notebook_notes(nb, ["run"]) == []  # the title matches; the bomb is not opened


def test_a_notebook_that_is_a_fifo_is_one_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], deadline: None
) -> None:
    run = _run(tmp_path)
    os.mkfifo(tmp_path / "nb.ipynb")
    try:
        code = main(["report", str(run), "-o", str(tmp_path / "bug"),
                     "--notebook", str(tmp_path / "nb.ipynb")])  # fmt: skip
    except Hung:
        pytest.fail("--notebook FIFO blocked")
    assert code == 2 and "a FIFO, not a file" in _error(capsys, "report")


def test_arguments_echoed_by_the_parser_reach_the_terminal_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    streams = sys.stdout, sys.stderr
    with pytest.raises(SystemExit):  # a name from a log, pasted into a command line
        main(["show", str(tmp_path), "0", "--x", "\x1b]0;pwned\x07\x1b[2J\u202e"])
    err = capsys.readouterr().err
    assert "unrecognized arguments" in err and "<U+202E>" in err
    assert "\x1b" not in err and "\x07" not in err and "\u202e" not in err
    assert (sys.stdout, sys.stderr) == streams  # the streams come back as they were


@pytest.mark.parametrize("name", ["run.json", "notes.json", "source.py"])
def test_small_files_of_a_run_swapped_for_fifos_or_sparse_never_hang_or_fill_memory(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], deadline: None
) -> None:
    from ascend_ir_lab.runs.paths import read_small

    run = _run(tmp_path)
    m = json.loads((run / "run.json").read_text())
    m["kernel"] = {"name": "k", "source": "source.py", "first_line": 1}
    (run / "run.json").write_text(json.dumps(m))
    os.mkfifo(tmp_path / "fifo")
    try:  # the read after a check, on a FIFO swapped in meanwhile
        with pytest.raises(InputError, match="not a regular file"):
            read_small(tmp_path / "fifo", 1 << 20)
    except Hung:
        pytest.fail("a FIFO blocked the read")
    if name != "run.json":
        _sparse(run / name, 20 << 30)  # 20 GB of nothing where a small file should be
        assert main(["html", str(run), "-o", str(tmp_path / "p.html")]) == 0
        assert main(["report", str(run), "-o", str(tmp_path / "bug")]) == 0
        assert main(["source", str(run), "1"]) in (0, 2)
        out = capsys.readouterr()
        assert "Traceback" not in out.err
    else:
        _sparse(run / name, 20 << 30)
        assert main(["inspect", str(run)]) == 2
        assert "more than" in _error(capsys, "inspect")


def test_zip_entry_names_carry_no_terminal_or_windows_syntax(tmp_path: Path) -> None:
    run = _run(tmp_path)
    hostile = "a\x1b]0;pwned\x07\u202eb:c|d.mlir"  # what `unzip -l` would print raw
    (run / "artifacts" / hostile).write_text("module {}\n")
    names = set(_zip(make_report(run, out=tmp_path / "bug", host=HOST).zip_path))
    assert "ir/a_]0;pwned__b_c_d.mlir" in names
    for name in names:
        assert name.isprintable() and not set(name) & set(':<>"|?*\\\u202e'), name


def test_a_log_swapped_for_a_link_out_after_its_check_is_not_read(tmp_path: Path) -> None:
    secret = make_secret(tmp_path)
    run = _run(tmp_path)
    (run / LOG).unlink()
    (run / LOG).symlink_to(secret / "passwd")  # as if swapped between the check and the open
    with pytest.raises(InputError, match="outside the Run folder once open"):
        read_bytes(run / LOG, within=run)
    assert read_bytes(run / "artifacts" / "output.mlir", within=run).startswith(b"module")


@needs_ascend
def test_flags_a_cheap_record_names_reach_no_command_line_on_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "RAN"
    mine = tmp_path / "mine"  # the user's own tutorial file, at a path anyone could guess
    mine.mkdir()
    run = _cheap_record(tmp_path / "a", _planted(mine, marker))
    m = json.loads((run / "run.json").read_text())
    m["extra"]["recompile"]["bishengir_flags"] = ["--load-pass-plugin=/tmp/evil.so"]
    (run / "run.json").write_text(json.dumps(m))
    assert main(["inspect", str(run)]) == 0
    err = capsys.readouterr().err
    assert not marker.exists()
    assert "flags the Run names (--load-pass-plugin=/tmp/evil.so)" in err
