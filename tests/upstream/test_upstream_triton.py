"""Upstream Triton cross-compiles (cuda:90, cuda:80, hip:gfx942) into Runs, on a CPU."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from upstream_skips import KERNELS, needs_upstream

from ascend_ir_lab.dumps import open_timeline
from ascend_ir_lab.errors import CompilerError, InputError

pytestmark = [pytest.mark.gpu, needs_upstream]

ATTENTION = KERNELS / "attention.py"
SOFTMAX = KERNELS / "softmax.py"


def _compile(kernel: Path, out: Path, **kw):  # type: ignore[no-untyped-def]
    from ascend_ir_lab.toolchains.triton.compile import compile_kernel, compile_spec

    spec, sig, consts = compile_spec(str(kernel))
    return compile_kernel(spec, signature=sig, constexprs=consts, out=out, **kw)


def _by_stage(timeline):  # type: ignore[no-untyped-def]
    stages: dict[str, list] = {}
    for d in timeline.dumps:
        stages.setdefault(d.stage, []).append(d)
    return stages


@pytest.fixture(scope="module")
def attention_run(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return _compile(
        ATTENTION, tmp_path_factory.mktemp("att") / "run", target="cuda:90", llvm_dumps=False
    )


@pytest.fixture(scope="module")
def softmax_run(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return _compile(
        SOFTMAX, tmp_path_factory.mktemp("sm") / "run", target="cuda:90", llvm_dumps=True
    )


def test_attention_cuda90_has_the_four_stages_with_per_pass_dumps(attention_run) -> None:  # type: ignore[no-untyped-def]
    manifest = json.loads((attention_run.path / "run.json").read_text())
    assert manifest["toolchain"] == "triton" and manifest["target"] == "cuda:90"
    assert manifest["status"]["code"] == "ok"
    assert [s["name"] for s in manifest["stages"]] == ["ttir", "ttgir", "llir", "ptx"]
    stages = _by_stage(open_timeline(attention_run.path))
    assert len([d for d in stages["ttir"] if d.phase == "before"]) >= 10
    assert len([d for d in stages["ttgir"] if d.phase == "before"]) >= 30
    assert len([d for d in stages["llir"] if d.phase == "before"]) >= 15
    passes = {d.arg for d in stages["ttgir"]}
    assert {"tritongpu-pipeline", "tritongpu-accelerate-matmul"} <= passes
    # the attention kernel's two tl.dot become Hopper wgmma ops
    assert "ttng.warp_group_dot" in attention_run.file("artifacts/attention.ttgir").read_text()


def test_last_pass_of_each_stage_is_recoverable(attention_run) -> None:  # type: ignore[no-untyped-def]
    timeline = open_timeline(attention_run.path)
    stages = _by_stage(timeline)
    assert stages["ttir"][-1].phase == "artifact"  # before-only log: the .ttir is its output
    assert stages["ptx"][-1].phase == "artifact"
    for stage in attention_run.stages:
        artifact = attention_run.file(stage["artifact"])
        assert artifact.is_file() and artifact.stat().st_size > 1000, stage["name"]
    # the LLVM-dialect module after llir's last MLIR pass is kept too
    assert "llvm.func" in attention_run.file("artifacts/attention.llir.mlir").read_text()
    ptx = attention_run.file("artifacts/attention.ptx").read_text()
    assert ".target sm_90" in ptx and "wgmma" in ptx


def test_timings_per_pass_argument(attention_run) -> None:  # type: ignore[no-untyped-def]
    ttgir = attention_run.stage("ttgir")["timings"]
    assert "tritongpu-coalesce" in ttgir and all(v >= 0 for v in ttgir.values())
    assert attention_run.stage("ptx")["timings"], "LLVM_ENABLE_TIMING report not parsed"


def test_llvm_dumps_land_in_llir_and_ptx(softmax_run) -> None:  # type: ignore[no-untyped-def]
    stages = _by_stage(open_timeline(softmax_run.path))
    llir_after = [d for d in stages["llir"] if d.phase == "after"]
    assert len(llir_after) >= 50  # new-PM `; *** IR Dump After X on f ***`
    assert any(d.arg == "gvn" for d in stages["ptx"])  # legacy `*** ... (gvn) ***`
    log = softmax_run.log("ptx")
    assert b"# *** IR Dump After" in log  # machine IR
    assert softmax_run.manifest["extra"]["binary"]["artifact"].endswith("softmax.cubin")


@pytest.mark.parametrize("target, last", [("cuda:80", "ptx"), ("hip:gfx942", "amdgcn")])
def test_other_targets(tmp_path: Path, target: str, last: str) -> None:
    run = _compile(SOFTMAX, tmp_path / "run", target=target, llvm_dumps=False, timings=False)
    assert [s["name"] for s in run.stages] == ["ttir", "ttgir", "llir", last]
    assert run.status == "ok"
    assert len(open_timeline(run.path).dumps) > 60


def test_environment_fds_and_hook_are_restored(tmp_path: Path) -> None:
    from triton import knobs

    os.environ["MLIR_DUMP_PATH"] = "/nonexistent/keep-me"
    before_env = dict(os.environ)
    before_fd = (os.fstat(1).st_ino, os.fstat(2).st_ino)
    hook = knobs.runtime.add_stages_inspection_hook
    try:
        _compile(SOFTMAX, tmp_path / "run", llvm_dumps=False, timings=False)
        assert dict(os.environ) == before_env
    finally:
        del os.environ["MLIR_DUMP_PATH"]
    assert (os.fstat(1).st_ino, os.fstat(2).st_ino) == before_fd
    assert knobs.runtime.add_stages_inspection_hook is hook


def test_capture_without_gpu_cross_compiles_from_arguments(tmp_path: Path) -> None:
    import numpy as np

    from ascend_ir_lab.toolchains.common.kernels import load_kernel
    from ascend_ir_lab.toolchains.triton.compile import TensorSpec
    from ascend_ir_lab.toolchains.triton.records import active_target, capture

    if active_target() is not None:
        pytest.skip("this host has a GPU: capture() launches here (see test_upstream_gpu.py)")
    kernel = load_kernel(f"{SOFTMAX}::softmax")
    x = np.zeros((8, 1000), dtype=np.float32)
    y = TensorSpec((8, 1000), "float32")
    run = capture(
        kernel,
        (8,),
        y,
        x,
        1000,
        1000,
        1000,
        BLOCK=1024,
        out=tmp_path / "run",
        llvm_dumps=False,
        timings=False,
    )
    launch = run.manifest["extra"]["launch"]
    assert launch["launched"] is False and "no GPU" in launch["reason"]
    assert launch["grid"] == [8]
    assert launch["args"][0] == {
        "name": "out_ptr",
        "kind": "tensor",
        "shape": [8, 1000],
        "dtype": "float32",
        "device": "host",
    }
    assert run.manifest["kernel"]["signature"]["in_ptr"] == "*fp32"
    assert run.manifest["target"] == "cuda:90" and run.status == "ok"


def test_compile_error_names_the_stage_and_keeps_the_run(tmp_path: Path) -> None:
    from ascend_ir_lab.toolchains.triton.compile import compile_kernel

    bad = tmp_path / "bad.py"
    bad.write_text(
        "import triton\nimport triton.language as tl\n\n@triton.jit\n"
        "def bad(x_ptr):\n    tl.store(x_ptr, undefined_name)\n"
    )
    with pytest.raises(CompilerError) as info:
        compile_kernel(f"{bad}::bad", signature="x_ptr=*fp32", out=tmp_path / "run")
    assert "undefined_name" in str(info.value)
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert manifest["status"]["code"] == "compile-error"


def test_bad_target_is_an_input_error(tmp_path: Path) -> None:
    from ascend_ir_lab.toolchains.triton.compile import parse_target

    with pytest.raises(InputError, match="cuda:<capability>"):
        parse_target("cuda90")
    assert parse_target("hip:gfx942") == ("hip", "gfx942", 64)
