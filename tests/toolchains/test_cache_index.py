"""`cache list` keeps an index of the kernel folders it read: a folder unchanged since is not
read again, a changed one always is, and a damaged or foreign index is never trusted."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from ascend_ir_lab.toolchains.common import cache, cache_index
from tests.conftest import ASCEND

TTIR = next((ASCEND / "cache").glob("*/vadd.ttir")).read_bytes()  # a real cache file


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Three kernel folders, last changed an hour ago; the index under this test's tmp."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    top = tmp_path / "cache"
    for k in range(3):
        folder = top / f"{k:04d}hash"
        folder.mkdir(parents=True)
        (folder / f"kern{k}.ttir").write_bytes(TTIR)
        old = os.path.getmtime(folder) - 3600
        os.utime(folder / f"kern{k}.ttir", (old, old))
        os.utime(folder, (old, old))
    return top


def _listed(root: Path) -> dict[str, tuple[str, tuple[str, ...]]]:
    return {e.key: (e.name, e.stages) for e in cache.list_entries((root, "cache"))}


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = cache._row

    def counting(folder: str) -> cache_index.Row | None:
        seen.append(os.path.basename(folder))
        return real(folder)

    monkeypatch.setattr(cache, "_row", counting)
    return seen


def test_a_second_listing_reads_no_folder_and_lists_the_same(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _listed(root)
    assert first["0001hash"] == ("kern1", ("ttir",))
    index = cache_index.index_file(root, "cache")
    assert index is not None and index.is_file()
    assert oct(index.parent.stat().st_mode & 0o777) == "0o700"
    seen = _reads(monkeypatch)
    assert _listed(root) == first and seen == []


def test_a_changed_folder_is_read_again(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _listed(root)
    (root / "0002hash" / "kern2.ttadapter").write_bytes(TTIR)  # Triton adds a stage file
    seen = _reads(monkeypatch)
    listed = _listed(root)
    assert seen == ["0002hash"] and listed["0002hash"] == ("kern2", ("ttir", "ttadapter"))
    (root / "0003hash").mkdir()
    (root / "0003hash" / "new.ttir").write_bytes(TTIR)
    assert "0003hash" in _listed(root)


def test_a_damaged_index_is_rebuilt(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _listed(root)
    index = cache_index.index_file(root, "cache")
    assert index is not None
    for bad in (b"{broken", b'{"version": 1, "folders": {"0000hash": [[1, 2], ["x", 5, 1, 1]]}}',
                b'{"version": 1, "folders": []}', b"[]"):  # fmt: skip
        index.write_bytes(bad)
        seen = _reads(monkeypatch)
        assert _listed(root) == first and len(seen) == 3
        monkeypatch.undo()
        monkeypatch.setattr(tempfile, "tempdir", str(root.parent / "tmp"))


def test_no_index_in_a_folder_others_can_write(root: Path) -> None:
    folder = root.parent / "tmp" / f"ascend-ir-lab-{os.getuid()}-index"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    assert cache_index.index_file(root, "cache") is None
    assert _listed(root)["0000hash"] == ("kern0", ("ttir",))  # listed all the same
    assert not any(folder.iterdir())
