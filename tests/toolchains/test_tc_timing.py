"""MLIR timing reports -> per-pass seconds keyed by pass argument."""

from __future__ import annotations

from ascend_ir_lab.dumps.timing import PassTime, by_argument, parse_report

# As printed by triton-ascend 3.2 with MLIR_ENABLE_TIMING=1 (copied from a real ttir log).
REPORT = """\
===-------------------------------------------------------------------------===
                         ... Execution time report ...
===-------------------------------------------------------------------------===
  Total Execution Time: 0.0126 seconds

  ----Wall Time----  ----Name----
    0.0018 ( 14.4%)  Inliner
    0.0000 (  0.1%)    (A) CallGraph
    0.0014 ( 11.5%)  'tt.func' Pipeline
    0.0001 (  1.0%)    Canonicalizer
    0.0001 (  0.5%)  TritonCombineOps
    0.0001 (  0.6%)  Canonicalizer
    0.0087 ( 69.4%)  Rest
    0.0126 (100.0%)  Total
module {
}
"""


def test_parse_report_keeps_passes_only() -> None:
    assert parse_report(REPORT) == [
        PassTime("Inliner", 0.0018, 0),
        PassTime("Canonicalizer", 0.0001, 1),
        PassTime("TritonCombineOps", 0.0001, 0),
        PassTime("Canonicalizer", 0.0001, 0),
    ]


def test_by_argument_numbers_repeats() -> None:
    names = {"Inliner": "inline", "Canonicalizer": "canonicalize"}
    assert by_argument(parse_report(REPORT), names) == {
        "inline": 0.0018,
        "canonicalize": 0.0001,
        "TritonCombineOps": 0.0001,
        "canonicalize#2": 0.0001,
    }


def test_no_report_no_rows() -> None:
    assert parse_report("module {\n}\n") == []
