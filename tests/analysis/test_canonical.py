"""The canonical form: what identical compiles vary in compares equal, real changes do not."""

from __future__ import annotations

from ascend_ir_lab.analysis.canonical import canonical_lines
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
