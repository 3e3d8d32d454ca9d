"""NPU-host path, everything up to the launch: wrapper (real bishengir-compile), barrier-all
command, binary swap, verdict."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ascend_ir_lab.toolchains.ascend import npu_host
from ascend_ir_lab.toolchains.common.env import tool_env
from ascend_ir_lab.toolchains.common.run import Run

from .conftest import needs_ascend

pytestmark = [pytest.mark.ascend, needs_ascend]


def _call_like_triton(args: list[str], bin_dir: Path) -> subprocess.CompletedProcess[bytes]:
    env = tool_env(npu_host.wrapper_env(bin_dir))
    return subprocess.run(
        ["bishengir-compile", *args], env=env, capture_output=True, timeout=300, check=False
    )


def test_wrapper_records_and_prints_every_pass(tmp_path: Path, fine_runs: dict[str, Run]) -> None:
    source = fine_runs["vadd"].path / "artifacts" / "bishengir-input.mlir"
    bin_dir = npu_host.write_wrapper(tmp_path)
    args = [
        str(source),
        "--target=Ascend910B3",
        "--enable-hfusion-compile=true",
        "--enable-hivm-compile=true",
        "--enable-triton-kernel-compile=true",
        "-o",
        str(tmp_path / "out" / "kernel"),
    ]
    proc = _call_like_triton(args, bin_dir)
    assert proc.returncode == 1 and b"Cannot find hivmc" in proc.stderr
    assert b"IR Dump" not in proc.stdout  # triton-ascend parses stdout: kept clean
    (inv,) = npu_host.invocations(tmp_path)
    assert inv.argv[1:] == args and inv.command[-1] == "--mlir-print-ir-after-all"
    assert inv.input.read_text() == source.read_text() and inv.binary is None
    run = npu_host.invocation_run(inv, out=tmp_path / "run")
    assert run.status == "ir-complete-no-binary" and run.manifest["target"] == "Ascend910B3"
    assert sum(1 for d in run.timeline.dumps if d.stage == "bishengir") >= 250


def test_help_calls_pass_through_unrecorded(tmp_path: Path) -> None:
    bin_dir = npu_host.write_wrapper(tmp_path)
    proc = _call_like_triton(["--help"], bin_dir)
    assert proc.returncode == 0 and b"limit-auto-multi-buffer-buffer" in proc.stdout
    assert npu_host.invocations(tmp_path) == []


def test_triton_ascend_finds_the_wrapper(tmp_path: Path) -> None:
    from triton.backends.ascend.utils import _get_npucompiler_path

    with npu_host.capture_npu_compiles(tmp_path):
        assert _get_npucompiler_path() == str(tmp_path / "bin" / "bishengir-compile")
    assert "TRITON_NPU_COMPILER_PATH" not in os.environ or os.environ[
        "TRITON_NPU_COMPILER_PATH"
    ] != str(tmp_path / "bin")


def test_barrier_all_command_reuses_the_recorded_call(tmp_path: Path) -> None:
    call = tmp_path / "calls" / "000"
    call.mkdir(parents=True)
    (call / "input.mlir").write_text("module {}\n")
    (call / "call.json").write_text('{"input": "/tmp/x/kernel.ttadapter.mlir"}')
    inv = npu_host.Invocation(
        call,
        [
            "/bin/bishengir-compile",
            "/tmp/x/kernel.ttadapter.mlir",
            "--target=Ascend910B3",
            "-o",
            "/tmp/x/kernel",
        ],
        [],
        0,
        call / "compile.log",
        call / "input.mlir",
        None,
    )
    cmd = npu_host.barrier_all_command(inv, tmp_path / "b" / "kernel")
    assert cmd == [
        "/bin/bishengir-compile",
        str(call / "input.mlir"),
        "--target=Ascend910B3",
        "--enable-hivm-inject-barrier-all-sync=true",
        "-o",
        str(tmp_path / "b" / "kernel"),
    ]


def test_swapped_binary_comes_back_even_after_an_error(tmp_path: Path) -> None:
    cache = tmp_path / "cache" / "h"
    cache.mkdir(parents=True)
    target, fine, barrier = cache / "k.npubin", tmp_path / "fine.o", tmp_path / "bar.o"
    target.write_bytes(b"FINE")
    fine.write_bytes(b"FINE")
    barrier.write_bytes(b"BARRIER")
    assert npu_host.cached_binaries(tmp_path / "cache", fine) == [target]
    with pytest.raises(RuntimeError):
        with npu_host.swapped(target, barrier):
            assert target.read_bytes() == b"BARRIER"
            raise RuntimeError("launch crashed")
    assert target.read_bytes() == b"FINE" and list(cache.iterdir()) == [target]


def test_verdicts() -> None:
    ref, bad = [[1.0, 2.0]], [[1.0, 9.0]]
    assert npu_host.verdict(bad, ref, ref)[0] == "sync"
    assert npu_host.verdict(bad, bad, ref)[0] == "not-sync"
    assert npu_host.verdict(ref, bad, ref)[0] == "no-bug"
    assert "suspect the compiler's sync analysis" in npu_host.verdict(bad, ref, ref)[1]
