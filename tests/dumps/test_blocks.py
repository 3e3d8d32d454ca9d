"""Compressed logs read by block: seekable zstd (a Run's logs) and gzip streams."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_ir_lab.dumps import blocks, builder, open_timeline, zstd_log
from ascend_ir_lab.dumps.sources import read_log
from tests.conftest import ASCEND, fixture_bytes

LOG = fixture_bytes(ASCEND / "vadd.adapter.log")


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    # many blocks from a small real log: every boundary case comes up
    monkeypatch.setattr(zstd_log, "FRAME_BYTES", 997)
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 1009)
    monkeypatch.setattr(builder, "MMAP_FROM", 1)  # read by block, as a big log is


def _zst(tmp_path: Path, data: bytes) -> Path:
    src = tmp_path / "x.log"
    src.write_bytes(data)
    assert zstd_log.compress_log(src, tmp_path / "x.log.zst") == len(data)
    return tmp_path / "x.log.zst"


def _gz(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "x.log.gz"
    half = len(data) // 2  # two members, as `cat a.gz b.gz` makes
    path.write_bytes(gzip.compress(data[:half]) + gzip.compress(data[half:]))
    return path


@pytest.mark.usefixtures("small_blocks")
@pytest.mark.parametrize("make", [_zst, _gz])
@settings(max_examples=60, deadline=None)
@given(
    a=st.integers(0, len(LOG)),
    n=st.integers(0, 3000),
    sub=st.sampled_from([b"\n", b"IR Dump", b"}\n", b"// -----//", b"absent-text"]),
)
def test_block_text_reads_as_the_bytes(
    tmp_path_factory: pytest.TempPathFactory, make, a: int, n: int, sub: bytes
) -> None:  # type: ignore[no-untyped-def]
    text = (zstd_log.open_zstd if make is _zst else blocks.open_gzip)(
        make(tmp_path_factory.mktemp("b"), LOG)
    )
    b = min(len(LOG), a + n)
    assert len(text) == len(LOG) and text[a:b] == LOG[a:b]
    assert text.find(sub, a, b) == LOG.find(sub, a, b)
    assert text.rfind(sub, a, b) == LOG.rfind(sub, a, b)
    assert text.find(sub, a) == LOG.find(sub, a)


@pytest.mark.usefixtures("small_blocks")
def test_compressed_log_gives_the_same_timeline(tmp_path: Path) -> None:
    plain = read_log(ASCEND / "vadd.adapter.log")
    for path in (_zst(tmp_path, LOG), _gz(tmp_path, LOG)):
        tl = open_timeline(path)
        assert [(d.pass_name, d.start, d.body_end) for d in tl.dumps] == [
            (d.pass_name, d.start, d.body_end) for d in plain.dumps
        ]
        assert [tl.raw(d) for d in tl.dumps] == [plain.raw(d) for d in plain.dumps]
        assert tl.snapshot_count() == plain.snapshot_count() and not tl.warnings


def test_small_compressed_logs_are_read_whole_and_the_same(tmp_path: Path) -> None:
    tl = read_log(_zst(tmp_path, LOG))
    assert isinstance(tl.log_bytes(0), bytes) and tl.log_bytes(0) == LOG
    assert [tl.raw(d) for d in tl.dumps] == [
        read_log(ASCEND / "vadd.adapter.log").raw(d) for d in tl.dumps
    ]


def test_truncated_gz_is_read_as_far_as_it_goes(tmp_path: Path) -> None:
    whole = gzip.compress(LOG)
    cut = tmp_path / "cut.log.gz"
    cut.write_bytes(whole[: len(whole) * 2 // 3])
    tl = read_log(cut)
    kept = tl.log_bytes(0)
    assert LOG.startswith(kept) and len(kept) > len(LOG) // 3
    assert any("ends early (truncated)" in w for w in tl.warnings)
    assert len(tl.dumps) > 1


@pytest.mark.usefixtures("small_blocks")
def test_zst_without_seek_table_still_opens(tmp_path: Path) -> None:
    cut = tmp_path / "cut.log.zst"
    writer = zstd_log.ZstdLogWriter(cut)
    writer.write(LOG * 3)
    writer._out.flush()  # a capture killed before close(): whole frames, no seek table
    tl = read_log(cut)
    kept = tl.log_bytes(0)
    assert (LOG * 3).startswith(kept) and len(kept) > len(LOG) * 2
    assert any("no seek table" in w for w in tl.warnings)
    writer.close()


def test_a_seekable_log_is_a_plain_zstd_stream(tmp_path: Path) -> None:
    import zstandard

    path = _zst(tmp_path, LOG * 2)
    with open(path, "rb") as f:
        reader = zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True)
        assert reader.read() == LOG * 2  # any zstd tool reads it; the seek table is skipped
