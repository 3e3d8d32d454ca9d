"""A real JupyterLab on loopback for browser tests: private dirs, random port and token."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

LABEXT = Path(__file__).resolve().parents[2] / "ascend_ir_lab" / "labextension"


@contextlib.contextmanager
def jupyterlab(
    root: Path,
    notebooks: dict[str, dict[str, Any]],
    *,
    kernels: bool = True,
    files: dict[str, str] | None = None,
) -> Iterator[tuple[str, str]]:
    """Start JupyterLab serving `notebooks` (file name -> nbformat dict) and `files` (file name
    -> text) from `root / "work"`, with our prebuilt extension; yield (base URL, token).
    `kernels=False`: no kernel can start.
    """
    if not (LABEXT / "package.json").exists():
        pytest.skip("labextension not built: run scripts/build_frontend.sh")
    (root / "work").mkdir(exist_ok=True)
    for name, nb in notebooks.items():
        (root / "work" / name).write_text(json.dumps(nb), encoding="utf-8")
    for name, text in (files or {}).items():
        (root / "work" / name).write_text(text, encoding="utf-8")
    (root / "share" / "labextensions").mkdir(parents=True, exist_ok=True)
    (root / "share" / "labextensions" / "ascend-ir-lab").symlink_to(LABEXT)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    token = secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_PATH": str(root / "share"), "JUPYTER_CONFIG_DIR": str(root / "config"),
           "JUPYTER_RUNTIME_DIR": str(root / "runtime"), "JUPYTERLAB_SETTINGS_DIR": str(root / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(root / "workspaces"), "IPYTHONDIR": str(root / "ipython")}  # fmt: skip
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root / 'work'}"]  # fmt: skip
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    if not kernels:
        cmd.append("--KernelSpecManager.allowed_kernelspecs=['no-kernel-here']")
    base = f"http://127.0.0.1:{port}"
    with open(root / "lab.log", "wb") as log:
        proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            for _ in range(240):
                try:
                    urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=1)
                    break
                except OSError:
                    time.sleep(0.5)
            else:
                pytest.fail("JupyterLab did not start: " + (root / "lab.log").read_text()[-2000:])
            yield base, token
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:  # a busy machine: shutdown hooks still running
                proc.kill()
                proc.wait(timeout=30)
