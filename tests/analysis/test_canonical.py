"""The canonical form: what identical compiles vary in compares equal, real changes do not."""

from __future__ import annotations

from ascend_ir_lab.analysis.canonical import canonical_lines, comparable_lines
from ascend_ir_lab.analysis.normalize import Normalization, normalize_lines

# Two printings of one loop, as cv-pipelining emits them from one compile to the next: the
# loop-carried arguments swapped (and the yield with them), other SSA numbers, the #map
# aliases numbered the other way round, attribute entries in another order.
FIRST = """\
#map = affine_map<(d0) -> (d0 * 2)>
#map1 = affine_map<(d0) -> (d0 + 1)>
func.func @k(%arg0: memref<?xf16>, %arg1: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %0 = affine.apply #map(%arg1)
  %1 = affine.apply #map1(%arg1)
  %2:2 = scf.for %arg2 = %c0 to %c8 step %c8 iter_args(%arg3 = %0, %arg4 = %1) -> (index, index) {
    %3 = arith.addi %arg3, %c8 : index
    %4 = arith.muli %arg4, %c8 : index
    scf.yield %3, %4 : index, index
  } {a = 1 : i32, b = 2 : i32}
  %5 = arith.subi %2#0, %2#1 : index
  return
}"""
SECOND = """\
#map = affine_map<(d0) -> (d0 + 1)>
#map1 = affine_map<(d0) -> (d0 * 2)>
func.func @k(%arg0: memref<?xf16>, %arg1: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %10 = affine.apply #map1(%arg1)
  %11 = affine.apply #map(%arg1)
  %12:2 = scf.for %arg5 = %c0 to %c8 step %c8 iter_args(%arg6 = %11, %arg7 = %10) -> (index, index) {
    %13 = arith.addi %arg7, %c8 : index
    %14 = arith.muli %arg6, %c8 : index
    scf.yield %14, %13 : index, index
  } {b = 2 : i32, a = 1 : i32}
  %15 = arith.subi %12#1, %12#0 : index
  return
}"""


def test_permuted_loop_carried_arguments_compare_equal() -> None:
    a, b = canonical_lines(FIRST.splitlines()), canonical_lines(SECOND.splitlines())
    assert a == b
    assert not any(s.startswith("#map") for s in a)
    assert any("affine_map<(d0) -> (d0 * 2)>" in s for s in a)


def test_a_real_change_still_differs() -> None:
    swapped = SECOND.replace("%15 = arith.subi %12#1, %12#0", "%15 = arith.subi %12#0, %12#1")
    assert canonical_lines(FIRST.splitlines()) != canonical_lines(swapped.splitlines())
    other_op = FIRST.replace("arith.muli %arg4", "arith.divui %arg4")
    assert canonical_lines(FIRST.splitlines()) != canonical_lines(other_op.splitlines())


def test_canon_is_part_of_all_and_parses() -> None:
    assert Normalization.parse("all").canonical and Normalization.parse("canon").canonical
    assert normalize_lines(FIRST.splitlines(), Normalization.parse("canon")) == canonical_lines(
        SECOND.splitlines()
    )


