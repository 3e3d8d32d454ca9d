"""A user's own script under capture: every bishengir-compile it runs becomes a Run.

No NPU here, so the script calls bishengir-compile itself, found on PATH with the arguments
triton-ascend passes: the same lookup triton-ascend makes (see test_tc_npu_host.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ascend_ir_lab.dumps import open_timeline
from ascend_ir_lab.errors import InputError
from ascend_ir_lab.toolchains.ascend.npu_script import capture_script, script_launch
from tests.conftest import ASCEND

pytestmark = pytest.mark.ascend

SCRIPT = """
import shutil, subprocess, sys, tempfile
out = tempfile.mkdtemp()
tool = shutil.which("bishengir-compile")
subprocess.run([tool, sys.argv[1], "--target=Ascend910B3", "--enable-auto-multi-buffer=True",
                "--enable-hfusion-compile=true", "--enable-hivm-compile=true",
                "--enable-triton-kernel-compile=true", "-o", out + "/kernel"])
print("script done")
"""


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> list:  # type: ignore[type-arg]
    pytest.importorskip("ascendnpuir", reason="needs ascendnpu-ir (extra 'ascend')")
    folder = tmp_path_factory.mktemp("capture")
    return capture_script([sys.executable, "-c", SCRIPT, str(ASCEND / "vadd.ttadapter")], folder)


def test_each_compile_of_the_script_becomes_a_run(captured: list) -> None:  # type: ignore[type-arg]
    (run,) = captured
    assert run.status == "ir-complete-no-binary"
    stage = run.stage("bishengir")
    assert "--mlir-print-ir-after-all" in stage["command"]
    assert "--enable-triton-kernel-compile=true" in stage["command"]
    tl = open_timeline(run.path)
    assert len(tl.dumps) == 254


def test_capture_cli(tmp_path: Path) -> None:
    pytest.importorskip("ascendnpuir", reason="needs ascendnpu-ir (extra 'ascend')")
    cmd = [sys.executable, "-m", "ascend_ir_lab", "capture", "-o", str(tmp_path), "--",
           sys.executable, "-c", SCRIPT, str(ASCEND / "vadd.ttadapter")]  # fmt: skip
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "IR complete, no binary" in r.stdout
    nothing = subprocess.run(
        [sys.executable, "-m", "ascend_ir_lab", "capture", "-o", str(tmp_path / "x"), "--", sys.executable, "-c", "pass"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert nothing.returncode == 1 and "no bishengir-compile call was recorded" in nothing.stdout


def test_script_launch_reads_the_saved_outputs(tmp_path: Path) -> None:
    np = pytest.importorskip("numpy")
    save = (
        "import os, numpy as np; np.savez(os.environ['ASCEND_IR_LAB_OUTPUT'], out=np.arange(4.0))"
    )
    launch = script_launch([sys.executable, "-c", save])
    (out,) = launch({"PATH": "/usr/bin:/bin"})
    assert np.array_equal(out, np.arange(4.0))
    with pytest.raises(InputError, match="saved no outputs"):
        script_launch([sys.executable, "-c", "pass"])({})
