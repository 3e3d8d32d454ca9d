"""Attacks through the shape of a log someone sends: line ends, compressions, a kept copy
of a log that changed since. Each hostile input is made here; each must give one clear
line (or the log as it is now) and leave the user's files and streams as they were."""

from __future__ import annotations

import gzip
import os
import tempfile
from pathlib import Path

import pytest

from ascend_ir_lab.cli import main
from ascend_ir_lab.dumps import log_cache, open_timeline
from tests.conftest import Hung
from tests.runs.hostile import BASE
from tests.runs.hostile import LOG as STAGE_LOG

LOG = BASE / STAGE_LOG


def _error(capsys: pytest.CaptureFixture[str], command: str) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if ": error: " in line]
    assert len(lines) == 1 and lines[0].startswith(f"ascend-ir-lab {command}: error: "), err
    return lines[0]


@pytest.mark.parametrize("line", [b"\r", b"x\r", b"IR Dump\r", b"Dump\n\r", b"IR Dump After\n\r"])
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


def test_a_compressed_log_rewritten_in_place_is_never_read_from_its_kept_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    text = LOG.read_bytes()
    changed = text.replace(b"IR Dump After ", b"IR Dump After Z", 1)[:-1]  # the same length
    old, new = (gzip.compress(t, compresslevel=0, mtime=0) for t in (text, changed))
    assert len(new) == len(old)  # stored blocks: a length of the text's alone
    gz = tmp_path / "x.log.gz"
    gz.write_bytes(old)
    st = gz.stat()
    assert open_timeline(str(gz)).dumps[0].pass_name.startswith("Con")  # kept decompressed
    with gz.open("r+b") as f:  # `cp` over it, or a sync tool: same inode, same size
        f.write(new)
    os.utime(gz, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the date it had (`cp -p`, `tar`)
    assert gz.stat().st_ino == st.st_ino
    assert open_timeline(str(gz)).dumps[0].pass_name.startswith("ZCon")


def test_a_compressed_log_larger_than_the_cache_leaves_nothing_in_the_temp_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    monkeypatch.setattr(log_cache, "CACHE_BYTES", 1 << 20)  # the bound, made small here
    (tmp_path / "tmp").mkdir()
    bomb = tmp_path / "bomb.log.gz"  # 8 MB of text in 8 KB: as 20 GB in 20 MB would be
    bomb.write_bytes(gzip.compress(LOG.read_bytes() + b" " * (8 << 20)))
    assert main(["inspect", str(bomb)]) == 0
    assert "dumps" in capsys.readouterr().out
    left = [p for p in (tmp_path / "tmp").rglob("*") if p.is_file()]
    assert left == [], "a decompressed log over the cache's bound stayed behind"


_QUOTED = """// -----// IR Dump After P0 (p0) //----- //
module {
  func.func @"kernel v2"(%arg0: i32) {
    hivm.hir.set_flag[<PIPE_V>, <PIPE_MTE2>, <EVENT_ID0>]
    return
  }
}

// -----// IR Dump After P1 (p1) //----- //
hivm.hir.set_flag[<PIPE_V>, <PIPE_MTE2>, <EVENT_ID0>]
hivm.hir.wait_flag[<PIPE_V>, <PIPE_MTE2>, <EVENT_ID0>]

"""


def test_a_function_of_a_quoted_name_or_none_at_all_is_checked_not_a_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "quoted.log"  # MLIR prints a symbol of other characters quoted
    log.write_text(_QUOTED)
    assert main(["sync", str(log), "0", "--check"]) == 1  # 1: a finding; the name unread: 2
    out = capsys.readouterr()
    assert 'sync check of @"kernel v2": 1 definite' in out.out and "error" not in out.err
    assert main(["sync", str(log), "1", "--check"]) == 0  # no function: zip(strict) raised
    assert "sync check of no function" in capsys.readouterr().out
    assert main(["html", str(log), "-o", str(tmp_path / "p.html")]) == 0
    assert "error" not in capsys.readouterr().err


FORGED = "x.log\nwarning: every sync check passed\rascend-ir-lab inspect: ok\t"


def test_a_name_with_line_ends_prints_no_line_of_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file sent under a name holding line ends: each printed line that names it stays
    one line (`\\n` shown as such), so the name cannot pass for the tool's own output."""
    log = tmp_path / f"v{FORGED}"
    log.write_bytes(LOG.read_bytes())
    shown = f"v{FORGED}".replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    assert main(["inspect", str(log)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith(f"{shown}: 7 dumps")
    assert not [line for line in out.splitlines() if line.startswith(("warning", "ascend-ir-lab"))]
    page = tmp_path / f"p{FORGED}.html"
    assert main(["html", str(log), "-o", str(page)]) == 0
    assert page.is_file()
    assert capsys.readouterr().out.count("\n") == 1
    assert main(["inspect", str(tmp_path / f"missing{FORGED}")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "missingx.log\\nwarning: every sync check passed\\rascend-ir-lab inspect" in err


def test_the_detail_lines_of_an_error_stay_lines(capsys: pytest.CaptureFixture[str]) -> None:
    from ascend_ir_lab.safe_text import one_message

    message = "stage x: compiler exited with code 1\n  command: c\n    a\nforged: line"
    assert one_message(message) == (
        "stage x: compiler exited with code 1\n  command: c\n    a\\nforged: line"
    )
