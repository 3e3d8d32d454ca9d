"""The wheel, built from a clean clone, installs where there is no Node and its JupyterLab
extension is listed enabled and OK. Slow (about a minute): builds once per session."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _run(cmd: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert proc.returncode == 0, (
        f"{cmd} exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    )
    return proc.stdout + proc.stderr


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built by `pip wheel` from a fresh clone of this repository's HEAD (npm build)."""
    if not (shutil.which("git") and shutil.which("npm")):
        pytest.skip("building the wheel needs git and npm (node >= 20)")
    clone = tmp_path_factory.mktemp("wheelcheck") / "repo"
    _run(["git", "clone", "-q", str(ROOT), str(clone)])
    _run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "-w", "dist"], cwd=clone)
    (built,) = (clone / "dist").glob("ascend_ir_lab-*.whl")
    return built


def test_wheel_installs_without_node_and_extension_is_ok(wheel: Path, tmp_path: Path) -> None:
    import zipfile

    names = zipfile.ZipFile(wheel).namelist()
    prefix = next(n.split("/data/")[0] for n in names if ".data/data/share/" in n)
    share = f"{prefix}/data/share/jupyter/labextensions/ascend-ir-lab"
    assert {f"{share}/package.json", f"{share}/install.json"} <= set(names)
    assert any(n.startswith(f"{share}/static/remoteEntry.") for n in names)
    assert "ascend_ir_lab/static/viewer-standalone.js" in names

    venv = tmp_path / "venv"
    _run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", str(venv)])
    bin_dir = venv / "bin"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = str(bin_dir)  # nothing else: no node, no npm
    probe = subprocess.run(
        ["/bin/sh", "-c", "command -v node"], env=env, capture_output=True, check=False
    )
    assert probe.returncode != 0, "node is reachable on the test PATH"
    _run([str(bin_dir / "pip"), "install", "-q", str(wheel), "jupyterlab"], env=env)
    listed = re.sub(
        r"\x1b\[[0-9;]*m", "", _run([str(bin_dir / "jupyter"), "labextension", "list"], env=env)
    )
    assert re.search(r"ascend-ir-lab v\S+ enabled OK", listed), listed
