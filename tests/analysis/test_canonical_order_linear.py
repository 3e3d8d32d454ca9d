"""The affine map of a view's offset is read in time linear in its line, as the patterns
that read it before read it: a line of `affine_map<` with no `>`, or a map term of many
blanks, took time quadratic in the line."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_ir_lab.analysis import canonical_order
from ascend_ir_lab.analysis.canonical_order import offset_variants

# the patterns that read them before (quadratic on the lines below); the expression is
# kept free of `>`, which no affine expression holds
_OLD_MAP = re.compile(r"affine_map<[^>]*?->\s*\((?P<expr>[^,>]*?)\)>")
_OLD_TERM = re.compile(r"^(?P<base>.*?)(?:\s*\+\s*(?P<k>\d+))?$")

_PIECES = [
    "affine_map<", "(d0)", "[s0]", " -> ", "->", "(", ")", ")>", ">", ",", " ", "s0", " * ",
    "20480", " + ", "+", "8192", "  ", "%6 = affine.apply ", "#map",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40), st.integers(0, 8))
def test_the_map_found_is_the_patterns(pieces: list[str], head: int) -> None:
    line = "".join(pieces)
    head = min(head, len(line))
    old = _OLD_MAP.search(line, head)
    new = canonical_order._map_of(line, head)
    assert (old and (old.span(), old["expr"])) == (new and (new.span(), new["expr"]))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["s0", " ", "+", "*", "2", "48", "\t", "x"]), max_size=30))
def test_the_constant_term_is_the_patterns(pieces: list[str]) -> None:
    expr = "".join(pieces)
    old = _OLD_TERM.match(expr)
    assert old is not None
    assert canonical_order._constant_term(expr) == (old["base"], int(old["k"] or 0))


def _view(apply: str) -> list[str]:
    return [
        "func.func @f(%arg2: memref<?xi8>) {",
        "  %c8192 = arith.constant 8192 : index",
        f"  %6 = affine.apply {apply}",
        "  %v = memref.view %arg2[%6][] : memref<?xi8> to memref<64xf32>",
        "}",
    ]


def test_hostile_maps_are_read_at_once(deadline: None) -> None:
    # 40 000 openings with no `>`, openings before an arrow with no result, a term of 40 000
    # blanks: each took minutes, each is read at once (the last as the map it is)
    assert canonical_order._find(_view("affine_map<" * 40_000)) == []
    assert canonical_order._find(_view("affine_map<" * 20_000 + "-> (x>" + ">")) == []
    blanks = "affine_map<()[s0] -> (s0" + " " * 40_000 + "+ 5)>()[%x]"
    assert [(w.offset, w.form) for w in canonical_order._find(_view(blanks))] == [(5, "s0 + {}")]
    assert len(offset_variants(_view(blanks))) == 1


def test_a_folded_constant_term_is_still_found() -> None:
    found = canonical_order._find(_view("affine_map<()[s0] -> (s0 * 20480 + 8192)>()[%x]"))
    assert [(w.offset, w.form) for w in found] == [(8192, "s0 * 20480 + {}")]
