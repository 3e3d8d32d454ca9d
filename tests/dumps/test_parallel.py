"""A large log indexed in parts on forked processes reads exactly as one serial read."""

from __future__ import annotations

import os
import re

import pytest

from ascend_ir_lab import forked
from ascend_ir_lab.dumps import parallel, reader
from ascend_ir_lab.dumps.reader import LogIndex
from tests.conftest import fixture_bytes, real_logs

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is not available")


def _fields(idx: LogIndex) -> tuple[object, ...]:
    return (
        [d.values() for d in idx.dumps],
        [m.values() for m in idx.messages],
        [s.values() for s in idx.segments],
        idx.warnings,
        idx.leads,
    )


def _mixed() -> bytes:
    # Every real log, one after another, ending in the middle of a Dump (a truncated last IR);
    # the last ones glued after progress text, the way a terminal shows them.
    logs = b"".join(fixture_bytes(p) for p in real_logs())
    k = logs.find(b"// -----// IR Dump", len(logs) * 3 // 4)
    logs = logs[:k] + b"[1/2] compiling " + logs[k:]
    cut = logs.rfind(b"IR Dump After")
    return logs[: logs.find(b"\n", logs.find(b"\n", cut) + 200)]


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parts are forked even where earlier tests left a thread running in this process."""
    monkeypatch.setattr(forked, "can_fork", lambda: True)


@pytest.mark.parametrize("parts", [2, 3, 7])
def test_parts_join_to_the_serial_read(parts: int, forks: None) -> None:
    data = _mixed()
    serial = reader.index_part(data, 0, len(data), stage="log", log_id=3, first_index=4)
    joined = parallel.index_in_parts(data, stage="log", log_id=3, first_index=4, parts=parts)
    assert joined is not None
    assert _fields(joined) == _fields(serial)
    assert any("truncated" in w for w in serial.warnings)
    # the header glued after progress text, and those real logs glue to stdout's output
    glued = [h for h in (m.start() for m in re.finditer(rb"// -----// IR Dump", data))
             if h and data[h - 1 : h] != b"\n"]  # fmt: skip
    assert [h for _, h in serial.leads] == glued
    assert any(data[h - 16 : h] == b"[1/2] compiling " for h in glued)


def test_parts_start_at_header_lines() -> None:
    data = _mixed()
    cuts = parallel.cut_points(data, 5)
    assert cuts[0] == 0 and cuts[-1] == len(data) and cuts == sorted(set(cuts))
    starts = {start for start, _, _ in reader.find_headers(data)}
    assert len(cuts) == 6 and all(c in starts for c in cuts[1:-1])


def test_a_failed_part_is_read_here(monkeypatch: pytest.MonkeyPatch, forks: None) -> None:
    data = _mixed()
    serial = reader.index_part(data, 0, len(data), stage="log", log_id=0)
    monkeypatch.setattr(parallel, "unflat", lambda columns: None)  # every part's answer is lost
    joined = parallel.index_in_parts(data, stage="log", log_id=0, parts=3)
    assert joined is not None and _fields(joined) == _fields(serial)


def test_small_or_threaded_is_serial(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parallel._part_count(1 << 20) == 1
    import threading

    monkeypatch.setattr(threading, "active_count", lambda: 2)
    assert parallel.index_in_parts(_mixed(), stage="log", log_id=0, parts=3) is None


def test_busy_cores_get_no_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(forked, "_runnable_now", lambda: 10)  # nine others running now
    monkeypatch.setattr(os, "getloadavg", lambda: (9.0, 9.0, 9.0))
    assert parallel._part_count(1 << 30) == 1
    monkeypatch.setattr(os, "getloadavg", lambda: (1.0, 1.0, 1.0))
    assert parallel._part_count(1 << 30) == 4
    assert parallel._part_count(96 << 20) == 3  # a part is at least PART_BYTES


@pytest.mark.parametrize("parts", [3, 7])
def test_stage_dumps_of_every_compile_found_in_every_part(parts: int, forks: None) -> None:
    """A script compiling kernel after kernel with MLIR_ENABLE_DUMP and NVPTX_ENABLE_DUMP:
    each compile's PTX follows its last pass; a part read on its own finds them as well."""
    passes = [b"inline", b"cse", b"canonicalize", b"tritongpu-coalesce"]
    compile_ = b"".join(
        b"// -----// IR Dump Before P (" + p + b") ('builtin.module' operation) //----- //\n"
        b"module {\n  tt.func @k() {\n    tt.return\n  }\n}\n\n\n"
        for p in passes
    )
    compile_ += (
        b"// -----// NVPTX Dump //----- //\n.version 8.4\n.visible .entry k()\n{\n\tret;\n\n}\n\n"
    )
    data = compile_ * 40
    serial = reader.index_part(data, 0, len(data), stage="log", log_id=0)
    assert sum(d.family == "asm" for d in serial.dumps) == 40
    joined = parallel.index_in_parts(data, stage="log", log_id=0, parts=parts)
    assert joined is not None
    assert _fields(joined) == _fields(serial)


@pytest.mark.parametrize("repeat", [1, 2])
def test_snapshots_compared_in_halves_are_the_serial_ids(
    repeat: int, forks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second half's snapshots compared by a forked copy: every id as one pass gives it,
    also where the second half repeats the first's snapshots (a log appended to itself)."""
    from ascend_ir_lab.dumps import snapshots

    data = _mixed() * repeat
    idx = reader.index_part(data, 0, len(data), stage="log", log_id=0)
    views = [memoryview(data)]
    serial = snapshots.identify(idx.dumps, [data], views)
    monkeypatch.setattr(snapshots, "PARALLEL_FROM", 1)
    monkeypatch.setattr(forked, "idle_cpus", lambda: 1)
    started: list[bool] = []
    real_start = forked.Pending.start

    def start(self: forked.Pending, *, idle: bool = True) -> forked.Pending:
        started.append(real_start(self, idle=idle).started)
        return self

    monkeypatch.setattr(forked.Pending, "start", start)
    assert snapshots._identify_in_halves(idx.dumps, [data], views) == serial
    assert started == [True]  # compared on a forked copy, not here
    half = len(serial) // 2
    later, shared = set(serial[half:]), set(serial[half:]) & set(serial[:half])
    assert len(shared) > 0.9 * len(later) if repeat == 2 else len(shared) < 0.5 * len(later)
    monkeypatch.setattr(forked, "idle_cpus", lambda: 0)
    assert snapshots._identify_in_halves(idx.dumps, [data], views) is None  # no idle CPU
