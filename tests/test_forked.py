"""Work handed to a forked copy of the process: the same answer as computed here, always."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ascend_ir_lab import forked
from tests.conftest import ASCEND, fixture_bytes

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


def test_the_load_of_this_process_and_the_commands_before_it_leaves_cores_idle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A second command right after a first finds a load average near 1 of its own making:
    with nothing else runnable now, both cores are idle."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.6, 0.8, 0.3))
    monkeypatch.setattr(forked, "_runnable_now", lambda: 1)  # this process alone
    assert forked.idle_cpus() == 2
    monkeypatch.setattr(forked, "_runnable_now", lambda: 2)  # one other task runs now
    assert forked.idle_cpus() == 1
    monkeypatch.setattr(forked, "_runnable_now", lambda: 5)  # the load average is the lesser
    assert forked.idle_cpus() == 0
    monkeypatch.setattr(forked, "_runnable_now", lambda: None)  # no /proc: the load average
    assert forked.idle_cpus() == 0
    monkeypatch.setattr(os, "getloadavg", lambda: (1.4, 0.8, 0.3))  # the other CPU mostly idle
    assert forked.idle_cpus() == 1


def test_the_runnable_count_is_read_from_the_kernel() -> None:
    now = forked._runnable_now()
    assert now is None or now >= 1  # this process is running while it asks


_SLOW_INDEX = """
import sys, tempfile, time
from ascend_ir_lab import forked
from ascend_ir_lab.dumps import index_cache, open_timeline
index_cache.INDEX_FROM = index_cache.BACKGROUND_FROM = 1
forked.idle_cpus = lambda: 1
write = index_cache._write_index
def slowly(name, idx):
    time.sleep(5)  # the command's output is long done when the index is written
    print("the copy printed this")
    return write(name, idx)
index_cache._write_index = slowly
tempfile.tempdir = sys.argv[2]
print(len(open_timeline(sys.argv[1]).dumps), "dumps")
"""


def test_a_command_ends_without_waiting_for_the_index_its_copy_writes(tmp_path: Path) -> None:
    log = tmp_path / "vadd.log"
    log.write_bytes(fixture_bytes(ASCEND / "vadd.adapter.log"))
    (tmp_path / "tmp").mkdir()
    folder = tmp_path / "tmp" / f"ascend-ir-lab-{os.getuid()}-log-index"
    # capture_output: run() returns at the end of the pipes, so a copy that held them open
    # (its inherited stdout) would keep it waiting as long as the copy runs
    done = subprocess.run(
        [sys.executable, "-c", _SLOW_INDEX, str(log), str(tmp_path / "tmp")],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert done.stdout.endswith(" dumps\n") and "copy printed" not in done.stdout
    assert not list(folder.glob("*.idx"))  # still being written
    for _ in range(600):
        if list(folder.glob("*.idx")):
            break
        time.sleep(0.1)
    assert len(list(folder.glob("*.idx"))) == 1  # and written in the end


def test_work_held_for_a_command_starts_once_its_output_is_done(idle: None, tmp_path: Path) -> None:
    mark = tmp_path / "written"

    def write() -> str:
        mark.write_text(str(os.getpid()))
        return "ok"

    with forked.held_until_done():
        held = forked.after_output(write)
        assert held is not None and not held.started
        assert not mark.exists()  # nothing runs while the command does
    assert held.started  # the command is done: a forked copy does it
    assert held.result() == "ok" and int(mark.read_text()) != os.getpid()
    assert forked.after_output(write) is None  # outside a command nothing is held


def test_held_work_whose_result_was_taken_is_not_done_again(idle: None) -> None:
    runs: list[int] = []
    with forked.held_until_done():
        held = forked.after_output(lambda: runs.append(os.getpid()) or len(runs))
        assert held is not None and held.result() == 1  # asked for: done here, now
    assert runs == [os.getpid()] and not held.started
