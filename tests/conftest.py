"""Shared test helpers: paths of the real fixtures under tests/data."""

from __future__ import annotations

import gzip
import os
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

DATA = Path(__file__).parent / "data"
ASCEND = DATA / "ascend"
TRITON = DATA / "triton"


def fixture_bytes(path: Path) -> bytes:
    """The content of a fixture, gunzipped when it is a .gz file."""
    raw = path.read_bytes()
    return gzip.decompress(raw) if path.suffix == ".gz" else raw


def real_logs() -> list[Path]:
    """Every real compiler log committed under tests/data (plain or gzip)."""
    logs = []
    for p in sorted(DATA.rglob("*")):
        if p.is_file() and (p.name.endswith((".log", ".log.gz", ".txt", ".txt.gz"))):
            if b"IR Dump" in fixture_bytes(p):
                logs.append(p)
    return logs


@pytest.fixture
def ascend_data() -> Path:
    return ASCEND


class Hung(BaseException):
    """A command ran past the time any of them needs (`deadline`); no `except Exception` of
    the code under test (the CLI's last resort) takes it for an error of the input."""


@pytest.fixture
def deadline() -> Iterator[None]:
    """A test that hangs fails with Hung after 60 s instead of hanging the suite."""

    def hung(signum: int, frame: FrameType | None) -> None:
        raise Hung

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture
def index_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every log counts as large (its index is kept); the private folders live under this
    test's tmp folder. The folder where the indexes are kept."""
    from ascend_ir_lab.dumps import index_cache

    monkeypatch.setattr(index_cache, "INDEX_FROM", 1)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    return tmp_path / "tmp" / f"ascend-ir-lab-{os.getuid()}-log-index"
