"""Large compressed logs decompressed once into a private cache, then mapped like plain ones."""

from __future__ import annotations

import gzip
import os
import tempfile
from pathlib import Path

import pytest

from ascend_ir_lab.dumps import blocks, builder, log_cache, open_timeline, zstd_log
from tests.conftest import ASCEND, fixture_bytes

LOG = fixture_bytes(ASCEND / "vadd.adapter.log")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every compressed log counts as large; the cache lives under this test's tmp folder."""
    monkeypatch.setattr(builder, "MMAP_FROM", 1)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    return tmp_path / "tmp" / f"ascend-ir-lab-{os.getuid()}-logs"


def _zst(folder: Path, data: bytes) -> Path:
    src = folder / "x.log"
    src.write_bytes(data)
    zstd_log.compress_log(src, folder / "x.log.zst")
    src.unlink()
    return folder / "x.log.zst"


def test_a_second_open_maps_the_kept_log(tmp_path: Path, cache: Path) -> None:
    zst = _zst(tmp_path, LOG)
    first = open_timeline(str(zst))
    (kept,) = cache.iterdir()
    assert kept.read_bytes() == LOG and oct(cache.stat().st_mode & 0o777) == "0o700"
    again = builder.read_bytes(zst)
    assert not isinstance(again, blocks.BlockText) and bytes(again) == LOG
    assert [d.pass_name for d in open_timeline(str(zst)).dumps] == [
        d.pass_name for d in first.dumps
    ]


def test_a_rewritten_log_is_never_read_from_an_old_copy(tmp_path: Path, cache: Path) -> None:
    zst = _zst(tmp_path, LOG)
    builder.read_bytes(zst)
    changed = LOG.replace(b"IR Dump After", b"IR Dump Before", 1)
    _zst(tmp_path, changed)
    os.utime(zst, ns=(1, 1))  # even with an old modification time: a new inode or size
    assert bytes(builder.read_bytes(zst)) == changed


def test_a_log_larger_than_half_the_disk_left_is_read_but_not_kept(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small file that inflates thousands of times (zeros) would fill the disk for others."""
    gz = tmp_path / "x.log.gz"
    gz.write_bytes(gzip.compress(LOG))
    real = os.statvfs

    class Full:
        def __init__(self, disk: os.statvfs_result) -> None:
            self.f_frsize, self.f_bavail = disk.f_frsize, (2 * len(LOG) - 1) // disk.f_frsize

    monkeypatch.setattr(os, "statvfs", lambda p: Full(real(p)))
    plain = tmp_path / "plain.log"
    plain.write_bytes(LOG)
    passes = [d.pass_name for d in open_timeline(str(plain)).dumps]
    assert [d.pass_name for d in open_timeline(str(gz)).dumps] == passes
    assert not cache.exists() or not list(cache.iterdir())
    monkeypatch.setattr(os, "statvfs", real)
    open_timeline(str(gz))
    assert len(list(cache.iterdir())) == 1  # with room, it is kept


def test_a_damaged_log_is_not_kept(tmp_path: Path, cache: Path) -> None:
    gz = tmp_path / "x.log.gz"
    gz.write_bytes(gzip.compress(LOG)[:-200])  # truncated
    tl = open_timeline(str(gz))
    assert any("truncated" in w for w in tl.warnings)
    assert not any(cache.iterdir())


def test_no_cache_in_a_folder_others_can_write(tmp_path: Path, cache: Path) -> None:
    cache.mkdir(mode=0o777)
    cache.chmod(0o777)
    zst = _zst(tmp_path, LOG)
    assert bytes(builder.read_bytes(zst)) == LOG  # read all the same, nothing kept
    assert not any(cache.iterdir())


def test_the_least_recently_opened_go_first(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(log_cache, "CACHE_BYTES", len(LOG) * 2 + 3)
    paths = []
    for k in range(3):
        folder = tmp_path / f"r{k}"
        folder.mkdir()
        paths.append(_zst(folder, LOG + b"\n" * k))
        builder.read_bytes(paths[-1])
    kept = sorted(p.stat().st_size for p in cache.iterdir())
    assert kept == [len(LOG) + 1, len(LOG) + 2]  # the first one opened was evicted


def test_a_kept_log_opens_without_the_decompressor(tmp_path: Path) -> None:
    import subprocess
    import sys

    zst = _zst(tmp_path, LOG)  # small: read whole, as a plain log of its size is
    code = (
        "import sys; from ascend_ir_lab.dumps import open_timeline; "
        f"tl = open_timeline({str(zst)!r}); print(len(tl.dumps), 'zstandard' in sys.modules)"
    )
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    first, second = (
        subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       check=True).stdout.split()
        for _ in range(2)
    )  # fmt: skip
    assert first[1] == "True" and second == [first[0], "False"]
