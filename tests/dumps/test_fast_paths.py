"""The reader's and the commands' fast paths give what the plain ways give: snapshot ids by
length and bytes, one op counted from its own lines, terminal text kept as it is; and header
forms met outside the project's own logs (MLIR's generic form after a failed pass)."""

from __future__ import annotations

import gzip
import random
import re
from pathlib import Path

import pytest

from ascend_ir_lab.analysis.ops import Census, census_text, count_op, known_ops
from ascend_ir_lab.dumps import index_log, open_timeline, read_log
from ascend_ir_lab.dumps.body import infer_scope, split_region
from ascend_ir_lab.dumps.timeline import Timeline
from ascend_ir_lab.safe_text import _CONTROLS, _ESCAPES, for_terminal, visible
from tests.conftest import DATA


def _timeline(data: bytes) -> Timeline:
    idx = index_log(data, stage="log", log_id=0)
    from ascend_ir_lab.dumps.model import LogInfo

    return Timeline([(LogInfo("x.log", "log", len(data)), data)], idx.dumps, idx.messages)


def _dump(name: str, body: str) -> bytes:
    return f"// -----// IR Dump After {name} ({name.lower()}) //----- //\n{body}\n\n".encode()


def test_snapshot_ids_mean_equal_bytes_also_for_many_bodies_of_one_length() -> None:
    rng = random.Random(7)
    # Twenty distinct bodies of the same length (past the point where CRC-32 sorts them),
    # each printed several times in a random order, and a few of other lengths.
    bodies = [f"module {{\n  // {k:04d}\n}}" for k in range(20)] + [
        "module {\n}",
        "module {\n  x\n}",
    ]
    order = [rng.randrange(len(bodies)) for _ in range(200)]
    tl = _timeline(b"".join(_dump(f"P{n}", bodies[k]) for n, k in enumerate(order)))
    assert len(tl.dumps) == len(order)
    ids = [tl.snapshot(d) for d in tl.dumps]
    for a in range(len(order)):
        for b in range(len(order)):
            assert (ids[a] == ids[b]) == (order[a] == order[b])
    assert ids[0] == 0 and sorted(set(ids)) == list(range(len(set(order))))  # first-seen order
    assert tl.snapshot_count() == len(set(order))


@pytest.mark.parametrize(
    "name",
    ["ascend/matmul.bishengir.log.gz", "ascend/vadd.bishengir.module-scope.log.gz",
     "ascend/vadd.adapter.log", "triton/attention.cuda90.mlir-dump.txt.gz"],
)  # fmt: skip
def test_one_op_counted_from_its_lines_is_the_census_count(name: str) -> None:
    tl = open_timeline(DATA / name)
    census = Census(tl)
    ops = [*known_ops(tl, census), "hivm.hir.set_flag", "func.func", "bogus", "a.b", "scf.for("]
    for d in tl.dumps[::3]:
        full = census_text(tl.text(d), d.family)
        for op in ops:
            assert count_op(tl.text(d), op) == full.get(op, 0), (d.index, op)
    # and what a fresh Census answers for one op is what the full census says
    fresh = Census(tl)
    for d in tl.dumps:
        assert fresh.count(d, "hivm.hir.set_flag") == census.of(d).get("hivm.hir.set_flag", 0)


def test_one_op_count_reads_results_quotes_and_lookalikes() -> None:
    text = (
        '%0 = "test.op"() : () -> ()\n'
        "  %a, %b = test.op %x : i32\n"
        "  test.op.more %y\n"  # another op whose name starts the same
        "  %c = arith.addi %a, %b // test.op in a comment\n"
        "  test.op\n"
        "test.op{x}\n"
    )
    assert count_op(text, "test.op") == census_text(text)["test.op"] == 4


def _old_for_terminal(text: str) -> str:
    if not text.isprintable():
        text = _CONTROLS.sub("", _ESCAPES.sub("", text.replace("\r\n", "\n")))
    return visible(text)


@pytest.mark.parametrize(
    "text",
    ["plain\ntext\twith tabs\n", "a\r\nb\rc", "\x1b[31mred\x1b[0m", "bidi \u202e here", "é\u00ad\x9b1m",
     "\u2028line\u2029", "", "ok \x7f del", "\x1b]8;;http://x\x07link\x1b]8;;\x07"],
)  # fmt: skip
def test_terminal_text_fast_path_is_the_full_clean(text: str) -> None:
    assert for_terminal(text) == _old_for_terminal(text)


def test_generic_form_after_a_failed_pass_names_its_function() -> None:
    """`-mlir-print-ir-after-failure` prints IR that fails to verify in the generic form:
    the symbol is an attribute, and each function keeps its own predecessor chain."""
    log = (
        _dump("CSE", "func.func @foo() {\n  return\n}")
        + b"// -----// IR Dump After TestFailurePass Failed (test-pass-failure) //----- //\n"
        b'"func.func"() <{function_type = () -> (), sym_name = "foo"}> ({\n'
        b'  "func.return"() : () -> ()\n}) : () -> ()\n\n'
        + _dump("CSE", "func.func @bar() {\n  return\n}")
        + b"// -----// IR Dump After TestFailurePass Failed (test-pass-failure) //----- //\n"
        b'"scf.execute_region"() ({\n  "scf.yield"() : () -> ()\n}) : () -> ()\n\n'
    )
    tl = _timeline(log)
    assert [(d.pass_name, d.phase, d.scope) for d in tl.dumps] == [
        ("CSE", "after", "func.func @foo"),
        ("TestFailurePass", "failed", "func.func @foo"),
        ("CSE", "after", "func.func @bar"),
        ("TestFailurePass", "failed", "scf.execute_region"),
    ]
    assert tl.previous(1) is tl.dumps[0] and tl.previous(2) is None


