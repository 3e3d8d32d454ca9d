"""Shared test helpers: paths of the real fixtures under tests/data."""

from __future__ import annotations

import gzip
from pathlib import Path

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
