"""Work handed to a forked copy of the process: the same answer as computed here, always."""

from __future__ import annotations

import os
import threading
import time

import pytest

from ascend_ir_lab import forked

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is not available")


@pytest.fixture
def idle(monkeypatch: pytest.MonkeyPatch) -> None:
    """A core is idle and no thread runs, whatever the machine and earlier tests are doing."""
    monkeypatch.setattr(forked, "idle_cpus", lambda: 1)
    monkeypatch.setattr(forked, "can_fork", lambda: True)


def test_the_forked_copy_computes_the_result(idle: None) -> None:
    here = os.getpid()
    with forked.in_parallel(lambda: {"pid": os.getpid(), "rows": [(1, "a"), (2, "b")]}) as p:
        got = p.result()
    assert got["pid"] != here and got["rows"] == [(1, "a"), (2, "b")]


def test_a_failed_copy_leaves_the_work_to_this_process(idle: None) -> None:
    here = os.getpid()

    def work() -> int:
        if os.getpid() != here:
            raise RuntimeError("the copy fails")
        return os.getpid()

    with forked.in_parallel(work) as p:
        assert p.result() == here


def test_a_result_marshal_cannot_carry_is_computed_here(idle: None) -> None:
    here = os.getpid()
    with forked.in_parallel(lambda: (os.getpid(), object())) as p:
        pid, _ = p.result()
    assert pid == here


def test_an_unwanted_copy_is_stopped_and_reaped(idle: None) -> None:
    with forked.in_parallel(lambda: time.sleep(60)) as p:
        assert p._child is not None
        pid = p._child[0]
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, 0)


def test_no_copy_where_a_thread_runs_or_no_core_is_idle(monkeypatch: pytest.MonkeyPatch) -> None:
    here = os.getpid()
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert not forked.can_fork()
        assert forked.in_parallel(os.getpid).result() == here
    finally:
        stop.set()
        t.join()
    monkeypatch.setattr(forked, "can_fork", lambda: True)
    monkeypatch.setattr(forked, "idle_cpus", lambda: 0)
    assert forked.in_parallel(os.getpid).result() == here
