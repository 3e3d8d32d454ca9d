"""Op census, op lifecycle, normalisation, source locations and two-run alignment on real IR."""

from __future__ import annotations

from ascend_ir_lab.analysis.align import align, counterpart, first_divergence
from ascend_ir_lab.analysis.locations import aliases, ops_for_line, source_map
from ascend_ir_lab.analysis.normalize import Normalization, normalize_lines, strip_loc
from ascend_ir_lab.analysis.ops import Census, census_text, lifecycle, scope_text
from ascend_ir_lab.dumps import open_timeline, read_log
from tests.conftest import ASCEND

FINE = ASCEND / "matmul.bishengir.log.gz"
BARRIER = ASCEND / "matmul.bishengir.barrier-all.log.gz"


def test_which_pass_introduced_set_flag_is_one_call() -> None:
    tl = read_log(FINE)
    changes = lifecycle(tl, "hivm.hir.set_flag")
    assert [(c.arg, c.delta) for c in changes] == [
        ("hivm-graph-sync-solver", 7),
        ("hivm-graph-sync-solver", 13),
    ]
    assert Census(tl).count(tl.dumps[-1], "hivm.hir.set_flag") == 20


def test_barrier_all_has_no_set_flag_and_more_pipe_all() -> None:
    fine, barrier = read_log(FINE), read_log(BARRIER)
    assert lifecycle(barrier, "hivm.hir.set_flag") == []
    last_fine = fine.text(fine.dumps[-1])
    last_barrier = barrier.text(barrier.dumps[-1])
    assert last_barrier.count("PIPE_ALL") > last_fine.count("PIPE_ALL")
    assert "hivm.hir.wait_flag" not in last_barrier


def test_function_scope_log_credits_the_function_pass_not_the_module_dump() -> None:
    tl = read_log(ASCEND / "vadd.bishengir.log.gz")
    changes = lifecycle(tl, "hivm.hir.set_flag")
    assert [(c.arg, c.scope) for c in changes] == [("hivm-graph-sync-solver", "func.func @vadd")]
    tree = open_timeline(ASCEND / "vadd.bishengir.tree")
    assert [c.as_json() for c in lifecycle(tree, "hivm.hir.set_flag")][0]["pass"] == (
        "hivm-graph-sync-solver"
    )


def test_census_text_counts_generic_and_multi_result_ops() -> None:
    text = '  %0:2 = scf.for %i = %a to %b {\n  "tt.return"() : () -> ()\n  %x, %y = foo.bar %z\n'
    assert census_text(text) == {"scf.for": 1, "tt.return": 1, "foo.bar": 1}


def test_scope_text_finds_an_op_whose_symbol_follows_its_linkage() -> None:
    lines = ["module {", "  llvm.func internal fastcc @f() {", "    llvm.return", "  }",
             "  llvm.func @g() {", "    llvm.return", "  }", "}"]  # fmt: skip
    assert scope_text(lines, "llvm.func @f") == "\n".join(lines[1:4])
    assert scope_text(lines, "llvm.func @g") == "\n".join(lines[4:7])


def test_normalisation_drops_locations_and_names() -> None:
    tl = read_log(ASCEND / "vadd.ttir")
    lines = tl.lines(0)
    norm = normalize_lines(lines, Normalization.parse("loc,ssa"))
    assert not any("loc(" in s for s in norm)
    assert not any("%arg" in s or "%c1024" in s for s in norm)
    assert "tt.func public @vadd(%v0: !tt.ptr<f32>" in "\n".join(norm)
    assert strip_loc('x loc(fused["a"(#loc1), "b)"])') == "x"


def test_source_locations_map_python_lines_to_ops() -> None:
    tl = open_timeline(ASCEND / "vadd.ttir")
    lines = tl.lines(0)
    assert aliases(lines)
    src = (ASCEND.parent.parent / "kernels" / "vadd.py").read_text().splitlines()
    load_line = next(i + 1 for i, s in enumerate(src) if "tl.load" in s)
    hits = ops_for_line(lines, load_line, "vadd.py")
    assert hits and any("tt.load" in lines[i] for i in hits)
    pairs = source_map(lines, "vadd.py")
    assert (hits[0], load_line) in pairs


def test_pass_aligned_comparison_of_fine_and_barrier_all() -> None:
    fine, barrier = read_log(FINE), read_log(BARRIER)
    first = first_divergence(fine, barrier, Normalization.parse("loc"))
    assert first is not None and first.a is not None and first.b is not None
    # the two runs diverge before the sync passes (mix kernels print iter_args in varying
    # order), and the sync passes differ too
    pairs = align(fine, barrier)
    # barrier-all swaps the sync solver for hivm-inject-sync at the same place, per function
    swapped = [p for p in pairs if p.substituted]
    assert [(p.a.label, p.b.label) for p in swapped] == [  # type: ignore[union-attr]
        ("hivm-graph-sync-solver", "hivm-inject-sync")
    ] * 4
    assert all(p.a.scope == p.b.scope for p in swapped)  # type: ignore[union-attr]
    assert first.a.index < swapped[0].a.index  # type: ignore[union-attr]
    solver = fine.select("hivm-graph-sync-solver#4")
    assert counterpart(fine, solver, barrier) is barrier.select("hivm-inject-sync#4")
    assert len(pairs) == 386
    d = fine.select("hivm-plan-memory#3")
    other = counterpart(fine, d, barrier)
    assert other is not None and other.index == d.index
