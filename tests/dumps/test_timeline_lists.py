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


@pytest.mark.parametrize(
    "log",
    [
        ASCEND / "matmul.bishengir.log.gz",
        ASCEND / "softmax.bishengir.before-all.log.gz",
        DATA / "llvm" / "loop.after-all.log",
    ],
    ids=lambda p: p.name,
)
def test_one_dumps_change_state_read_alone_is_the_whole_lists(log: Path) -> None:
    alone = open_timeline(log)  # no snapshots known: each Dump compared with its neighbour
    states = [alone.change_state(d) for d in alone.dumps]
    assert alone._snap is None
    assert states == open_timeline(log).change_states()
    assert "changed" in states and "unchanged" in states
