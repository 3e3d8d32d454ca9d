"""A large log's sync findings kept beside its index: the next page of the same log takes them
instead of checking again, and only while the log and the checker's code are what they were."""

from __future__ import annotations

import gzip
import marshal
import os
import time
from pathlib import Path

import pytest

from ascend_ir_lab import forked
from ascend_ir_lab.analysis import sync_timeline
from ascend_ir_lab.dumps import index_cache, read_log
from ascend_ir_lab.export import payload as payload_module
from ascend_ir_lab.export.payload import build_payload
from tests.conftest import ASCEND

LOG = gzip.decompress((ASCEND / "softmax.bishengir.before-all.log.gz").read_bytes())


@pytest.fixture
def folder(index_folder: Path) -> Path:
    return index_folder


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "softmax.log"
    path.write_bytes(LOG)
    return path


def _refuse_checking(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object, **_kw: object) -> None:
        raise AssertionError("the sync checker ran again")

    monkeypatch.setattr(sync_timeline, "check_timeline", refuse)


def test_a_second_page_takes_the_kept_findings(
    log: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = build_payload(read_log(log))
    assert first["sync_check"]["dumps"]  # the log has Dumps the checker checks
    assert any(p.suffix == ".sync" for p in folder.iterdir())
    _refuse_checking(monkeypatch)
    assert build_payload(read_log(log)) == first


def test_a_changed_log_is_checked_again(
    log: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_payload(read_log(log))
    log.write_bytes(LOG + b"\n")  # another log now: another index, no findings kept for it
    _refuse_checking(monkeypatch)
    with pytest.raises(AssertionError, match="ran again"):
        build_payload(read_log(log))


def test_changed_checker_code_checks_again(
    log: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_payload(read_log(log))
    signature = payload_module._checker_signature
    monkeypatch.setattr(payload_module, "_checker_signature", lambda tl: signature(tl) + "x")
    _refuse_checking(monkeypatch)
    with pytest.raises(AssertionError, match="ran again"):
        build_payload(read_log(log))


@pytest.mark.parametrize(
    "damage",
    [
        lambda blob: blob[: len(blob) // 2],  # cut
        lambda blob: b"not marshal at all",
        lambda blob: _answer(blob, {"dumps": {"99999": []}}),  # a Dump the log lacks
        lambda blob: _answer(blob, {"dumps": {"1": [{"line": "7"}]}}),  # a line not a number
        lambda blob: _answer(blob, ["dumps"]),
    ],
)
def test_kept_findings_that_cannot_be_are_ignored(log: Path, folder: Path, damage: object) -> None:
    first = build_payload(read_log(log))
    (kept,) = folder.glob("*.sync")
    kept.write_bytes(damage(kept.read_bytes()))  # type: ignore[operator]
    assert build_payload(read_log(log)) == first


def _answer(blob: bytes, answer: object) -> bytes:
    fmt, stem, signature, _ = marshal.loads(blob)
    return marshal.dumps((fmt, stem, signature, answer))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is not available")
def test_findings_are_kept_while_a_forked_copy_writes_the_index(
    log: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_cache, "BACKGROUND_FROM", 1)
    monkeypatch.setattr(forked, "idle_cpus", lambda: 1)
    monkeypatch.setattr(forked, "can_fork", lambda: True)
    write = index_cache._write_index

    def slowly(name: Path, idx: object) -> bool:
        time.sleep(0.5)  # the page is made before the index is written
        return write(name, idx)  # type: ignore[arg-type]

    monkeypatch.setattr(index_cache, "_write_index", slowly)
    first = build_payload(read_log(log))
    assert not any(p.suffix == ".idx" for p in folder.iterdir())
    index_cache.settle()
    assert {p.suffix for p in folder.iterdir()} >= {".idx", ".sync"}
    _refuse_checking(monkeypatch)
    assert build_payload(read_log(log)) == first
