"""Search across passes and the sync lens, on real bishengir logs."""

from __future__ import annotations

import pytest

from ascend_ir_lab.analysis.search import search
from ascend_ir_lab.analysis.sync import sync_lens
from ascend_ir_lab.dumps import read_log
from ascend_ir_lab.errors import InputError
from tests.conftest import ASCEND

FINE = ASCEND / "matmul.bishengir.log.gz"
BARRIER = ASCEND / "matmul.bishengir.barrier-all.log.gz"


def test_search_finds_where_a_text_appears_and_which_pass_made_it() -> None:
    tl = read_log(FINE)
    hits = search(tl, "PIPE_ALL")
    assert hits.first == 348 and hits.last == len(tl.dumps) - 1
    assert [c.arg for c in hits.changes] == ["hivm-graph-sync-solver"] * 2
    assert len(hits.counts) == len(tl.dumps) and hits.counts[0] == 0


def test_search_by_regex_counts_like_the_op_census() -> None:
    tl = read_log(FINE)
    hits = search(tl, r"hivm\.hir\.(set|wait)_flag\[", regex=True)
    assert hits.counts[-1] == 40
    assert sum(c.delta for c in hits.changes) == 40


def test_search_reports_bad_regex_clearly() -> None:
    with pytest.raises(InputError, match="bad regular expression"):
        search(read_log(FINE), "a[", regex=True)


def test_sync_lens_pairs_flags_and_counts_barriers() -> None:
    fine, barrier = read_log(FINE), read_log(BARRIER)
    lens = sync_lens(fine.lines(fine.dumps[-1]))
    counts = lens.counts()
    assert counts["set_flag"] == counts["wait_flag"] == 20
    assert counts["pipe_barrier PIPE_ALL"] == 2
    for s, w in lens.pairs:
        assert (s.kind, w.kind) == ("set_flag", "wait_flag")
        assert s.args == w.args and s.line < w.line
    assert len(lens.pairs) * 2 + len(lens.unpaired) == 40
    after = sync_lens(barrier.lines(barrier.dumps[-1]))
    assert after.counts()["pipe_barrier PIPE_ALL"] == 77 and not after.pairs


def test_sync_lens_small_kernel_pairs_everything() -> None:
    tl = read_log(ASCEND / "vadd.bishengir.log.gz")
    lens = sync_lens(tl.lines(tl.dumps[-1]))
    assert len(lens.pairs) == 4 and not lens.unpaired
