"""The sync checker on the committed real matmul logs (no compiler needed), and what it
recognises of cross-core and distributed sync."""

from __future__ import annotations

from ascend_ir_lab.analysis.sync_check import check_sync
from ascend_ir_lab.analysis.sync_mutate import run_mutations
from ascend_ir_lab.analysis.sync_timeline import check_timeline, final_hivm, sync_targets
from ascend_ir_lab.dumps import read_log
from tests.conftest import ASCEND

FINE = ASCEND / "matmul.bishengir.log.gz"
BARRIER = ASCEND / "matmul.bishengir.barrier-all.log.gz"


def test_the_checked_dumps_are_after_the_sync_pass_and_the_final_ir() -> None:
    tl = read_log(FINE)
    targets = sync_targets(tl)
    assert [d.label for d in targets[:-1]] == ["hivm-graph-sync-solver"] * 2
    final = final_hivm(tl)
    assert targets[-1] is final and final is not None
    assert final.label != "convert-hivm-to-std"  # library calls hide the macro ops' own sync


def test_no_definite_finding_on_fine_and_barrier_all() -> None:
    for path in (FINE, BARRIER):
        for index, result in check_timeline(read_log(path)).items():
            assert not result.definite, f"{path.name} #{index}: " + "\n".join(result.lines())


def test_a_moved_wait_is_a_hazard_at_the_op_it_guarded() -> None:
    tl = read_log(FINE)
    final = final_hivm(tl)
    assert final is not None
    lines = tl.lines(final)
    k = next(i for i, s in enumerate(lines) if "wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]" in s)
    guarded = next(i for i in range(k + 1, len(lines)) if "hivm.hir.v" in lines[i])
    moved = lines[:k] + lines[k + 1 : guarded + 1] + [lines[k]] + lines[guarded + 1 :]
    hits = [f for f in check_sync(moved).findings if f.kind == "hazard" and f.line == guarded - 1]
    assert hits and hits[0].pipes == ("PIPE_MTE2", "PIPE_V") and hits[0].severity == "definite"
    assert hits[0].other_line is not None and "hivm.hir.load" in moved[hits[0].other_line]


def test_mutations_of_the_final_ir_are_found() -> None:
    tl = read_log(FINE)
    final = final_hivm(tl)
    assert final is not None
    results = run_mutations(tl.lines(final), limit=2)
    assert {r.mutant.kind for r in results} == {
        "delete-wait",
        "delete-set",
        "move-wait",
        "drop-barrier",
    }
    assert all(r.found for r in results), [
        (r.mutant.kind, r.mutant.line) for r in results if not r.found
    ]


def test_cross_core_and_distributed_primitives_are_recognised() -> None:
    # the shapes the ops print in: triton-distributed in TTIR, and after conversion to HIVM
    text = [
        "module {",
        "  func.func @k(%arg0: i64) {",
        "    %0 = distributed.symm_at %arg0, %c1 : i64",
        "    distributed.notify %0, %c1 : i64",
        "    distributed.wait %0, %c1 : i64",
        '    hivm.hir.custom "dist.aclshmem_barrier_all" ins() outs()',
        "    hivm.hir.sync_block_wait[<VECTOR>, <PIPE_MTE2>, <PIPE_S>] flag = 3",
        "    return",
        "  }",
        "}",
    ]
    result = check_sync(text)
    assert result.distributed == [2, 3, 4, 5]
    assert result.cross_core == [6]
    hang = [f for f in result.findings if f.kind == "cross-core-hang"]
    assert [(f.line, f.severity) for f in hang] == [(6, "definite")]
