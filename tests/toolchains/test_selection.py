"""A bare pass name means the occurrence that changed the kernel's own function."""

from __future__ import annotations

from typing import Any

import pytest

from ascend_ir_lab.cli import main
from ascend_ir_lab.dumps import open_timeline
from tests.toolchains.conftest import needs_ascend

pytestmark = needs_ascend


def test_bare_sync_pass_takes_the_mix_kernel_half_that_changed(fine_runs: dict[str, Any]) -> None:
    tl = open_timeline(fine_runs["matmul"].path)
    d = tl.select("hivm-graph-sync-solver")
    assert d.scope == "func.func @matmul_mix_aic" and tl.changed(d)
    assert tl.select("hivm-graph-sync-solver#1").scope.endswith("_infer_workspace_shape_function")
    note = tl.selection_note("hivm-graph-sync-solver")
    assert "took #3" in note and "of 4" in note and "@matmul_mix_aiv, changed it" in note
    assert tl.selection_note("hivm-graph-sync-solver#2") == ""
    vadd = open_timeline(fine_runs["vadd"].path)
    assert vadd.select("hivm-graph-sync-solver").scope == "func.func @vadd"


def test_cli_diff_of_a_bare_pass_shows_its_change_and_names_the_occurrence(
    fine_runs: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", str(fine_runs["matmul"].path), "hivm-graph-sync-solver"]) == 0
    out, err = capsys.readouterr()
    assert "+    hivm.hir.set_flag[" in out
    assert "identical" not in err
    assert "# hivm-graph-sync-solver: took #3 (dump" in err and "others: #1" in err
