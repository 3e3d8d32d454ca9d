"""Real matmul Runs (fine-grained and barrier-all), compiled once per session with the real tools,
through the same helper as tests/toolchains' session fixtures."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.toolchains.common.tools import triton_ascend_available

_TC = Path(__file__).resolve().parents[1] / "toolchains" / "conftest.py"


def _toolchain_helpers() -> Any:
    spec = importlib.util.spec_from_file_location("_tc_conftest_for_export", _TC)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def matmul_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    """(fine, barrier-all) module-scope Runs of tests/kernels/matmul.py."""
    if not triton_ascend_available():
        pytest.skip("triton-ascend is not importable: pip install -e '.[ascend]'")
    helpers = _toolchain_helpers()
    root = tmp_path_factory.mktemp("share-runs")
    return helpers._compile(root, "matmul"), helpers._compile(root, "matmul", barrier_all=True)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: takes a minute or more (wheel build and install)")
