"""Attacks through what a bug report zips and writes: file names that are not UTF-8, a Run
folder so named, notes holding lone surrogates, names that collide once made safe, damaged
`.zst` files, a log past zip's 2 GiB, numbers too large for a float, and a run.json whose
words would run as commands when the reproducer's recompile line is pasted into a shell.
Each hostile input is made here; each report is made whole, and loses nothing."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.cli import main
from ascend_ir_lab.dumps.zstd_log import compress_log
from ascend_ir_lab.errors import InputError
from ascend_ir_lab.runs import Run
from ascend_ir_lab.share.report import make_report
from tests.runs.hostile import BASE, LOG

HOST: dict[str, Any] = {"npu_model": None, "versions": {}}
ODD = os.fsdecode(b"odd\xff\xfe")  # a name of bytes that are not UTF-8, as a foreign tar holds


def _run(root: Path, name: str = "run") -> Path:
    run = root / name
    shutil.copytree(BASE, run)
    return run


def _zip(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def _edit(run: Path, **fields: object) -> None:
    m = json.loads((run / "run.json").read_text())
    m.update(fields)
    (run / "run.json").write_text(json.dumps(m))


def test_a_file_named_in_bytes_that_are_not_utf8_is_zipped_under_a_safe_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _run(tmp_path)
    shutil.copy(run / "artifacts" / "output.mlir", run / "artifacts" / f"{ODD}.mlir")
    assert main(["report", str(run), "-o", str(tmp_path / "bug")]) == 0, capsys.readouterr().err
    zipped = _zip(tmp_path / "bug.zip")
    assert zipped["ir/odd__.mlir"] == (run / "artifacts" / "output.mlir").read_bytes()


def test_a_run_folder_named_in_bytes_that_are_not_utf8_gives_a_page_a_zip_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _run(tmp_path, f"{ODD}-run")
    assert main(["html", str(run), "-o", str(tmp_path / "p.html")]) == 0
    assert main(["report", str(run), "-o", str(tmp_path / "bug")]) == 0
    assert "error" not in capsys.readouterr().err
    assert main(["inspect", "--json", str(run)]) == 0
    out, err = capsys.readouterr()
    assert "error" not in err, err
    assert json.loads(out)["path"] == str(run)  # the same string back, escaped in the JSON
    for data in [(tmp_path / "p.html").read_bytes(), *_zip(tmp_path / "bug.zip").values()]:
        data.decode("utf-8")  # every file written is UTF-8 text


def test_notes_holding_lone_surrogates_are_kept_in_the_page_and_the_zip(tmp_path: Path) -> None:
    run = _run(tmp_path)
    (run / "notes.json").write_text('[{"dump": 0, "text": "half \\ud800 a pair", "id": "\\udfff"}]')
    report = make_report(run, out=tmp_path / "bug", host=HOST)
    notes = json.loads(_zip(report.zip_path)["notes.json"])["notes"]
    assert [(n["id"], n["text"]) for n in notes] == [("\udfff", "half \ud800 a pair")]
    assert "half &lt;U+D800&gt; a pair" in report.markdown  # shows as <U+D800>
    assert main(["html", str(run), "-o", str(tmp_path / "p.html")]) == 0
    assert "half \\ud800 a pair" in (tmp_path / "p.html").read_text(encoding="utf-8")


def test_names_that_collide_once_made_safe_are_all_zipped(tmp_path: Path) -> None:
    run = _run(tmp_path)
    m = json.loads((run / "run.json").read_text())
    m["stages"].append({**m["stages"][0], "name": "again"})  # two stages, one log
    (run / "run.json").write_text(json.dumps(m))
    art = run / "artifacts"
    (art / "a:b.mlir").write_text("module { first }\n")
    (art / "a|b.mlir").write_text("module { second }\n")
    (art / "x.mlir").write_text("module { plain }\n")
    (tmp_path / "x.mlir").write_text("module { packed }\n")
    compress_log(tmp_path / "x.mlir", art / "x.mlir.zst")
    with zipfile.ZipFile(make_report(run, out=tmp_path / "bug", host=HOST).zip_path) as zf:
        names = zf.namelist()
        texts = sorted(zf.read(n) for n in names if n.startswith(("ir/a_b", "ir/x")))
    assert len(names) == len(set(names)), names  # an unzip would write one over the other
    assert names.count(f"logs/{LOG}") == 1
    assert texts == [b"module { %s }\n" % w for w in (b"first", b"packed", b"plain", b"second")]


@pytest.mark.parametrize("damage", ["cut", "bomb"])
def test_a_damaged_zst_goes_in_as_it_is_never_as_an_empty_or_partial_entry(
    damage: str, tmp_path: Path
) -> None:
    run = _run(tmp_path)
    plain = run / "artifacts" / "output.mlir"
    packed = plain.with_name("output.mlir.zst")
    compress_log(plain, packed)
    data = packed.read_bytes()
    if damage == "cut":
        packed.write_bytes(data[: len(data) // 2])  # a capture killed mid-write
    else:  # the seek table says a frame holds 100 bytes; the frame holds 10 MB
        import struct

        import zstandard

        frame = zstandard.ZstdCompressor().compress(bytes(10 << 20))
        body = struct.pack("<II", len(frame), 100) + struct.pack("<IBI", 1, 0, 0x8F92EAB1)
        packed.write_bytes(frame + struct.pack("<II", 0x184D2A5E, len(body)) + body)
    plain.unlink()
    zipped = _zip(make_report(run, out=tmp_path / "bug", host=HOST).zip_path)
    assert "ir/output.mlir" not in zipped  # no entry holding nothing, or a part
    assert zipped["ir/output.mlir.zst"] == packed.read_bytes()


def test_a_log_past_zips_2_gib_limit_goes_in_as_zip64(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(zipfile, "ZIP64_LIMIT", 4000)  # zip's 2 GiB, made small here
    run = _run(tmp_path)
    assert (run / LOG).stat().st_size > 4000
    zipped = _zip(make_report(run, out=tmp_path / "bug", host=HOST).zip_path)
    assert zipped[f"logs/{LOG}"] == (run / LOG).read_bytes()


@pytest.mark.parametrize("field", ["seconds", "returncode", "timings"])
def test_an_integer_too_large_for_a_float_is_one_error_naming_it(
    field: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _run(tmp_path)
    m = json.loads((run / "run.json").read_text())
    huge = 10**400  # exact in JSON and in Python; a float of it overflows
    m["stages"][0][field] = {"cse": huge} if field == "timings" else huge
    (run / "run.json").write_text(json.dumps(m))
    with pytest.raises(InputError, match=rf"run.json: stages\[0\]\.{field}.*401 digits"):
        Run(run)
    for command in (["inspect", str(run)], ["html", str(run), "-o", str(tmp_path / "p.html")]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert "401 digits is not a finite number" in err and "OverflowError" not in err


def test_the_recompile_line_pasted_into_a_shell_runs_no_word_of_run_json(tmp_path: Path) -> None:
    run = _run(tmp_path)
    _edit(
        run,
        kernel={"name": "k;touch PWN1;", "signature": {"x": "*fp32' ; touch PWN2 ; '"},
                "constexprs": {"B;touch PWN3": "$(touch PWN4)"}},
        target="Ascend910B3 `touch PWN5`",
    )  # fmt: skip
    report = make_report(run, out=tmp_path / "bug", host=HOST)
    kernel = _zip(report.zip_path)["repro/kernel.py"].decode()
    line = kernel.rstrip("\n").splitlines()[-1].removeprefix("#   ")
    assert shlex.split(line) == [
        "ascend-ir-lab", "compile", "kernel.py::k;touch PWN1;",
        "--signature", "x=*fp32' ; touch PWN2 ; '", "--constexpr=B;touch PWN3=$(touch PWN4)",
        "--target", "Ascend910B3 `touch PWN5`", "--module-scope",
    ]  # fmt: skip
    assert line in report.markdown


def test_artifacts_nested_1500_deep_are_walked_not_a_recursion_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _run(tmp_path)
    try:
        _report_of_a_deep_tree(run, tmp_path, capsys)
    finally:
        _remove_chain(run / "artifacts")


def _report_of_a_deep_tree(run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fd = os.open(run / "artifacts", os.O_RDONLY)  # by folder handles: no path grows per level
    for _ in range(1500):  # os.walk recurses once per level
        os.mkdir("d", dir_fd=fd)
        fd, parent = os.open("d", os.O_RDONLY, dir_fd=fd), fd
        os.close(parent)
    leaf = os.open("leaf.mlir", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
    os.write(leaf, b"module { leaf }\n")
    os.close(leaf)
    os.close(fd)
    assert main(["report", str(run), "-o", str(tmp_path / "bug")]) == 0, capsys.readouterr().err
    zipped = _zip(tmp_path / "bug.zip")
    assert zipped[f"ir/{'d/' * 1500}leaf.mlir"] == b"module { leaf }\n"
    assert {"ir/input.mlir", "ir/output.mlir"} <= set(zipped)


def _remove_chain(top: Path) -> None:
    """Remove the chain of nested `d` folders under `top` a level at a time: pytest removes
    old tmp folders with a recursive rmtree, which a 1,500-deep tree left behind would stop
    (a RecursionError ending a later session)."""
    chain, lifted = top / "d", top / "lifted"
    while chain.is_dir():
        if (chain / "d").is_dir():
            (chain / "d").rename(lifted)
        for leftover in chain.iterdir():
            leftover.unlink()
        chain.rmdir()
        if lifted.is_dir():
            lifted.rename(chain)


def test_a_stage_log_of_nul_bytes_is_refused_as_a_log_file_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ascend_ir_lab.dumps import open_timeline

    run = _run(tmp_path)
    (run / LOG).write_bytes(bytes(8 << 20))  # what `inspect FILE` calls binary data
    tl = open_timeline(run)
    assert any("is binary data, not a compiler log; not read" in w for w in tl.warnings)
    assert not any("\0" in m.text for m in tl.messages)
    assert len(tl.dumps) == 1  # the stage's artifact is still read
