"""A captured script stopped before its end (`--timeout`, Ctrl-C) keeps the Runs it made."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.toolchains.conftest import needs_ascend

pytestmark = [pytest.mark.ascend, needs_ascend]

LONG_SCRIPT = """\
import time, torch, torch_npu, triton, triton.language as tl

@triton.jit
def fill(x_ptr, N: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, N), 2.0)

x = torch.zeros(8, device="npu")
fill[(1,)](x, N=8)
try:
    print("launched", x.sum().item(), flush=True)
    time.sleep(600)
except KeyboardInterrupt:
    open("interrupted.txt", "w").write("the script saw SIGINT")
    raise
"""


SLEEPER = """\
import time
try:
    time.sleep(600)
except KeyboardInterrupt:
    open("interrupted.txt", "w").write("the script saw SIGINT")
    raise
"""


def _capture(folder: Path, *options: str) -> list[str]:
    return [sys.executable, "-m", "ascend_ir_lab", "capture", "-o", str(folder / "runs"),
            *options, "--", sys.executable, "long.py"]  # fmt: skip


def test_timeout_stops_the_script_as_ctrl_c_would(tmp_path: Path) -> None:
    (tmp_path / "long.py").write_text(SLEEPER)
    start = time.monotonic()
    done = subprocess.run(_capture(tmp_path, "--timeout", "15"), capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 124, done.stderr[-2000:]
    assert time.monotonic() - start < 120
    assert "stopped after 15 s (--timeout)" in done.stderr
    assert (tmp_path / "interrupted.txt").is_file()  # it ended as an interrupted script does


def test_a_timeout_before_the_script_runs_is_said_too(tmp_path: Path) -> None:
    (tmp_path / "long.py").write_text(SLEEPER)
    done = subprocess.run(_capture(tmp_path, "--timeout", "0.01"), capture_output=True,
                          text=True, timeout=300, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 124, done.stderr[-2000:]
    assert "the script was stopped after 0 s (--timeout): no Run was listed" in done.stderr


def test_ctrl_c_keeps_the_runs_made_so_far(tmp_path: Path) -> None:
    from ascend_ir_lab.toolchains.common.run import Run

    (tmp_path / "long.py").write_text(LONG_SCRIPT)
    proc = subprocess.Popen(_capture(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=tmp_path, start_new_session=True)  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # the script's own line, after its launch
        assert line.startswith("launched 16.0"), line
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole group
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err[-2000:]
    assert "the script was interrupted" in err and (tmp_path / "interrupted.txt").is_file()
    run = Run(tmp_path / "runs" / "fill")
    assert str(run.path) in out and run.status == "ir-complete-no-binary"
    assert len(run.timeline.dumps) >= 250


def test_a_script_that_ignores_sigint_is_killed_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ascend_ir_lab.toolchains.ascend import offline_script

    (tmp_path / "deaf.py").write_text(
        "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(600)\n"
    )
    monkeypatch.setattr(offline_script, "STOP_GRACE", 1.0)
    done = offline_script.capture_offline(
        [sys.executable, str(tmp_path / "deaf.py")], tmp_path / "runs", timeout=15
    )  # long enough for the script to start and turn SIGINT off
    assert done.stopped == "stopped after 15 s (--timeout); killed" and not done.runs
    assert not done.failures


PID_SLEEPER = """\
import os, time
open("pid.txt", "w").write(str(os.getpid()))
time.sleep(600)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's parent-death signal")
def test_a_capture_killed_outright_takes_its_script_with_it(tmp_path: Path) -> None:
    """`timeout -s KILL`, a cancelled CI job, the OOM killer: capture gets no chance to stop
    its script, which must not run on alone for hours with its CPU and memory."""
    (tmp_path / "long.py").write_text(PID_SLEEPER)
    proc = subprocess.Popen(_capture(tmp_path), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, cwd=tmp_path)  # fmt: skip
    pid_file = tmp_path / "pid.txt"
    deadline = time.monotonic() + 120
    while not pid_file.is_file() or not pid_file.read_text():
        assert time.monotonic() < deadline and proc.poll() is None, "the script never started"
        time.sleep(0.1)
    script = int(pid_file.read_text())
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 30
    try:
        while _running(script):
            assert time.monotonic() < deadline, "the script runs on after its capture was killed"
            time.sleep(0.1)
    finally:
        if _running(script):
            os.kill(script, signal.SIGKILL)


def _running(pid: int) -> bool:
    """Whether `pid` runs (a zombie, ended but not yet reaped by init, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
