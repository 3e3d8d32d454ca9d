"""Markers of the upstream tests (also run alone, in .venv-gpu)."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: executes a whole notebook (nbclient, a kernel)")
