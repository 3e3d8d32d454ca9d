"""A tool's log: its last lines and its first located error, read from the file (or the
Run's compressed copy), and `capture_fds`, which sends everything this process writes to
fd 1/2 (Python and C++ alike, triton-ascend's libtriton) into one, the user's streams
given back as they were."""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

from ascend_ir_lab.dumps.zstd_log import open_zstd, stored_log

__all__ = ["capture_fds", "first_located_error", "flush_std_streams", "log_tail"]


def log_tail(path: Path, lines: int = 20, max_bytes: int = 64 * 1024) -> str:
    """The last lines of a (possibly huge) log, read from its end only (also once the Run
    keeps it compressed as `path.zst`)."""
    path = stored_log(path)
    try:
        if path.suffix == ".zst":
            blocks = open_zstd(path)
            data = bytes(blocks[max(0, len(blocks) - max_bytes) :])
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


_LOCATED_ERROR = re.compile(rb":\d+:\d+: error: ")


def first_located_error(path: Path) -> str:
    """The first `file:line:col: error: ...` line of a tool's log (the compiler's own reason,
    often far above the tail when the tool prints the whole module after it), else ""."""
    path = stored_log(path)
    try:
        if path.suffix == ".zst":
            lines: io.BufferedIOBase = io.BytesIO(bytes(open_zstd(path)))
        else:
            lines = open(path, "rb")  # noqa: SIM115 - closed below
        with lines:
            found = next((line for line in lines if _LOCATED_ERROR.search(line)), b"")
    except OSError:
        return ""
    return found.decode("utf-8", "replace").strip()


@contextlib.contextmanager
def capture_fds(log: Path) -> Iterator[None]:
    """Send everything written to fd 1 and fd 2 (Python and C++ alike) into `log`.

    The original descriptors are restored on exit, also after an exception, so the user's
    terminal or notebook streams come back exactly as they were.
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    flush_std_streams()
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
                flush_std_streams()
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved:
            os.close(fd)


def flush_std_streams() -> None:
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(Exception):
            if stream is not None:
                stream.flush()
