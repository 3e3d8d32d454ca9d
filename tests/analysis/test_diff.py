"""Diffs are exact, readable and comparable with difflib's."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_ir_lab.analysis.diff import apply, hunks, opcodes, side_by_side, unified, word_marks
from ascend_ir_lab.dumps import read_log
from tests.conftest import ASCEND

lines = st.lists(st.sampled_from(["a", "b", "c", "}", "  %0 = x", ""]), max_size=40)


@settings(max_examples=300, deadline=None)
@given(a=lines, b=lines)
def test_opcodes_are_exact_and_contiguous(a: list[str], b: list[str]) -> None:
    ops = opcodes(a, b)
    assert apply(a, b, ops) == b
    i = j = 0
    for tag, i1, i2, j1, j2 in ops:
        assert (i1, j1) == (i, j)
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
        i, j = i2, j2
    assert (i, j) == (len(a), len(b))


@settings(max_examples=200, deadline=None)
@given(a=lines, b=lines)
def test_minimal_like_difflib_on_line_counts(a: list[str], b: list[str]) -> None:
    ours = sum(i2 - i1 + j2 - j1 for t, i1, i2, j1, j2 in opcodes(a, b) if t != "equal")
    ref = sum(
        i2 - i1 + j2 - j1
        for t, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        if t != "equal"
    )
    assert ours <= ref  # an LCS edit script is never longer than difflib's


def test_unified_diff_of_the_sync_pass_shows_set_flag() -> None:
    tl = read_log(ASCEND / "matmul.bishengir.log.gz")
    d = tl.select("hivm-graph-sync-solver#4")
    old, new = tl.change(d)
    assert old is not None and new is not None
    out = list(unified(tl.lines(old), tl.lines(new), a_name="before", b_name="after"))
    assert out[:2] == ["--- before", "+++ after"]
    added = [s for s in out if s.startswith("+") and "hivm.hir.set_flag" in s]
    assert len(added) == 13
    assert all(s.startswith(("@@", " ", "+", "-")) for s in out[2:])


def test_hunks_keep_context() -> None:
    a = [str(i) for i in range(20)]
    b = a[:5] + ["X"] + a[6:]
    (h,) = hunks(opcodes(a, b), context=2)
    assert (h.a_start, h.a_len, h.b_start, h.b_len) == (3, 5, 3, 5)


def test_side_by_side_marks_changed_words() -> None:
    a = ["  %0 = arith.addi %a, %b : i32", "same"]
    b = ["  %0 = arith.muli %a, %c : i32", "same"]
    rows = side_by_side(a, b)
    assert [r.tag for r in rows] == ["replace", "equal"]
    marked_a = [a[0][s:e] for s, e in rows[0].a_marks]
    marked_b = [b[0][s:e] for s, e in rows[0].b_marks]
    assert marked_a == ["arith.addi", "%b"] and marked_b == ["arith.muli", "%c"]


def test_word_marks_of_identical_lines_are_empty() -> None:
    assert word_marks("x = 1", "x = 1") == ((), ())


# Mostly disjoint sides: most lines of each are absent from the other (a pass that rewrites a
# function), which takes the path that sets such lines aside before the LCS.
rewritten = st.lists(st.sampled_from(["a", "}", "x1", "x2", "x3", "x4", "x5", "x6"]), max_size=40)
rewritten_b = st.lists(st.sampled_from(["a", "}", "y1", "y2", "y3", "y4", "y5", "y6"]), max_size=40)


@settings(max_examples=300, deadline=None)
@given(a=rewritten, b=rewritten_b)
def test_rewrites_are_exact_and_minimal(a: list[str], b: list[str]) -> None:
    ops = opcodes(a, b)
    assert apply(a, b, ops) == b
    ours = sum(i2 - i1 + j2 - j1 for t, i1, i2, j1, j2 in ops if t != "equal")
    ref = sum(
        i2 - i1 + j2 - j1
        for t, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        if t != "equal"
    )
    assert ours <= ref
    i = j = 0
    for tag, i1, i2, j1, j2 in ops:
        assert (i1, j1) == (i, j)
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
        i, j = i2, j2
    assert (i, j) == (len(a), len(b))
