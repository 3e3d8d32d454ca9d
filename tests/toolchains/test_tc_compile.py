"""Offline Ascend compile with the real tools: three stages, every pass, clear statuses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.toolchains.common.run import FORMAT, Run

from .conftest import NAMES, kernel_spec, needs_ascend

pytestmark = [pytest.mark.ascend, needs_ascend]


def _last_text(run: Run) -> str:
    tl = run.timeline
    return str(tl.text(tl.dumps[-1]))


@pytest.mark.parametrize("name", NAMES)
def test_three_real_stages_and_every_bishengir_pass(fine_runs: dict[str, Run], name: str) -> None:
    run = fine_runs[name]
    assert run.status == "ir-complete-no-binary"
    assert run.manifest["status"]["text"] == "IR complete, no binary (hivmc ships with CANN)"
    assert [s["name"] for s in run.stages] == ["ttir", "adapter", "bishengir"]
    counts = {s: sum(1 for d in run.timeline.dumps if d.stage == s) for s in run.timeline.stages}
    assert counts["ttir"] >= 8 and counts["adapter"] >= 10 and counts["bishengir"] >= 250
    assert run.stage("bishengir")["returncode"] == 1  # hivmc missing: not a crash


def test_manifest_follows_the_run_format(fine_runs: dict[str, Run]) -> None:
    run = fine_runs["vadd"]
    m = json.loads((run.path / "run.json").read_text())
    assert m["format"] == FORMAT and m["toolchain"] == "ascend" and m["target"] == "Ascend910B3"
    assert m["kernel"]["name"] == "vadd" and m["kernel"]["constexprs"] == {"BLOCK": 1024}
    assert m["kernel"]["signature"]["x_ptr"] == "*fp32"
    src = (run.path / m["kernel"]["source"]).read_text().splitlines()
    assert src[m["kernel"]["first_line"] - 1].startswith("def vadd(")
    assert m["versions"]["triton-ascend"] and m["versions"]["ascendnpu-ir"]
    assert m["versions"]["bishengir-compile"].startswith("bishengir-compile")
    assert "cann" in m["versions"]
    for stage in m["stages"]:
        assert (run.path / stage["log"]).is_file()
        assert isinstance(stage["command"], list) and stage["seconds"] >= 0
    assert m["stages"][0]["artifact"] == "artifacts/vadd.ttir"
    assert "--mlir-print-ir-after-all" in m["stages"][1]["command"]
    assert "--mlir-print-ir-module-scope" in m["stages"][2]["command"]


def test_bishengir_gets_triton_ascends_own_flags(fine_runs: dict[str, Run]) -> None:
    cmd = fine_runs["vadd"].stage("bishengir")["command"]
    for flag in (
        "--target=Ascend910B3",
        "--enable-auto-multi-buffer=True",
        "--enable-hfusion-compile=true",
        "--enable-hivm-compile=true",
        "--enable-triton-kernel-compile=true",
    ):
        assert flag in cmd


def test_adapter_stage_reproduces_triton_ascends_own_output(fine_runs: dict[str, Run]) -> None:
    run = fine_runs["softmax"]
    ours = (run.path / "artifacts" / "adapter.mlir").read_text()
    assert ours == (run.path / "artifacts" / "softmax.ttadapter").read_text()
    assert "mix_mode" not in (run.path / "artifacts" / "bishengir-input.mlir").read_text()


def test_ttir_stage_has_per_pass_timings(fine_runs: dict[str, Run]) -> None:
    timings = fine_runs["vadd"].stage("ttir")["timings"]
    assert {"inline", "canonicalize", "canonicalize#2", "cse"} <= set(timings)
    assert all(isinstance(v, float) and v >= 0 for v in timings.values())


def _sync_counts(text: str) -> tuple[int, int, int]:
    return text.count("hivm.hir.set_flag"), text.count("hivm.hir.wait_flag"), text.count("PIPE_ALL")


@pytest.mark.parametrize("name", ["vadd", "matmul"])
def test_barrier_all_has_no_flags_and_more_barriers(
    fine_runs: dict[str, Run], barrier_runs: dict[str, Run], name: str
) -> None:
    fine, barrier = (
        _sync_counts(_last_text(fine_runs[name])),
        _sync_counts(_last_text(barrier_runs[name])),
    )
    assert fine[0] > 0 and fine[1] > 0
    assert barrier[:2] == (0, 0)
    assert barrier[2] > fine[2]
    assert (
        "--enable-hivm-inject-barrier-all-sync=true"
        in barrier_runs[name].stage("bishengir")["command"]
    )


def test_diff_at_the_sync_pass_shows_the_swap(
    fine_runs: dict[str, Run], barrier_runs: dict[str, Run]
) -> None:
    from ascend_ir_lab.analysis.diff import unified

    fine_tl, bar_tl = fine_runs["vadd"].timeline, barrier_runs["vadd"].timeline
    a = fine_tl.lines(fine_tl.select("hivm-graph-sync-solver#2"))
    b = bar_tl.lines(bar_tl.select("hivm-inject-sync#2"))
    diff = list(unified(a, b))
    assert any(s.startswith("-") and "hivm.hir.set_flag" in s for s in diff)
    assert any(s.startswith("+") and "PIPE_ALL" in s for s in diff)


def test_unknown_flag_is_a_compile_error_with_command_and_tail(tmp_path: Path) -> None:
    from ascend_ir_lab.toolchains.ascend.compile import StageFailedError, compile_kernel

    info = kernel_spec("vadd")
    with pytest.raises(StageFailedError) as err:
        compile_kernel(
            info["spec"],
            signature=info["signature"],
            constexprs=info["constexprs"],
            bishengir_flags=["--no-such-flag"],
            out=tmp_path / "bad",
        )
    e = err.value
    assert e.stage == "bishengir" and e.returncode == 1 and "--no-such-flag" in e.command
    assert "Unknown command line argument '--no-such-flag'" in str(e)
    assert e.run.status == "compile-error" and e.run.stage("bishengir")["returncode"] == 1


def test_bad_kernel_fails_in_ttir_without_touching_stderr(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    from ascend_ir_lab.toolchains.ascend.compile import compile_kernel

    info = kernel_spec("vadd")
    run = compile_kernel(info["spec"], signature="x_ptr=*fp32", check=False, out=tmp_path / "r")
    assert run.status == "compile-error" and run.stages[-1]["name"] == "ttir"
    assert "CompilationError" in run.manifest["extra"]["ttir_error"]
    assert b"Traceback" in run.log("ttir")
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_kernel_object_and_default_location(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    from ascend_ir_lab.toolchains.ascend.compile import compile_kernel
    from ascend_ir_lab.toolchains.common.kernels import load_kernel

    monkeypatch.chdir(tmp_path)
    info: dict[str, Any] = kernel_spec("vadd")
    fn = load_kernel(info["spec"])
    first = compile_kernel(fn, signature=info["signature"], constexprs=info["constexprs"])
    second = compile_kernel(fn, signature=info["signature"], constexprs=info["constexprs"])
    assert first.path == tmp_path / ".ascend_ir_lab" / "runs" / "vadd"
    assert second.path.name == "vadd-2" and second.status == "ir-complete-no-binary"
    assert capfd.readouterr() == ("", "")  # every dump went into the Run, none to the user
