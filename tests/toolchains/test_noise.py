"""Identical compiles compare equal; fine vs barrier-all diverges first at the sync pass."""

from __future__ import annotations

from typing import Any

import pytest

from ascend_ir_lab.analysis.compare import compare
from ascend_ir_lab.analysis.noise import measure_noise
from ascend_ir_lab.cli import main
from ascend_ir_lab.dumps import open_timeline
from tests.toolchains.conftest import NAMES, needs_ascend

pytestmark = needs_ascend


@pytest.mark.parametrize("name", NAMES)
def test_identical_compiles_compare_equal_up_to_measured_noise(
    name: str, fine_runs: dict[str, Any], again_runs: dict[str, Any]
) -> None:
    a, a2 = open_timeline(fine_runs[name].path), open_timeline(again_runs[name].path)
    noise = measure_noise([a, a2])
    result = compare(a, a2, "fine", "again")
    # whatever still differs in canonical form is exactly what the noise measurement names
    assert {p.a.index for p in result.differing if p.a is not None} == noise.noisy
    assert not result.only_a and not result.only_b and not result.substituted
    with_noise = compare(a, a2, "fine", "again", noise=noise)
    assert with_noise.first_real is None


@pytest.mark.parametrize("name", NAMES)
def test_fine_vs_barrier_all_first_real_divergence_is_the_sync_pass(
    name: str, fine_runs: dict[str, Any], again_runs: dict[str, Any], barrier_runs: dict[str, Any]
) -> None:
    a, a2 = open_timeline(fine_runs[name].path), open_timeline(again_runs[name].path)
    b = open_timeline(barrier_runs[name].path)
    result = compare(a, b, "fine", "barrier", noise=measure_noise([a, a2]))
    first = result.first_real
    assert first is not None and first.a is not None and first.b is not None
    assert (first.a.label, first.b.label) == ("hivm-graph-sync-solver", "hivm-inject-sync")
    text = "\n".join(result.lines())
    assert "first real divergence: hivm-graph-sync-solver" in text


def test_cli_diff_against_with_noise_build(
    fine_runs: dict[str, Any], again_runs: dict[str, Any], barrier_runs: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    a, a2, b = (str(r["matmul"].path) for r in (fine_runs, again_runs, barrier_runs))
    assert main(["diff", a, "--against", a2]) == 0
    out = capsys.readouterr().out
    assert main(["diff", a, "--against", b, "--noise", a2]) == 0
    noisy = capsys.readouterr().out
    assert "first real divergence: hivm-graph-sync-solver (func.func @matmul_mix_aic)" in noisy
    assert "noise (varies between 2 identical compiles" in noisy
    assert "first divergence" in out or "every pass prints the same IR" in out


def test_determinism_of_a_run_from_the_cli_and_the_notebook(
    fine_runs: dict[str, Any], tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    import json
    import shutil

    from ascend_ir_lab.notebook.explorer import RunView

    run = tmp_path / "vadd"
    shutil.copytree(fine_runs["vadd"].path, run)
    assert main(["determinism", str(run), "-n", "2", "--json", "-o", str(tmp_path / "b")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["builds"] == 2 and data["dumps"] > 100
    assert data["deterministic"] and data["noisy"] == []
    view = RunView.of(fine_runs["vadd"].__class__(run))
    noise = view.determinism(2)  # compiles once into RUN/noise/again-1, reused after
    assert noise.deterministic and (run / "noise" / "again-1" / "run.json").is_file()
    assert "every pass gives the same canonical IR" in repr(noise)


@pytest.mark.parametrize("name", NAMES)
def test_identical_compiles_are_equal_in_canonical_form(
    name: str, fine_runs: dict[str, Any], again_runs: dict[str, Any]
) -> None:
    # what varies (numbering, loop-carried order, which workspace gets which offset) is
    # canonicalised away: no pass of two identical compiles differs
    a, a2 = open_timeline(fine_runs[name].path), open_timeline(again_runs[name].path)
    assert measure_noise([a, a2]).noisy == set()
    assert compare(a, a2, "fine", "again").differing == []