# Two printings of one mix kernel's workspaces, as hivm-plan-memory hands them out from one
# compile to the next: A and B trade offsets (in both halves), and the two independent
# `to_tensor`s come in the other order. Before lower-memref-ext a workspace is an
# `alloc_workspace` at a constant offset; after it a `memref.view` at an offset whose map has
# the constant folded in.
HALF = """\
func.func @k_mix_{core}(%arg0: memref<?xi8>, %arg1: memref<?xf16>) {{
  %c0 = arith.constant 0 : index
  %c8192 = arith.constant 8192 : index
  %0 = memref_ext.alloc_workspace() from %arg0 offset = [%c8192] : from memref<?xi8> to memref<4x32xf16>
  %1 = memref_ext.alloc_workspace() from %arg0 offset = [%c0] : from memref<?xi8> to memref<4x32xf16>
  %2 = bufferization.to_tensor %0 restrict : memref<4x32xf16>
  %3 = bufferization.to_tensor %1 restrict : memref<4x32xf16>
  hivm.hir.{op} %0 : memref<4x32xf16>
  return
}}"""
LOWERED = """\
func.func @k_mix_{core}(%arg0: memref<?xi8>, %arg1: memref<?xf16>) {{
  %4 = hivm.hir.get_block_idx -> i64
  %5 = arith.index_cast %4 : i64 to index
  %6 = affine.apply affine_map<()[s0] -> (s0 * 20480 + 8192)>()[%5]
  %0 = memref.view %arg0[%6][] : memref<?xi8> to memref<4x32xf16>
  %7 = affine.apply affine_map<()[s0] -> (s0 * 20480)>()[%5]
  %1 = memref.view %arg0[%7][] : memref<?xi8> to memref<4x32xf16>
  hivm.hir.{op} %0 : memref<4x32xf16>
  return
}}"""


def _module(half: str) -> str:
    return half.format(core="aic", op="store") + "\n" + half.format(core="aiv", op="load")


def _swapped(text: str) -> str:
    """The other compile: A at 0 and B at 8192 in both halves, to_tensors the other way."""
    return (
        text.replace("offset = [%c8192]", "offset = [%cX]")
        .replace("offset = [%c0]", "offset = [%c8192]")
        .replace("offset = [%cX]", "offset = [%c0]")
        .replace("(s0 * 20480 + 8192)>", "(s0 * 20480 + Y)>")
        .replace("(s0 * 20480)>", "(s0 * 20480 + 8192)>")
        .replace("(s0 * 20480 + Y)>", "(s0 * 20480)>")
        .replace(
            "%2 = bufferization.to_tensor %0 restrict : memref<4x32xf16>\n"
            "  %3 = bufferization.to_tensor %1 restrict",
            "%3 = bufferization.to_tensor %1 restrict : memref<4x32xf16>\n"
            "  %2 = bufferization.to_tensor %0 restrict",
        )
        .replace("hivm.hir.store %0", "hivm.hir.store %1")
        .replace("hivm.hir.load %0", "hivm.hir.load %1")
    )


def test_workspaces_that_trade_offsets_compare_equal() -> None:
    for half in (HALF, LOWERED):
        text = _module(half)
        other = _swapped(text)
        assert other != text and "hivm.hir.load %1" in other
        assert comparable_lines(text.splitlines()) == comparable_lines(other.splitlines())


def test_workspace_changes_that_are_real_still_differ() -> None:
    for half in (HALF, LOWERED):
        text = _module(half)
        base = comparable_lines(text.splitlines())
        wrong_half = text.replace("hivm.hir.load %0", "hivm.hir.load %1")  # reads the other one
        overlap = text.replace("offset = [%c0]", "offset = [%c8192]").replace(
            "(s0 * 20480)>", "(s0 * 20480 + 8192)>"
        )  # both workspaces at one offset
        moved = text.replace("offset = [%c8192]", "offset = [%c4096]").replace(
            "+ 8192)>", "+ 4096)>"
        )  # another offset
        for changed in (wrong_half, overlap, moved):
            assert changed != text
            assert comparable_lines(changed.splitlines()) != base


def test_dependent_definitions_keep_their_order() -> None:
    text = """\
func.func @k(%arg0: index) {
  %0 = arith.addi %arg0, %arg0 : index
  %1 = arith.muli %0, %0 : index
  hivm.hir.set_flag[<PIPE_V>, <PIPE_S>, <EVENT_ID0>]
  %2 = arith.subi %1, %0 : index
  return
}"""
    lines = comparable_lines(text.splitlines())
    at = {
        op: next(i for i, s in enumerate(lines) if op in s)
        for op in ("addi", "muli", "set_flag", "subi")
    }
    assert at["addi"] < at["muli"] < at["set_flag"] < at["subi"]
