"""A real IPython shell with the extension loaded; each kernel compiled once per session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import CapturedIO
from nb_helpers import MATMUL_CELL, VADD_CELL, run_cell

KERNELS = Path(__file__).resolve().parents[1] / "kernels"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: executes whole notebooks (nbclient, a kernel)")


@pytest.fixture(scope="session")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("nb-runs")


@pytest.fixture(scope="session")
def shell(runs_dir: Path) -> Iterator[InteractiveShell]:
    """The shell, as a notebook user has it after `%load_ext ascend_ir_lab`."""
    sh = InteractiveShell.instance()
    sh.run_line_magic("load_ext", "ascend_ir_lab")
    sh.run_cell(f"import sys; sys.path.insert(0, {str(KERNELS)!r})", store_history=False)
    yield sh


@pytest.fixture(scope="session")
def vadd(shell: InteractiveShell, runs_dir: Path) -> tuple[Any, CapturedIO]:
    """`%%triton_npu --interpret` on a vector-add cell (compiled once per session)."""
    return run_cell(shell, f"%%triton_npu --interpret --runs-dir {runs_dir}\n{VADD_CELL}")


@pytest.fixture(scope="session")
def matmuls(shell: InteractiveShell, runs_dir: Path) -> tuple[Any, Any]:
    """The tests/kernels matmul launched from a cell, fine and barrier-all."""
    run_cell(shell, "from matmul import matmul\nimport torch")
    fine, _ = run_cell(
        shell, f"%%triton_npu --module-scope --name fine --runs-dir {runs_dir}\n{MATMUL_CELL}"
    )
    barrier, _ = run_cell(
        shell,
        f"%%triton_npu --module-scope --barrier-all --name barrier --runs-dir {runs_dir}\n{MATMUL_CELL}",
    )
    return fine.result, barrier.result
