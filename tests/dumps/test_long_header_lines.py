"""Header lines as long and as repetitive as a hostile log makes them are read like short
ones (each took seconds to minutes at 64 KB when the patterns backtracked quadratically)."""

from __future__ import annotations

from ascend_ir_lab.dumps import index_log
from ascend_ir_lab.dumps.headers import parse_header

N = 64 * 1024


def test_long_llvm_header() -> None:
    h = parse_header("; *** IR Dump After " + "P on (" * (N // 6) + " on f (invalidated) ***")
    assert h is not None and h.pass_name == "P" and h.options == "invalidated"
    assert h.scope.startswith("function @P on (P on") and h.scope.endswith("( on f")


def test_long_mlir_headers() -> None:
    h = parse_header("// -----// IR Dump After " + "x: {" * (N // 4) + " //----- //")
    assert h is not None and h.pass_name == "x: {" * (N // 4) and h.options == ""  # no options
    h = parse_header(
        "// -----// IR Dump After Cse (cse) ('func.func' operation: @" + "k" * N + ") //----- //"
    )
    assert h is not None and h.arg == "cse" and h.scope == "func.func @" + "k" * N
    h = parse_header("// -----// IR Dump After " + " ('a' operation: @" * (N // 17) + " //----- //")
    assert h is not None and h.family == "mlir" and h.scope == ""
    h = parse_header("// -----// tt internal IR Dump After: a" + " " * N + "x //----- //")
    assert h is not None and h.family == "mlir-internal" and h.pass_name.endswith("x")


def test_a_log_of_long_headers_reads_losslessly() -> None:
    body = b"module {\n}\n"
    log = (b"// -----// IR Dump After " + b"a (b" * (N // 4) + b" //----- //\n" + body) * 4
    idx = index_log(log, stage="s", log_id=0, first_index=0)
    assert len(idx.dumps) == 4
    assert b"".join(log[s.start : s.end] for s in idx.segments) == log
