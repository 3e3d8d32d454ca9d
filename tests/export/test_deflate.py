"""The gzip of a large payload in parts compressed side by side: one gzip member that any
inflater reads, the same bytes however it is fed and however its threads ran."""

from __future__ import annotations

import gzip
import random
import threading
import zlib
from typing import Any

import pytest

from ascend_ir_lab.export import deflate
from ascend_ir_lab.export.deflate import PartedGzip, gzip_parts


def _text(size: int) -> bytes:
    """IR-like text: repeated op lines with changing numbers, as a payload's line table."""
    rng = random.Random(7)
    lines = [f'%{i} = hivm.hir.vadd ins(%{rng.randrange(i + 1)} : memref<{rng.randrange(64)}xf32>)'
             for i in range(size // 40)]  # fmt: skip
    return "\n".join(lines).encode()[:size]


@pytest.mark.parametrize("size", [0, 1, 1000, deflate.PART_BYTES])
def test_one_part_is_exactly_gzip_compress(size: int) -> None:
    data = _text(size)
    assert gzip_parts(data) == gzip.compress(data, compresslevel=3, mtime=0)


def test_many_parts_are_one_member_that_inflates_back() -> None:
    data = _text(5 * deflate.PART_BYTES + 12345)
    packed = gzip_parts(data)
    assert gzip.decompress(packed) == data
    d = zlib.decompressobj(31)
    assert d.decompress(packed) == data and d.eof and d.unused_data == b""  # one member
    whole = gzip.compress(data, compresslevel=3, mtime=0)
    assert len(packed) <= len(whole) * 1.01  # each part primed with the 32 KiB before it


def test_the_bytes_do_not_depend_on_feeding_or_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _text(3 * deflate.PART_BYTES + 999)
    packer, rng, at = PartedGzip(), random.Random(3), 0
    while at < len(data):
        step = rng.choice([1, 17, 4096, 300_000, 2 * deflate.PART_BYTES])
        packer.feed(data[at : at + step])
        at += step
    fed = packer.finish()

    class Inline:  # every part compressed on the caller's thread, one after another
        def __init__(self, target: Any, **_kw: Any) -> None:
            self.target = target

        def start(self) -> None:
            self.target()

        def join(self) -> None:
            pass

    monkeypatch.setattr(threading, "Thread", Inline)
    assert fed == gzip_parts(data)


def test_a_part_that_fails_fails_the_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    real = deflate._deflate

    def failing(part: bytes, primer: bytes, last: bool) -> bytes:
        if primer and not last:
            raise MemoryError("no room for the deflate state")
        return real(part, primer, last)

    monkeypatch.setattr(deflate, "_deflate", failing)
    before = threading.active_count()
    with pytest.raises(MemoryError, match="no room"):
        gzip_parts(_text(3 * deflate.PART_BYTES))
    assert threading.active_count() == before  # every part's thread has ended
