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
