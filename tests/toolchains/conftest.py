"""Session fixtures: each kernel is compiled once per test session, with the real tools."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.toolchains.common.tools import triton_ascend_available

KERNELS = Path(__file__).resolve().parents[1] / "kernels"
NAMES = ("vadd", "softmax", "layernorm", "matmul", "attention")

needs_ascend = pytest.mark.skipif(
    not triton_ascend_available(),
    reason="triton-ascend is not importable: pip install -e '.[ascend]' to run the real tools",
)


def kernel_spec(name: str) -> dict[str, Any]:
    """The COMPILE dict of tests/kernels/<name>.py plus its 'spec' (FILE.py::KERNEL)."""
    path = KERNELS / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_k_{name}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    info = dict(module.COMPILE)
    info["spec"] = f"{path}::{info['kernel']}"
    return info


def _compile(root: Path, name: str, **kw: Any) -> Any:
    from ascend_ir_lab.toolchains.ascend.compile import compile_kernel

    info = kernel_spec(name)
    folder = root / (name + ("-barrier-all" if kw.get("barrier_all") else ""))
    return compile_kernel(
        info["spec"],
        signature=info["signature"],
        constexprs=info["constexprs"],
        module_scope=True,
        out=folder,
        **kw,
    )


@pytest.fixture(scope="session")
def runs_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("runs")


@pytest.fixture(scope="session")
def fine_runs(runs_root: Path) -> dict[str, Any]:
    """Module-scope Runs of every test kernel (fine-grained sync)."""
    if not triton_ascend_available():
        pytest.skip("triton-ascend is not importable")
    return {name: _compile(runs_root, name) for name in NAMES}


@pytest.fixture(scope="session")
def barrier_runs(runs_root: Path) -> dict[str, Any]:
    """Module-scope barrier-all Runs of every test kernel."""
    if not triton_ascend_available():
        pytest.skip("triton-ascend is not importable")
    return {name: _compile(runs_root, name, barrier_all=True) for name in NAMES}


@pytest.fixture(scope="session")
def again_runs(fine_runs: dict[str, Any], runs_root: Path) -> dict[str, Any]:
    """A second, identical build of every fine Run (run-to-run noise)."""
    from ascend_ir_lab.toolchains.ascend.rebuild import rebuild

    return {name: rebuild(run, runs_root / f"{name}-again") for name, run in fine_runs.items()}


@pytest.fixture(scope="session")
def line_info_matmul(runs_root: Path) -> Any:
    """The matmul compiled with line info (every op of every pass carries its Python line)."""
    if not triton_ascend_available():
        pytest.skip("triton-ascend is not importable")
    return _compile(runs_root / "line-info", "matmul", line_info=True)
