"""run_logged and capture_fds: the tool's output in the log, the user's streams untouched."""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

import pytest

from ascend_ir_lab.errors import CompilerError, ToolNotFoundError
from ascend_ir_lab.toolchains.common.process import run_logged
from ascend_ir_lab.toolchains.common.tool_log import capture_fds, log_tail


def test_capture_fds_takes_c_level_writes_and_gives_streams_back(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "stage.log"
    print("before", file=sys.stderr)
    with capture_fds(log):
        os.write(2, b"from fd 2\n")
        ctypes.CDLL(None).write(1, b"from C on fd 1\n", 15)
        print("python stderr", file=sys.stderr)
    print("after", file=sys.stderr)
    assert log.read_text() == "from fd 2\nfrom C on fd 1\npython stderr\n"
    out, err = capfd.readouterr()
    assert err == "before\nafter\n" and out == ""


def test_capture_fds_restores_after_exception(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ValueError):
        with capture_fds(tmp_path / "x.log"):
            raise ValueError
    os.write(2, b"still mine\n")
    assert capfd.readouterr().err == "still mine\n"


def test_run_logged_interleaves_stdout_and_stderr(tmp_path: Path) -> None:
    code = (
        "import sys; print('out', flush=True); "
        "print('err', file=sys.stderr, flush=True); sys.exit(3)"
    )
    result = run_logged([sys.executable, "-c", code], log=tmp_path / "l.log", env=dict(os.environ))
    assert result.returncode == 3
    assert (tmp_path / "l.log").read_text() == "out\nerr\n"
    err = result.error("demo")
    assert isinstance(err, CompilerError) and err.returncode == 3 and "err" in str(err)


def test_missing_tool_names_its_package(tmp_path: Path) -> None:
    with pytest.raises(ToolNotFoundError, match="pip install ascendnpu-ir"):
        run_logged([str(tmp_path / "bishengir-compile")], log=tmp_path / "l.log", env={})


def test_timeout_is_a_compiler_error_with_partial_output(tmp_path: Path) -> None:
    # stand-in for a hanging compiler: the real tools do not hang on demand
    code = "import time; print('partial', flush=True); time.sleep(30)"
    with pytest.raises(CompilerError, match="timed out") as info:
        run_logged(
            [sys.executable, "-c", code], log=tmp_path / "l.log", env=dict(os.environ), timeout=1
        )
    assert "partial" in str(info.value)


def test_log_tail_reads_the_end_only(tmp_path: Path) -> None:
    log = tmp_path / "big.log"
    log.write_text("".join(f"line {i}\n" for i in range(100_000)))
    assert log_tail(log, 2) == "line 99998\nline 99999"
    assert log_tail(tmp_path / "missing.log") == ""


@pytest.mark.parametrize("pidfd", [True, False])
def test_a_tool_is_waited_for_with_and_without_a_pidfd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pidfd: bool
) -> None:
    import threading

    from ascend_ir_lab.toolchains.common.process import ToolTimeoutError, start_logged, stoppable

    if not pidfd:  # a host without pidfd_open: Popen's own wait
        monkeypatch.delattr(os, "pidfd_open", raising=False)
    code = "import sys, time; print('up', flush=True); time.sleep(float(sys.argv[1])); sys.exit(3)"
    tool = start_logged([sys.executable, "-c", code, "0.2"], log=tmp_path / "a.log", env=os.environ)
    result = tool.wait(60)
    assert result.returncode == 3 and result.log.read_text() == "up\n"
    assert tool._pidfd == -1  # closed once the tool is reaped
    slow = start_logged([sys.executable, "-c", code, "30"], log=tmp_path / "b.log", env=os.environ)
    with pytest.raises(ToolTimeoutError):
        slow.wait(1)
    # in a stoppable thread, the wait looks at its stop request between polls
    stop = threading.Event()
    stop.set()
    held = start_logged([sys.executable, "-c", code, "30"], log=tmp_path / "c.log", env=os.environ)
    with stoppable(stop), pytest.raises(KeyboardInterrupt):
        held.wait(60)
