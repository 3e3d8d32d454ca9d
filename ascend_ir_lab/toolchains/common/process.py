"""Start tools and capture everything they print, at the file-descriptor level.

A stage that is a child process (`run_logged`, `start_logged`) sends its stdout and stderr,
in order, into one log file and leaves the user's own streams untouched; code inside this
process that writes to fd 1/2 from C++ has `tool_log.capture_fds` for the same.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ascend_ir_lab.errors import CompilerError, ToolNotFoundError
from ascend_ir_lab.toolchains.common.tool_log import log_tail

DEFAULT_TIMEOUT_S = 600.0
_POLL_S = 0.05  # how often a tool waited for in a stoppable thread looks at its stop request
_stop_requests = threading.local()


@contextlib.contextmanager
def stoppable(request: threading.Event) -> Iterator[None]:
    """Tools this thread waits for inside the block are stopped as Ctrl-C would stop them
    (ToolInterrupted, the whole group, the Run's stage "interrupted") once `request` is set:
    Ctrl-C reaches only the main thread, so a compile running in a worker thread is stopped
    through this."""
    before = getattr(_stop_requests, "event", None)
    _stop_requests.event = request
    try:
        yield
    finally:
        _stop_requests.event = before


@dataclass(frozen=True)
class ToolResult:
    """What one tool invocation did: its command, exit code and wall time; `status` is
    "timed-out" or "interrupted" when the tool was stopped before it ended."""

    command: list[str]
    returncode: int
    seconds: float
    log: Path
    status: str | None = None

    def tail(self, lines: int = 20) -> str:
        """The last `lines` lines of the log (stdout and stderr, interleaved)."""
        return log_tail(self.log, lines)

    def error(self, stage: str) -> CompilerError:
        """A CompilerError carrying this invocation's command, exit code and log tail."""
        return CompilerError(self.command, self.returncode, self.tail(40), stage=stage)


class ToolTimeoutError(CompilerError):
    """A tool ran past its timeout; its whole process group was killed. `.result` holds
    what it did (status "timed-out", the log of what it printed so far)."""

    def __init__(self, result: ToolResult, timeout: float) -> None:
        msg = f"timed out after {timeout:g} s\n{log_tail(result.log, 30)}"
        super().__init__(result.command, result.returncode, msg)
        self.result = result
        self.timeout = timeout


class ToolInterrupted(KeyboardInterrupt):
    """Ctrl-C while a tool ran; its process group was stopped. `.result` holds what it did."""

    def __init__(self, result: ToolResult) -> None:
        super().__init__(f"interrupted: {' '.join(result.command[:1])}")
        self.result = result


def run_logged(
    command: Sequence[str],
    *,
    log: Path,
    env: Mapping[str, str],
    timeout: float = DEFAULT_TIMEOUT_S,
    cwd: Path | None = None,
    package: str = "ascendnpu-ir",
) -> ToolResult:
    """Run `command` with stdout+stderr going, in order, to `log`; never raises on exit code.

    The tool runs in its own process group. A missing executable raises ToolNotFoundError
    naming `package`; a timeout kills the whole group and raises ToolTimeoutError (a
    CompilerError, exit code -9) with what the tool printed so far; Ctrl-C stops the group
    and raises ToolInterrupted (a KeyboardInterrupt). Both carry the stopped ToolResult.
    """
    return start_logged(command, log=log, env=env, cwd=cwd, package=package).wait(timeout)


def start_logged(
    command: Sequence[str],
    *,
    log: Path,
    env: Mapping[str, str],
    cwd: Path | None = None,
    package: str = "ascendnpu-ir",
) -> LoggedTool:
    """Start `command` as `run_logged` runs it and return at once: the tool goes on in the
    background, its output streaming into `log`, until `wait()` or `stop()` on the answer."""
    argv = [str(part) for part in command]
    log.parent.mkdir(parents=True, exist_ok=True)
    out = open(log, "wb")  # noqa: SIM115 - closed by LoggedTool once the tool is reaped
    read_end, write_end = _log_pipe()
    try:
        # its own process group: a timeout or Ctrl-C stops the tool and its children
        proc = subprocess.Popen(
            argv, stdout=write_end, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env=dict(env), cwd=cwd, start_new_session=True,
        )  # fmt: skip
    except BaseException as exc:
        os.close(read_end)
        out.close()
        if isinstance(exc, FileNotFoundError):
            raise ToolNotFoundError(argv[0], package) from exc
        raise
    finally:
        os.close(write_end)
    return LoggedTool(argv, log, proc, _Drain(read_end, out), out)


class LoggedTool:
    """A tool `start_logged` started: its own process group, its stdout+stderr copied into
    its log by a thread of this process. `wait` or `stop` reaps it, joins that thread and
    closes the log; until then the tool runs beside whatever this process does."""

    def __init__(
        self, argv: list[str], log: Path, proc: subprocess.Popen[bytes], drain: _Drain, out: Any
    ) -> None:
        self.argv, self.log, self._proc, self._drain, self._out = argv, log, proc, drain, out
        self._start = time.perf_counter()
        self._pidfd: int | None = None  # opened on the first wait

    def _seconds(self) -> float:
        return time.perf_counter() - self._start

    def _close(self, drain_timeout: float = 10.0) -> None:
        self._reaped()
        self._drain.join(drain_timeout)
        self._out.close()

    def wait(self, timeout: float = DEFAULT_TIMEOUT_S) -> ToolResult:
        """Wait until the tool ends, at most `timeout` seconds from its start; then as
        `run_logged`: ToolTimeoutError or ToolInterrupted when it had to be stopped."""
        try:
            returncode = self._wait_until(timeout, getattr(_stop_requests, "event", None))
        except subprocess.TimeoutExpired:
            kill_group(self._proc)
            self._close()
            stopped = ToolResult(self.argv, -9, self._seconds(), self.log, "timed-out")
            raise ToolTimeoutError(stopped, timeout) from None
        except KeyboardInterrupt:
            raise ToolInterrupted(self.stop(signal.SIGINT)) from None
        self._close(2.0)  # a child the tool left behind may hold the pipe: not for long
        return ToolResult(self.argv, returncode, self._seconds(), self.log)

    def _wait_until(self, timeout: float, request: threading.Event | None) -> int:
        """The tool's exit status; TimeoutExpired past `timeout`, KeyboardInterrupt once
        `request` (this thread's stop request, if any) is set."""
        while True:
            if request is not None and request.is_set():
                raise KeyboardInterrupt
            left = timeout - self._seconds()
            if left <= 0:
                raise subprocess.TimeoutExpired(self.argv, timeout)
            # in steps: Ctrl-C may reach another thread of this process (the log's drain),
            # and Python runs its handler in this one only once this wait returns
            if self._ended_within(min(left, _POLL_S)):
                return self._proc.wait()

    def _ended_within(self, seconds: float) -> bool:
        """Whether the tool ends within `seconds`: told the moment it does through a pidfd
        (Popen.wait with a timeout sleeps in steps of up to 50 ms, each compile stage paying
        half of that on average), else by Popen's own wait."""
        if self._pidfd is None:
            try:
                self._pidfd = os.pidfd_open(self._proc.pid)
            except (AttributeError, OSError):  # not Linux 5.3+, or already reaped
                self._pidfd = -1
        if self._pidfd < 0:
            try:
                self._proc.wait(timeout=seconds)
            except subprocess.TimeoutExpired:
                return False
            return True
        import select

        waiting = select.poll()
        waiting.register(self._pidfd, select.POLLIN)
        return bool(waiting.poll(max(0, math.ceil(seconds * 1000))))

    def _reaped(self) -> None:
        if self._pidfd is not None and self._pidfd >= 0:
            os.close(self._pidfd)
        self._pidfd = -1

    def stop(self, first: int = signal.SIGKILL) -> ToolResult:
        """Stop the tool's whole group now (`first`, then SIGKILL), reap it and close its
        log; the result says "interrupted". Safe to call on a tool that already ended."""
        if not self._out.closed:
            kill_group(self._proc, first)
            self._close()
        code = self._proc.returncode if self._proc.returncode is not None else -2
        return ToolResult(self.argv, code, self._seconds(), self.log, "interrupted")


_PIPE_BYTES = 1 << 20  # asked of the kernel for the log pipe (F_SETPIPE_SZ)
_SMALL_READ = 1 << 16  # a read shorter than this: wait a little for more to gather


def _log_pipe() -> tuple[int, int]:
    """A pipe for a tool's stdout+stderr, made as large as the kernel allows.

    MLIR prints its IR dumps to an unbuffered stream, a few bytes per write(2): written to
    a file, millions of small writes cost the tool more than printing the IR; into a large
    pipe they are cheap, and the log is written here in large blocks.
    """
    read_end, write_end = os.pipe()
    with contextlib.suppress(OSError, AttributeError):
        import fcntl

        fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
    return read_end, write_end


class _Drain:
    """A thread copying a tool's pipe into its log file until the tool (and every process
    holding the pipe) is gone; reads a pipe that fills slowly after a short pause, so that
    a tool writing a few bytes at a time costs a few hundred reads a second, not millions."""

    def __init__(self, fd: int, out: Any) -> None:
        self._fd, self._out = fd, out
        self._thread = threading.Thread(target=self._copy, name="ascend-ir-lab-log", daemon=True)
        self._thread.start()

    def _copy(self) -> None:
        try:
            while True:
                data = os.read(self._fd, _PIPE_BYTES)
                if not data:
                    return
                self._out.write(data)
                if len(data) < _SMALL_READ:
                    time.sleep(0.005)
        except (OSError, ValueError):
            return  # the log file was closed under us (a tool's child kept the pipe)
        finally:
            os.close(self._fd)

    def join(self, timeout: float = 10.0) -> None:
        """Wait until the pipe is drained (a child that keeps it open: `timeout` at most)."""
        self._thread.join(timeout)
        self._out.flush()


def kill_group(proc: subprocess.Popen[Any], first: int = signal.SIGKILL) -> None:
    """Stop `proc` and every process of its group: `first`, a short grace, then SIGKILL
    (for the rest of the group too: the leader may be gone while its children still run)."""
    _signal_group(proc, first)
    if first != signal.SIGKILL:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=2)
    _signal_group(proc, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def _signal_group(proc: subprocess.Popen[Any], sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


def run_query(
    argv: Sequence[str], *, timeout: float, env: Mapping[str, str]
) -> subprocess.CompletedProcess[str] | None:
    """Run a short query (`tool --version`) with its output captured, in its own process
    group, the whole group killed at `timeout`; None when it cannot run or times out."""
    try:
        proc = subprocess.Popen(
            [str(a) for a in argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL, env=dict(env), text=True, errors="replace",
            start_new_session=True,
        )  # fmt: skip
    except OSError:
        return None
    try:
        out, err = proc.communicate(timeout=max(timeout, 0.01))
    except subprocess.TimeoutExpired:
        kill_group(proc)
        with contextlib.suppress(subprocess.TimeoutExpired, ValueError):
            proc.communicate(timeout=5)
        return None
    except KeyboardInterrupt:
        kill_group(proc, signal.SIGINT)
        raise
    return subprocess.CompletedProcess(list(argv), proc.returncode, out, err)


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def end_with_parent(parent: int) -> None:
    """Make this process end (SIGTERM) when `parent`, the process that started it, ends
    however it ends, killed included (`timeout`, a CI job cancelled, the OOM killer): a
    script left running alone would hold its CPU and memory for hours. Linux only; a parent
    already gone ends this process now."""
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:  # the process's own C library (`find_library` would start `ldconfig` to look)
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # it ended before the request was made
        os.kill(os.getpid(), signal.SIGTERM)
