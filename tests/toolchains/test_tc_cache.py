"""Triton cache and dump folders: both namings, newest first, opened as a Timeline."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.toolchains.common.cache import find_entry, list_entries, stage_of
from ascend_ir_lab.toolchains.common.run import Run

from .conftest import needs_ascend

pytestmark = [pytest.mark.ascend, needs_ascend]


@pytest.fixture
def triton_dirs(tmp_path: Path, fine_runs: dict[str, Run], monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache and a dump folder laid out as triton-ascend writes them (real IR files)."""
    art = fine_runs["vadd"].path / "artifacts"
    old = tmp_path / "cache" / "AAAhash_release"
    old.mkdir(parents=True)
    shutil.copy(art / "vadd.ttir", old / "vadd.ttir")
    shutil.copy(art / "vadd.ttadapter", old / "vadd.ttadapter")
    (old / "vadd.json").write_text(json.dumps({"name": "vadd aiv"}))
    os.utime(old / "vadd.ttir", (1, 1)), os.utime(old / "vadd.ttadapter", (1, 1))
    os.utime(old / "vadd.json", (1, 1))
    new = tmp_path / "cache" / "BBBhash_master"
    new.mkdir()
    sm = fine_runs["softmax"].path / "artifacts"
    shutil.copy(sm / "softmax.ttir", new / "kernel.ttir")
    shutil.copy(sm / "softmax.ttadapter", new / "kernel.bcmlir")
    (new / "kernel.json").write_text(json.dumps({"name": "softmax aiv"}))
    dump = tmp_path / "dump" / "CCChash"
    dump.mkdir(parents=True)
    shutil.copy(art / "vadd.ttir", dump / "kernel.ttir.mlir")
    shutil.copy(art / "vadd.ttadapter", dump / "kernel.ttadapter.mlir")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TRITON_DUMP_DIR", str(tmp_path / "dump"))
    return tmp_path


def test_list_newest_first_with_stages(triton_dirs: Path) -> None:
    entries = list_entries()
    assert [e.key for e in entries][-1] == "AAAhash_release"
    by_key = {e.key: e for e in entries}
    assert by_key["AAAhash_release"].stages == ("ttir", "ttadapter")
    assert by_key["AAAhash_release"].name == "vadd"
    assert by_key["BBBhash_master"].stages == ("ttir", "bcmlir")
    assert by_key["BBBhash_master"].name == "softmax"
    assert by_key["CCChash"].kind == "dump" and by_key["CCChash"].stages == ("ttir", "ttadapter")


def test_find_by_prefix_name_or_latest(triton_dirs: Path) -> None:
    assert find_entry("AAA").key == "AAAhash_release"
    assert find_entry("softmax").key == "BBBhash_master"
    assert find_entry("latest").key != "AAAhash_release"
    with pytest.raises(InputError, match="no cache entry 'zzz'"):
        find_entry("zzz")


def test_cache_entry_opens_as_a_timeline(triton_dirs: Path) -> None:
    from ascend_ir_lab.dumps import open_timeline

    tl = open_timeline(str(find_entry("AAA").path))
    assert len(tl.dumps) == 2


def test_stage_of_names() -> None:
    assert stage_of("kernel.ttadapter.mlir") == "ttadapter"
    assert stage_of("add.bcmlir") == "bcmlir" and stage_of("add.npubin") == "npubin"
    assert stage_of("readme.txt") is None


def test_search_finds_kernels_whose_ir_holds_an_op(
    triton_dirs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ascend_ir_lab.cli import main
    from ascend_ir_lab.toolchains.common import cache
    from ascend_ir_lab.toolchains.common.cache import search_entries

    entries = list_entries()
    hits = search_entries("tt.load", entries, jobs=1)
    assert {h.entry.key for h in hits} == {e.key for e in entries}
    assert all("tt.load" in h.line and h.count >= 1 for h in hits)
    monkeypatch.setattr(cache, "_PARALLEL_FROM", 1)
    assert search_entries("tt.load", entries, jobs=2) == hits  # processes give the same
    monkeypatch.setattr(cache, "_PARALLEL_FROM", 400)
    assert search_entries("no.such_op", entries, jobs=1) == []
    assert main(["cache", "search", "tt.load"]) == 0
    out = capsys.readouterr().out
    assert "AAAhash_release" in out and "vadd" in out and "softmax" in out
    assert main(["cache", "search", "no.such_op"]) == 1


def test_names_from_the_cache_reach_the_terminal_as_text(
    triton_dirs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ascend_ir_lab.cli import main

    hostile = triton_dirs / "cache" / "DDDhash"
    hostile.mkdir()
    shutil.copy(triton_dirs / "cache" / "AAAhash_release" / "vadd.ttir", hostile / "kernel.ttir")
    name = "evil\x1b]0;owned\x07\x1b[2J\x7fkern"  # master names files kernel.*
    (hostile / "kernel.json").write_text(json.dumps({"name": name}))
    for argv in (["cache", "list"], ["cache", "search", "tt.load"], ["cache", "show", "DDD"]):
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert "DDDhash" in out and "evilkern" in out
        assert not any(c in out for c in "\x1b\x07\r"), argv
