"""`%%mlir_opt TOOL --pass-pipeline '...'` through a real IPython shell, with the real
bishengir-opt (ascendnpu-ir)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from nb_helpers import needs_ascend, run_cell, shown

from ascend_ir_lab.notebook.explorer import RunView

pytestmark = [pytest.mark.ascend, needs_ascend]

MLIR = """func.func @f(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %b = arith.addi %a, %c0 : i32
  %c = arith.addi %b, %b : i32
  %d = arith.addi %b, %b : i32
  %e = arith.addi %c, %d : i32
  return %e : i32
}
"""


@pytest.fixture(scope="module")
def folded(shell: InteractiveShell, runs_dir: Path) -> tuple[Any, Any]:
    line = (
        f"%%mlir_opt bishengir-opt --pass-pipeline 'builtin.module(func.func(canonicalize,cse))' "
        f"--name fold --runs-dir {runs_dir}"
    )
    return run_cell(shell, f"{line}\n{MLIR}")


def test_registered_beside_the_triton_ir_alias(shell: InteractiveShell) -> None:
    cell_magics = shell.magics_manager.magics["cell"]
    assert {"mlir_opt", "triton_ir", "triton_npu"} <= set(cell_magics)


def test_cell_runs_through_the_tool_into_a_run(
    shell: InteractiveShell, folded: tuple[Any, Any]
) -> None:
    result, io = folded
    view = result.result
    assert result.success and isinstance(view, RunView), shown(io)
    assert shell.user_ns["_"] is view
    assert view.manifest["toolchain"] == "opt" and view.status == "ok"
    assert [s["name"] for s in view.stages] == ["bishengir-opt"]
    command = view.stages[0]["command"]
    assert "--mlir-print-ir-after-all" in command and "--mlir-timing" in command
    assert [d.arg for d in view.timeline.dumps][:2] == ["canonicalize", "cse"]
    assert {"canonicalize", "cse"} <= set(view.stages[0]["timings"])
    last = view.show("last")
    assert "arith.constant" not in last and last.count("arith.addi") == 2
    assert (view.path / "artifacts" / "input.mlir").read_text() == MLIR


def test_the_run_is_reachable_from_ir_diff(
    folded: tuple[Any, Any], shell: InteractiveShell
) -> None:
    result, io = run_cell(shell, "%ir_diff fold:cse")
    assert result.success, shown(io)
    diff = str(result.result)
    assert "fold #1 bishengir-opt:cse" in diff
    assert "-  %2 = arith.addi %0, %1 : i32" in diff  # cse merged the duplicate addi
    assert "+  %1 = arith.addi %0, %0 : i32" in diff


@pytest.mark.parametrize(
    ("line", "body", "expected"),
    [
        ("bishengir-opt --pass-pipeline no-such-pass", MLIR, "'no-such-pass' does not refer"),
        ("bishengir-opt --pass-pipeline cse", "func.func @g( {\n", "error:"),
        ("no-such-opt --pass-pipeline cse", MLIR, "no-such-opt not found"),
        ("bishengir-opt --pass-pipeline cse", "\n  \n", "the cell holds no MLIR"),
    ],
    ids=["unknown-pass", "parse-error", "missing-tool", "empty-cell"],
)
def test_failures_show_a_panel_not_a_traceback(
    shell: InteractiveShell, runs_dir: Path, line: str, body: str, expected: str
) -> None:
    result, io = run_cell(shell, f"%%mlir_opt {line} --runs-dir {runs_dir}\n{body}")
    text = shown(io)
    assert result.success and expected in text
    assert "Traceback" not in text


def test_tool_args_reach_the_tool(shell: InteractiveShell, runs_dir: Path) -> None:
    result, io = run_cell(
        shell,
        f"%%mlir_opt bishengir-opt --pass-pipeline 'builtin.module(canonicalize)' "
        f"--tool-arg=--mlir-print-ir-before-all --name before --runs-dir {runs_dir}\n{MLIR}",
    )
    view = result.result
    assert isinstance(view, RunView), shown(io)
    assert {d.phase for d in view.timeline.dumps} >= {"before", "after"}
