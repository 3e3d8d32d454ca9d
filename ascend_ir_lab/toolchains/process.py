"""Start tools and capture everything they print, at the file-descriptor level.

Two ways a stage runs: a child process (`run_logged`) or code inside this process that
writes to fd 1/2 from C++ (`capture_fds`, for triton-ascend's libtriton). Both send stdout
and stderr, in order, into one log file, and both leave the user's own streams untouched.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ascend_ir_lab.dumps.blocks import open_zstd, stored_log
from ascend_ir_lab.errors import CompilerError, ToolNotFoundError

DEFAULT_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class ToolResult:
    """What one tool invocation did: its command, exit code and wall time."""

    command: list[str]
    returncode: int
    seconds: float
    log: Path

    def tail(self, lines: int = 20) -> str:
        """The last `lines` lines of the log (stdout and stderr, interleaved)."""
        return log_tail(self.log, lines)

    def error(self, stage: str) -> CompilerError:
        """A CompilerError carrying this invocation's command, exit code and log tail."""
        return CompilerError(self.command, self.returncode, self.tail(40), stage=stage)


def log_tail(path: Path, lines: int = 20, max_bytes: int = 64 * 1024) -> str:
    """The last lines of a (possibly huge) log, read from its end only (also once the Run
    keeps it compressed as `path.zst`)."""
    path = stored_log(path)
    try:
        if path.suffix == ".zst":
            text = open_zstd(path)
            data = bytes(text[max(0, len(text) - max_bytes) :])
        else:
            with open(path, "rb") as fh:
                fh.seek(0, os.SEEK_END)
                size = fh.tell()
                fh.seek(max(0, size - max_bytes))
                data = fh.read()
    except OSError:
        return ""
    text = data.decode("utf-8", "replace")
    return "\n".join(text.rstrip().splitlines()[-lines:])


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

    A missing executable raises ToolNotFoundError naming `package`; a timeout raises
    CompilerError (exit code -9) with what the tool printed so far.
    """
    argv = [str(part) for part in command]
    log.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with open(log, "wb") as out:
        try:
            proc = subprocess.run(
                argv,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=dict(env),
                cwd=cwd,
                timeout=timeout,
                check=False,
            )
        except FileNotFoundError as exc:
            raise ToolNotFoundError(argv[0], package) from exc
        except subprocess.TimeoutExpired as exc:
            out.flush()
            msg = f"timed out after {timeout:g} s\n{log_tail(log, 30)}"
            raise CompilerError(argv, -9, msg) from exc
    return ToolResult(argv, proc.returncode, time.perf_counter() - start, log)


@contextlib.contextmanager
def capture_fds(log: Path) -> Iterator[None]:
    """Send everything written to fd 1 and fd 2 (Python and C++ alike) into `log`.

    The original descriptors are restored on exit, also after an exception, so the user's
    terminal or notebook streams come back exactly as they were.
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    _flush_std_streams()
    saved = [os.dup(1), os.dup(2)]
    try:
        with (
            open(log, "ab", buffering=0) as out,
            io.TextIOWrapper(open(log, "ab", buffering=0), write_through=True) as text,
            contextlib.redirect_stdout(text),
            contextlib.redirect_stderr(text),
        ):
            # Python-level streams too: under Jupyter or pytest they are not fds 1 and 2
            os.dup2(out.fileno(), 1)
            os.dup2(out.fileno(), 2)
            try:
                yield
            finally:
                _flush_std_streams()
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved:
            os.close(fd)


def _flush_std_streams() -> None:
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(Exception):
            if stream is not None:
                stream.flush()
