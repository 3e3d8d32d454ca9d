"""The sync checker's findings in a payload are the same whether a second core found them (a
forked copy of the process) or this process did."""

from __future__ import annotations

import os

import pytest

from ascend_ir_lab import forked
from ascend_ir_lab.dumps import read_log
from ascend_ir_lab.export.payload import build_payload
from tests.conftest import ASCEND

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is not available")


@pytest.mark.parametrize(
    "log", ["softmax.bishengir.before-all.log.gz", "matmul.bishengir.barrier-all.log.gz"]
)
def test_findings_from_a_second_core_are_the_findings(
    log: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(forked, "can_fork", lambda: False)
    here = build_payload(read_log(ASCEND / log))
    assert here["sync_check"]["dumps"]  # the log has Dumps the checker checks

    forks = []
    start = forked.Pending.start

    def counted(self: forked.Pending) -> forked.Pending:
        started = start(self)
        forks.append(self._child is not None)
        return started

    monkeypatch.setattr(forked, "can_fork", lambda: True)
    monkeypatch.setattr(forked, "idle_cpus", lambda: 1)
    monkeypatch.setattr(forked.Pending, "start", counted)
    there = build_payload(read_log(ASCEND / log))
    assert forks == [True]
    assert there == here
