"""Work handed to a forked copy of this process while this one goes on, where a core is idle.

Only where it is safe and pays: `os.fork` available, no other thread running in this process
(a thread could hold a lock the forked copy would wait on forever), and a CPU of this process
that other work leaves idle. Elsewhere, and wherever the forked copy fails, the work runs here
when its result is asked for, so the answer is the same either way. Results travel back
marshalled: plain values (None, bool, int, float, str, bytes, lists, tuples, dicts of those).
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
from collections.abc import Callable, Iterator

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from typing import Any


def idle_cpus() -> int:
    """How many CPUs of this process other work leaves idle: each one at least half idle
    counts (a copy forked onto a CPU that other work keeps half busy still halves the
    wait for its part)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(0, int(cpus - _others_running() + 0.5))


def _others_running() -> float:
    """How much other work the CPUs have: the lesser of the tasks runnable at this moment
    (less this process) and the 1-minute load average, which also counts this process's own
    recent work and that of the commands just before it (a user's or a script's)."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        return 0.0
    now = _runnable_now()
    return load if now is None else min(load, max(0, now - 1))


def _runnable_now() -> int | None:
    """The kernel's count of tasks runnable now (Linux's /proc/loadavg), or None."""
    try:
        with open("/proc/loadavg", encoding="ascii") as f:
            return int(f.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return None


def can_fork() -> bool:
    """Whether this process may fork a copy that runs Python."""
    threading = sys.modules.get("threading")  # not imported: no thread started from Python
    alone = threading is None or threading.active_count() == 1
    return alone and hasattr(os, "fork") and sys.platform != "win32"


class Pending:
    """The result of `work`, computed by a forked copy where one was started, else here."""

    def __init__(self, work: Callable[[], Any]) -> None:
        self._work = work
        self._child: tuple[int, int] | None = None
        self._taken = False  # the result was taken (or the work cancelled): not started again

    def start(self, *, idle: bool = True) -> Pending:
        """Fork the copy that computes the result, where `can_fork` and (with `idle`) a CPU
        is idle; without `idle` the caller has counted the idle CPUs already."""
        if self._child is not None or self._taken or not can_fork():
            return self
        if idle and idle_cpus() < 1:
            return self
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the forked copy: compute, write, leave without running anything else
            code = 1
            try:
                os.close(r)
                _quiet()
                blob = marshal.dumps(self._work())
                with os.fdopen(w, "wb") as f:
                    f.write(blob)
                code = 0
            finally:
                os._exit(code)
        os.close(w)
        self._child = (pid, r)
        return self

    @property
    def started(self) -> bool:
        """Whether a forked copy computes the result (not yet taken)."""
        return self._child is not None

    @property
    def taken(self) -> bool:
        """Whether the result was taken (or the work cancelled)."""
        return self._taken

    def result(self) -> Any:
        """The result: the forked copy's, or computed here where there is none or it failed."""
        child, self._child = self._child, None
        self._taken = True
        if child is not None:
            pid, fd = child
            with os.fdopen(fd, "rb") as f:
                blob = f.read()
            _, status = os.waitpid(pid, 0)
            if status == 0 and blob:
                try:
                    return marshal.loads(blob)
                except (ValueError, EOFError, TypeError):
                    pass
        return self._work()

    def cancel(self) -> None:
        """Stop the forked copy, if one runs, and reap it (its result is not wanted)."""
        child, self._child = self._child, None
        self._taken = True
        if child is not None:
            pid, fd = child
            os.close(fd)
            with contextlib.suppress(OSError):
                import signal  # only to stop a copy: start-up stays small

                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.waitpid(pid, 0)

    def __enter__(self) -> Pending:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()


def _quiet() -> None:
    """Point the forked copy's standard streams at /dev/null: it prints nothing, and a copy
    that outlives this process (an index still being written) holds no pipe or terminal of
    the user's open (`ascend-ir-lab inspect big.log | head` ends when the command does)."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        with contextlib.suppress(OSError):
            os.dup2(null, fd)
    os.close(null)


# Work held until the command's output is written (`held_until_done`), or None: not held.
_held: list[Pending] | None = None


@contextlib.contextmanager
def held_until_done() -> Iterator[None]:
    """Hold the work handed to `after_output` meanwhile and start it on leaving: a command
    line's own output comes first, and work it does not wait for (an index to keep for the
    next command) takes no core from it. Work held and asked for before (`result`) is done
    there; work started on leaving runs on in a forked copy after this process ends (or
    is done here, where no copy can be forked)."""
    global _held
    outer, _held = _held, []
    try:
        yield
    finally:
        held, _held = _held, outer
        for pending in held:  # the command is done: none of its work waits on a core
            if not pending.taken and not pending.start(idle=False).started:
                pending.result()  # no copy can be forked (another thread runs): done here


def after_output(work: Callable[[], Any]) -> Pending | None:
    """`work` held until the command's output is written (`held_until_done`), or None
    where nothing holds it (the caller starts it)."""
    if _held is None:
        return None
    pending = Pending(work)
    _held.append(pending)
    return pending


def in_parallel(work: Callable[[], Any]) -> Pending:
    """`work` started in a forked copy of this process where that is safe and a core is idle;
    `.result()` gives its result either way. Use it as a context manager: a copy whose result
    was not taken is stopped on leaving."""
    return Pending(work).start()
