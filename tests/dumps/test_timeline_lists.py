"""The Timeline's whole lists (snapshot ids, neighbours) say what its per-Dump answers say."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascend_ir_lab.dumps import open_timeline
from tests.conftest import ASCEND, DATA


@pytest.mark.parametrize(
    "log",
    [
        ASCEND / "matmul.bishengir.log.gz",  # function-scope dumps, many repeated
        ASCEND / "softmax.bishengir.before-all.log.gz",  # before-dumps: the next state counts
        DATA / "llvm" / "loop.after-all.log",  # loop and function units
    ],
    ids=lambda p: p.name,
)
def test_whole_lists_match_the_answers_per_dump(log: Path) -> None:
    tl = open_timeline(log)
    snaps, (before, after) = tl.snapshot_ids(), tl.neighbours()
    assert snaps == [tl.snapshot(d) for d in tl.dumps]
    prev = [tl.previous(d) for d in tl.dumps]
    nxt = [tl.following(d) for d in tl.dumps]
    assert before == [-1 if p is None else p.index for p in prev]
    assert after == [-1 if n is None else n.index for n in nxt]
    assert len(set(snaps)) == tl.snapshot_count() < len(tl.dumps)  # some IR repeats
