"""`ascend-ir-lab triton-compile`: in the upstream venv, and from the Ascend venv via --python."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from upstream_skips import KERNELS, ROOT, needs_upstream, upstream_triton_reason

from ascend_ir_lab.cli import main

GPU_PYTHON = ROOT / ".venv-gpu" / "bin" / "python"


@pytest.mark.gpu
@needs_upstream
def test_triton_compile_reads_the_compile_dict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "triton-compile",
            str(KERNELS / "softmax.py"),
            "--target",
            "hip:gfx942",
            "--no-llvm-dumps",
            "-o",
            str(tmp_path / "run"),
            "--json",
        ]
    )
    assert code == 0
    manifest = json.loads(capsys.readouterr().out)
    assert [s["name"] for s in manifest["stages"]] == ["ttir", "ttgir", "llir", "amdgcn"]
    assert manifest["kernel"]["constexprs"] == {"BLOCK": 1024}


@pytest.mark.gpu
@needs_upstream
def test_triton_compile_explicit_signature_and_bad_target(tmp_path: Path) -> None:
    spec = f"{KERNELS / 'softmax.py'}::softmax"
    sig = "out_ptr=*fp32,in_ptr=*fp32,in_row_stride=i32,out_row_stride=i32,n_cols=i32"
    assert (
        main(
            [
                "triton-compile",
                spec,
                "--signature",
                sig,
                "--constexpr",
                "BLOCK=256",
                "--num-warps",
                "2",
                "--no-llvm-dumps",
                "--no-timings",
                "-o",
                str(tmp_path / "run"),
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "triton-compile",
                spec,
                "--signature",
                sig,
                "--target",
                "sm90",
                "-o",
                str(tmp_path / "bad"),
            ]
        )
        == 2
    )


@pytest.mark.skipif(upstream_triton_reason() is None, reason="upstream triton is importable here")
def test_without_upstream_triton_the_error_says_how(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ASCEND_IR_LAB_GPU_PYTHON", raising=False)
    monkeypatch.chdir(tmp_path)  # no ./.venv-gpu here either
    assert main(["triton-compile", str(KERNELS / "softmax.py"), "-o", str(tmp_path / "r")]) == 2
    assert "venv" in capsys.readouterr().err


@pytest.mark.gpu
@pytest.mark.skipif(
    not GPU_PYTHON.is_file() or Path(sys.executable) == GPU_PYTHON,
    reason="needs .venv-gpu beside a different interpreter running the tests",
)
def test_python_option_runs_the_compile_in_the_gpu_venv(tmp_path: Path) -> None:
    assert (
        main(
            [
                "triton-compile",
                str(KERNELS / "softmax.py"),
                "--no-llvm-dumps",
                "--python",
                str(GPU_PYTHON),
                "-o",
                str(tmp_path / "run"),
            ]
        )
        == 0
    )
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert manifest["status"]["code"] == "ok" and manifest["versions"]["triton"]