def test_reader_is_byte_for_byte_lossless_on_a_concatenated_log(tmp_path: Path) -> None:
    parts = [gzip.decompress((DATA / "ascend/matmul.bishengir.log.gz").read_bytes()),
             (DATA / "llvm/changed.log").read_bytes(), (DATA / "ascend/failed.log").read_bytes()]  # fmt: skip
    path = tmp_path / "mixed.log"
    path.write_bytes(b"".join(parts) * 2)
    tl = read_log(path)
    data_bytes = path.read_bytes()
    segments = tl.logs[0].segments
    assert b"".join(data_bytes[s.start : s.end] for s in segments) == data_bytes
    assert all(
        re.search(rb"IR (Dump|Pass|Deleted)", data_bytes[d.start : d.body_start]) for d in tl.dumps
    )


def test_invalidated_loop_named_by_its_block_is_a_loop_of_the_printed_function() -> None:
    """`-print-after=loop-deletion` on a loop the pass deletes: the header names the loop by
    its header block and the whole function follows."""
    module = b"; ModuleID = 'm'\ndefine void @foo() {\n  br label %bb2\n\nbb2:\n  ret void\n}\n"
    log = (
        b"; *** IR Dump After VerifierPass on [module] ***\n" + module
        + b"; *** IR Dump After LoopDeletionPass on bb1 (invalidated) ***\n"
        b"define void @foo() {\n  br label %bb2\n\nbb2:                                   ; preds = %0\n"
        b"  ret void\n}\n"
        b"; *** IR Dump After NoOpFunctionPass on bb1 ***\ndefine void @bb1() {\n  ret void\n}\n"
        b"; *** IR Dump After GlobalDCEPass on [module] ***\n" + module
    )  # fmt: skip
    tl = _timeline(log)
    assert [(d.pass_name, d.scope, d.holds, d.truncated) for d in tl.dumps] == [
        ("VerifierPass", "module", "module", False),
        ("LoopDeletionPass", "loop %bb1 in function @foo", "function @foo", False),
        ("NoOpFunctionPass", "function @bb1", "function @bb1", False),  # a function named bb1
        ("GlobalDCEPass", "module", "module", False),
    ]
    assert tl.previous(3) is tl.dumps[0]


def test_bodies_that_open_with_aliases_name_the_scope_their_own_op_line_names() -> None:
    # Pass after pass prints the same aliases: what follows them differs from body to body
    # (another op, one more alias, an op line longer than the reader's look, a short body).
    aliases = "#map = affine_map<(d0) -> (d0)>\n#map1 = affine_map<(d0) -> (d0 + 1)>\n"
    long_attr = "a" * 600
    bodies = {
        aliases + "module {\n  func.func @f() {\n    return\n  }\n}": "builtin.module",
        aliases + "func.func @g(%arg0: i32) {\n  return\n}": "func.func @g",
        aliases + "#map2 = affine_map<(d0) -> (d0 * 2)>\nfunc.func @h() {\n  return\n}": (
            "func.func @h"
        ),
        aliases + f'module attributes {{x = "{long_attr}"}} {{\n}}': "builtin.module",
        aliases + f'func.func @k() attributes {{y = "{long_attr}"}} {{\n  return\n}}': (
            "func.func @k"
        ),
        aliases + "#map2 = affine_map<(d0) -> (d0 * 2)>\n}": "",
        "\n" + aliases + "func.func @g(%arg0: i32) {\n  return\n}": "func.func @g",
    }
    texts = list(bodies)
    rng = random.Random(3)
    order = [rng.randrange(len(texts)) for _ in range(120)]
    data = b"".join(_dump(f"P{n}", texts[k]) for n, k in enumerate(order))
    dumps = index_log(data, stage="log", log_id=0).dumps
    assert len(dumps) == len(order)
    for d, k in zip(dumps, order, strict=True):
        plain = infer_scope(data, d.body_start, d.body_end, "mlir")
        assert d.holds == d.scope == plain
        assert bodies[texts[k]] in ("", plain)  # "" where the test names no scope


class _Copies(bytes):
    """A log that remembers the longest slice taken of it."""

    longest = 0

    def __getitem__(self, key):  # type: ignore[no-untyped-def, override]
        part = super().__getitem__(key)
        if isinstance(key, slice):
            _Copies.longest = max(_Copies.longest, len(part))
        return part


def test_a_one_line_body_is_split_without_copying_the_log_before_it() -> None:
    """100,000 Dumps of `module {}` took 15 s to read (each copied the log up to itself)."""
    one = _dump("CSE", "module {}")
    data = _Copies(one * 20000)
    body_start = len(one) * 19999 + one.index(b"module")
    _Copies.longest = 0
    end, _, truncated = split_region(data, body_start, len(data), "mlir")
    assert data[body_start:end].rstrip() == b"module {}" and not truncated
    assert _Copies.longest < 4096
    tl = _timeline(one * 3)
    assert [tl.raw(d) for d in tl.dumps] == [b"module {}\n"] * 3
