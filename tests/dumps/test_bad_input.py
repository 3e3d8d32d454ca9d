"""Bad input gets one clear line or a warning, never a hang, a traceback or a merged mess:
special files, unreadable members, folder walks bounded to the shapes read, stray NUL bytes."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ascend_ir_lab.cli import main
from ascend_ir_lab.dumps import open_timeline, walk
from ascend_ir_lab.errors import InputError
from tests.conftest import ASCEND, fixture_bytes

TREE = ASCEND / "vadd.bishengir.tree"
CACHE = ASCEND / "cache"


def test_special_files_are_refused_up_front(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.log")
    with pytest.raises(InputError, match="a FIFO, not a file"):
        open_timeline(tmp_path / "pipe.log")  # would block forever if opened
    with pytest.raises(InputError, match="a device or socket"):
        open_timeline("/dev/zero")  # would fill memory if read


def test_special_and_unreadable_members_are_skipped_with_a_warning(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(TREE, tree)
    module = next(tree.iterdir())
    os.mkfifo(module / "0_zzz-fifo.mlir")
    (module / "0_zzz-link.mlir").symlink_to("/etc/passwd")
    whole = open_timeline(TREE)
    tl = open_timeline(tree)
    assert len(tl.dumps) == len(whole.dumps)
    assert sum("not a regular file; skipped" in w for w in tl.warnings) == 2


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_a_file_without_read_permission_is_skipped(tmp_path: Path) -> None:
    entry = tmp_path / "entry"
    shutil.copytree(next(p for p in CACHE.iterdir() if p.is_dir()), entry)
    locked = next(entry.glob("*.ttir"))
    locked.chmod(0)
    try:
        tl = open_timeline(entry)
        assert any(str(locked) in w and "skipped" in w for w in tl.warnings)
        assert tl.dumps
    finally:
        locked.chmod(0o644)


def test_walks_stay_in_the_shapes_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a tree-dir file deep in unrelated folders is not a tree-dir
    (tmp_path / "home" / "user" / "project").mkdir(parents=True)
    (tmp_path / "home" / "user" / "project" / "0_cse.mlir").write_text("module {}\n")
    with pytest.raises(InputError, match="a folder, but not a Run folder"):
        open_timeline(tmp_path / "home")
    # a folder too wide to be one of our shapes: the walk stops and says so
    monkeypatch.setattr(walk, "WALK_MAX_ENTRIES", 50)
    wide = tmp_path / "wide"
    (wide / "m").mkdir(parents=True)
    for k in range(60):
        (wide / "m" / f"{k}_p.mlir").write_text("module {}\n")
    files, skipped = walk.walk_tree(wide)
    assert len(files) < 60 and any("stopped after 50 entries" in s for s in skipped)


def test_the_root_of_the_filesystem_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "/"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("ascend-ir-lab inspect: error: /: a folder")


def test_nul_bytes_early_in_a_good_log_do_not_reject_it(tmp_path: Path) -> None:
    good = fixture_bytes(ASCEND / "vadd.adapter.log")
    log = tmp_path / "nul.log"
    log.write_bytes(b"\0\0 crashed writer padding\n" + good)
    tl = open_timeline(log)
    assert tl.dumps and any("NUL bytes" in w for w in tl.warnings)
    binary = tmp_path / "blob.log"
    binary.write_bytes(b"\0\x01\x02" * 1000)
    with pytest.raises(InputError, match="binary data"):
        open_timeline(binary)


class _Mapped(bytes):
    """A large log's bytes as the reader gets them (a mapped file): `in` of a mapped file
    compares a byte at a time in Python, 33 s for a gigabyte against 0.5 s for `find`."""

    def __contains__(self, sub: object) -> bool:
        raise AssertionError("a membership test scanning the whole log")


@pytest.mark.parametrize("shape", ["binary", "nul head", "utf-16 guess", "run stage"])
def test_a_whole_log_is_searched_with_find_never_scanned_by_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    """A gigabyte of NUL bytes (a 4.6 MB .gz) in a log or a Run's stage log took minutes."""
    from ascend_ir_lab.dumps import sources
    from tests.runs.hostile import BASE, LOG

    read = sources.read_bytes
    monkeypatch.setattr(sources, "read_bytes", lambda *a, **k: _Mapped(read(*a, **k)))
    good = fixture_bytes(ASCEND / "vadd.adapter.log")
    if shape == "run stage":
        run = tmp_path / "run"
        shutil.copytree(BASE, run)
        (run / LOG).write_bytes(bytes(1 << 16))
        tl = open_timeline(run)
        assert any("is binary data, not a compiler log; not read" in w for w in tl.warnings)
        return
    log = tmp_path / "x.log"
    log.write_bytes({"binary": bytes(1 << 16), "nul head": b"\0 pad\n" + good,
                     "utf-16 guess": b"\0\0" + good}[shape])  # fmt: skip
    if shape == "binary":
        with pytest.raises(InputError, match="binary data"):
            open_timeline(log)
    else:
        assert open_timeline(log).dumps
