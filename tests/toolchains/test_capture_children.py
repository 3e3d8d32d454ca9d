"""A script under `capture` that starts Python itself (`subprocess.run([sys.executable, ...])`,
as triton-ascend's device-print tests do, or pytest-xdist's workers) gets its children captured
too: each runs under the same virtual NPU, its launches Runs of the same capture, and a
sitecustomize of the user's own still runs in them. Real tools, a real pytest."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from ascend_ir_lab.runs import Run
from tests.toolchains.conftest import needs_ascend

CHILD = """
import os
import torch
import torch_npu
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 3.0, mask=mask)


x = torch.randn(100, device="npu")
y = torch.empty_like(x)
scale[(triton.cdiv(100, 64),)](x, y, 100, BLOCK=64)
torch.npu.synchronize()
print("child:", "PASSED" if torch.allclose(y.cpu(), x.cpu() * 3) else "FAILED")
print("user site:", os.environ.get("USER_SITE_RAN"))
"""

TEST = """
import subprocess, sys
from pathlib import Path


def test_the_child_computes(tmp_path):
    child = tmp_path / "child.py"
    child.write_text(CHILD)
    done = subprocess.run([sys.executable, str(child)], capture_output=True, text=True)
    print(done.stdout, done.stderr)
    assert "child: PASSED" in done.stdout
    assert "user site: 1" in done.stdout
"""


@needs_ascend
def test_a_python_the_script_starts_is_captured_too(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "test_child.py").write_text(f"CHILD = {CHILD!r}\n" + textwrap.dedent(TEST))
    site = tmp_path / "site"  # the user's own sitecustomize, on their PYTHONPATH
    site.mkdir()
    (site / "sitecustomize.py").write_text("import os\nos.environ['USER_SITE_RAN'] = '1'\n")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(root)])}
    cmd = [sys.executable, "-m", "ascend_ir_lab", "capture", "-o", str(tmp_path / "runs"), "--",
           sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider",
           "test_child.py"]  # fmt: skip
    done = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "1 passed" in done.stdout
    assert "Error in sitecustomize" not in done.stderr
    (child,) = (tmp_path / "runs").glob("capture-child-*.json")
    said = json.loads(child.read_text())
    assert said["runs"] == ["scale"] and said["launches"] == 1 and not said["failures"]
    run = Run(tmp_path / "runs" / "scale")
    assert run.status == "ir-complete-no-binary"
    assert len([d for d in run.timeline.dumps if d.stage == "bishengir"]) >= 250
    assert "/scale " in done.stdout or "/scale\n" in done.stdout  # listed with the others
