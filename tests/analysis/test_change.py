""" "What did this pass change": one answer, asked the same way by the CLI and the notebook."""

from __future__ import annotations

import pytest

from ascend_ir_lab.analysis.align import counterpart
from ascend_ir_lab.analysis.change import pass_change
from ascend_ir_lab.cli import main
from ascend_ir_lab.dumps import read_log
from ascend_ir_lab.notebook.explorer import RunView
from tests.conftest import ASCEND

BEFORE_ONLY = ASCEND / "vadd.ttir-passes.log"  # triton prints only before-dumps


def test_a_before_dump_compares_with_the_next_state_of_its_scope() -> None:
    tl = read_log(BEFORE_ONLY)
    first = tl.dumps[0]
    change = pass_change(tl, first)
    assert change.old is first and change.new is not None and change.new.index > first.index
    assert change.note == ""


def test_the_last_before_dump_says_nothing_follows_it_in_every_view(
    capsys: pytest.CaptureFixture[str],
) -> None:
    tl = read_log(BEFORE_ONLY)
    last = next(d for d in reversed(tl.dumps) if tl.following(d) is None)
    note = pass_change(tl, last).note
    assert "last state" in note and "nothing follows it" in note
    assert str(RunView(tl).diff(last.index)) == note
    assert main(["diff", str(BEFORE_ONLY), str(last.index)]) == 0
    assert capsys.readouterr().out.strip() == f"# {note}"


def test_the_first_after_dump_says_nothing_before_it_in_every_view(
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = ASCEND / "vadd.adapter.log"
    tl = read_log(log)
    first = next(d for d in tl.dumps if d.phase == "after" and tl.previous(d) is None)
    note = pass_change(tl, first).note
    assert "first state" in note and "nothing before it" in note
    assert str(RunView(tl).diff(first.index)) == note
    assert main(["diff", str(log), str(first.index)]) == 0
    assert capsys.readouterr().out.strip() == f"# {note}"


def test_a_pass_pairs_with_itself_and_a_missing_pass_with_its_place() -> None:
    fine = read_log(ASCEND / "matmul.bishengir.log.gz")
    barrier = read_log(ASCEND / "matmul.bishengir.barrier-all.log.gz")
    solver = fine.select("hivm-graph-sync-solver")
    there = counterpart(fine, solver, barrier)
    assert there is not None and there.scope == solver.scope
    assert there.arg != "hivm-graph-sync-solver"  # barrier-all never runs it: its stand-in
    same = fine.dumps[0]
    assert counterpart(fine, same, fine) is same


def test_the_ir_a_pass_crashed_on_says_so(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`opt -print-on-crash`: after the stack dump, the IR the crashing pass started on."""
    log = tmp_path / "crash.log"
    log.write_bytes(
        b"; *** IR Dump After SROAPass on f ***\ndefine void @f() {\n  ret void\n}\n"
        b"opt: lib/Transforms/InstCombine/InstructionCombining.cpp:4512: Assertion `V' failed.\n"
        b"PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/\n"
        b"Stack dump:\n0.\tProgram arguments: opt -O2 k.ll\n"
        b"*** Dump of IR Before Last Pass InstCombinePass Started ***\n"
        b"define void @f() {\n  ret void\n}\n"
    )
    tl = read_log(log)
    crashed = tl.dumps[-1]
    assert (crashed.pass_name, crashed.phase, crashed.options) == (
        "InstCombinePass",
        "before",
        "crash",
    )
    assert tl.change_states() == ["changed", "unknown"]
    assert "crashed on" in pass_change(tl, crashed).note
    assert "Stack dump:" in [m.text for m in tl.messages]  # the crash report stays text
