"""Pass-level reproducers re-run with bishengir-opt / triton-adapter-opt and match."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.toolchains.ascend.repro import make_reproducer, pass_pipeline, reproduce
from ascend_ir_lab.toolchains.common.run import Run

from .conftest import needs_ascend

pytestmark = [pytest.mark.ascend, needs_ascend]


@pytest.mark.parametrize("name", ["vadd", "matmul"])
def test_sync_solver_reproducer_matches_and_injects_flags(
    fine_runs: dict[str, Run], name: str
) -> None:
    run = fine_runs[name]
    tl = run.timeline
    which = (
        f"hivm-graph-sync-solver#{len([d for d in tl.dumps if d.arg == 'hivm-graph-sync-solver'])}"
    )
    result = reproduce(run, which)
    assert result.returncode == 0 and result.match, "\n".join(result.diff)
    repro = result.reproducer
    assert repro.pipeline == "builtin.module(func.func(hivm-graph-sync-solver))"
    # the pass injects set_flag into its function (others may have had theirs already)
    before = repro.before.read_text().count("hivm.hir.set_flag")
    assert repro.output.read_text().count("hivm.hir.set_flag") > before
    assert repro.command[0].endswith("bishengir-opt")
    assert "--pass-pipeline=" in repro.shell()


def test_module_pass_and_adapter_pass_with_command_options(fine_runs: dict[str, Run]) -> None:
    run = fine_runs["vadd"]
    assert reproduce(run, "convert-hivm-to-std").match
    result = reproduce(run, "adapter:triton-to-linalg")
    assert result.match
    assert "named-ops=True" in result.reproducer.pipeline


def test_first_dump_of_a_stage_starts_from_the_stage_input(
    fine_runs: dict[str, Run], tmp_path: Path
) -> None:
    run = fine_runs["vadd"]
    first = next(d for d in run.timeline.dumps if d.stage == "bishengir")
    repro = make_reproducer(run, first.index, tmp_path / "r")
    assert repro.before.read_text() == (run.path / "artifacts" / "bishengir-input.mlir").read_text()


def test_non_module_scope_runs_are_refused(tmp_path: Path, fine_runs: dict[str, Run]) -> None:
    import json
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(fine_runs["vadd"].path, copy)
    manifest = json.loads((copy / "run.json").read_text())
    manifest["extra"]["module_scope"] = False
    (copy / "run.json").write_text(json.dumps(manifest))
    with pytest.raises(InputError, match="--module-scope"):
        make_reproducer(copy, "hivm-graph-sync-solver")
    with pytest.raises(InputError, match="reproducers exist for stages"):
        make_reproducer(copy, "ttir:cse")


class _D:
    def __init__(self, arg: str, scope: str, options: str = "") -> None:
        self.arg, self.scope, self.options, self.index, self.pass_name = arg, scope, options, 0, arg


def test_pipeline_nesting_follows_scope() -> None:
    assert pass_pipeline(_D("cse", "builtin.module")) == "builtin.module(cse)"
    assert pass_pipeline(_D("x", "func.func @k", "{a=1}")) == "builtin.module(func.func(x{a=1}))"
    assert (
        pass_pipeline(_D("y", "func.func @k"), ["--y=b=2"]) == "builtin.module(func.func(y{b=2}))"
    )


@pytest.mark.parametrize("name", ["matmul", "attention"])
def test_sync_pass_reproduced_on_each_function_of_a_mix_kernel_alone(
    fine_runs: dict[str, Run], name: str
) -> None:
    run = fine_runs[name]
    dumps = [d for d in run.timeline.dumps if d.arg == "hivm-graph-sync-solver"]
    assert {d.scope.split("_")[-1] for d in dumps} >= {"aic", "aiv"}
    for d in dumps:
        result = reproduce(run, d.index)
        repro = result.reproducer
        assert result.returncode == 0 and result.match, result.summary() + "\n".join(result.diff)
        assert repro.symbol == d.scope.split("@")[1]
        # the re-run saw @F alone: no other function was given the pass a second time
        out = repro.output.read_text()
        assert out.count("func.func @") == 1
        want = run.timeline.text(d)
        if d.scope.endswith(("_mix_aic", "_mix_aiv")):
            own = want.split(f"@{repro.symbol}(")[1].split("\n  }")[0]
            assert out.count("hivm.hir.set_flag") == own.count("hivm.hir.set_flag") > 0


def test_a_mismatch_is_reported_with_its_diff(fine_runs: dict[str, Run], tmp_path: Path) -> None:
    from ascend_ir_lab.toolchains.ascend.repro import run_reproducer

    repro = make_reproducer(fine_runs["matmul"], "hivm-graph-sync-solver", tmp_path / "r")
    lines = repro.expected.read_text().splitlines()
    k = next(i for i, s in enumerate(lines) if "hivm.hir.wait_flag" in s and "@" not in s)
    repro.expected.write_text("\n".join(lines[:k] + lines[k + 1 :]) + "\n")
    result = run_reproducer(repro)
    assert result.returncode == 0 and not result.match
    assert any(s.startswith("+") and "wait_flag" in s for s in result.diff)
    assert "output differs from the recorded dump (1 lines)" in result.summary()


def test_repro_sh_runs_in_a_fresh_shell(fine_runs: dict[str, Run], tmp_path: Path) -> None:
    import subprocess

    repro = make_reproducer(fine_runs["vadd"], "hivm-graph-sync-solver", tmp_path / "r")
    assert repro.script is not None
    done = subprocess.run(
        ["/bin/sh", str(repro.script)], env={"PATH": "/usr/bin:/bin"}, capture_output=True,
        text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (repro.folder / "output.mlir").read_text().count("hivm.hir.set_flag") > 0


@pytest.mark.parametrize("core", ["aic", "aiv"])
def test_repro_sh_of_a_mix_kernel_half_runs_with_env_i_bash(
    fine_runs: dict[str, Run], core: str, tmp_path: Path
) -> None:
    import subprocess

    from ascend_ir_lab.toolchains.ascend.repro import run_reproducer

    run = fine_runs["matmul"]
    dump = next(
        d for d in run.timeline.dumps
        if d.arg == "hivm-graph-sync-solver" and d.scope.endswith(f"_mix_{core}")
    )  # fmt: skip
    repro = make_reproducer(run, dump.index, tmp_path / core)
    assert repro.script is not None
    done = subprocess.run(
        ["env", "-i", "bash", str(repro.script)], cwd="/", capture_output=True, text=True,
        timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    fresh_shell = repro.output.read_text()
    result = run_reproducer(repro)  # the same command from Python, compared with the dump
    assert result.match, result.summary() + "\n".join(result.diff)
    assert repro.output.read_text() == fresh_shell


@pytest.mark.parametrize(
    ("arg", "scope", "options"),
    [
        ("snapshot-op-locations", "builtin.module", "{filename=/tmp/owned.mlir}"),  # writes it
        ("inject-ir", "builtin.module", "{file-path=/etc/passwd}"),  # reads it into the IR
        ("gpu-module-to-binary", "builtin.module", "{toolkit=/tmp/evil}"),  # runs its tools
        ("inline", "builtin.module", "{default-pipeline=snapshot-op-locations{filename=/x}}"),
        ("canonicalize", "builtin.module", "{max-iterations=1 dump-file=/x}"),
        ("cse", "func.func),snapshot-op-locations{filename=/x},func.func(cse", ""),
        ("cse)", "builtin.module", ""),
    ],
)
def test_a_pass_that_would_touch_a_file_a_stranger_named_is_not_re_run(
    arg: str, scope: str, options: str
) -> None:
    """A Run's pass names, options and scopes come from its log, which may be anyone's:
    `repro`/`report --which` of it must not write, read or run what that log names."""
    with pytest.raises(InputError, match="not re-run"):
        pass_pipeline(_D(arg, scope, options))
    # the options a command gives a pass: the same
    if not options:
        return
    with pytest.raises(InputError, match="not re-run"):
        pass_pipeline(_D(arg, scope), [f"--{arg}={options[1:-1]}"])


def test_plain_pass_options_are_kept() -> None:
    spec = "{max-iterations=10 region-simplify=normal test-convergence=false top-down=true}"
    assert pass_pipeline(_D("canonicalize", "func.func @k", spec)) == (
        f"builtin.module(func.func(canonicalize{spec}))"
    )
    spec = "{enable-auto-multi-buffer=true sync-solver=true}"
    assert pass_pipeline(_D("hivm-x", "builtin.module", spec)) == f"builtin.module(hivm-x{spec})"


def test_options_that_only_look_like_file_options_are_kept() -> None:
    for spec in ("{direction=forward}", "{profile-guided=true}", "{outline-fn=true}"):
        assert pass_pipeline(_D("p", "builtin.module", spec)) == f"builtin.module(p{spec})"
