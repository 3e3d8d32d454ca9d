"""Attacks through the shape of a log someone sends: line ends, compressions, a kept copy
of a log that changed since. Each hostile input is made here; each must give one clear
line (or the log as it is now) and leave the user's files and streams as they were."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascend_ir_lab.cli import main
from tests.conftest import Hung


def _error(capsys: pytest.CaptureFixture[str], command: str) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if ": error: " in line]
    assert len(lines) == 1 and lines[0].startswith(f"ascend-ir-lab {command}: error: "), err
    return lines[0]


@pytest.mark.parametrize("line", [b"\r", b"x\r", b"IR Dump\r", b"Dump\n\r"])
def test_a_log_of_carriage_returns_alone_is_one_line_not_hours(
    line: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str], deadline: None
) -> None:
    log = tmp_path / "progress.log"  # a terminal capture of a progress bar, 4 MB of it
    log.write_bytes(line * ((4 << 20) // len(line)))
    try:  # each lone CR looked back to the log's start for its line: hours
        assert main(["inspect", str(log)]) == 2
    except Hung:
        pytest.fail("a log of CRs alone read the log once per CR")
    assert "no IR dumps found" in _error(capsys, "inspect")
    header = b"// -----// IR Dump After P (p) //----- //\rmodule {\r}\r"
    log.write_bytes(line * 900 + header)  # a header after them is still found
    assert main(["inspect", str(log)]) == 0
    assert "1 dumps" in capsys.readouterr().out
