"""A real JupyterLab on loopback opens a saved notebook with no kernel; the output still steps."""

from __future__ import annotations

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

from ascend_ir_lab.export.html import static_html
from ascend_ir_lab.export.payload import MIME_TYPE

pytestmark = pytest.mark.browser

LABEXT = Path(__file__).resolve().parents[2] / "ascend_ir_lab" / "labextension"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def saved_notebook(payload: dict[str, Any]) -> dict[str, Any]:
    output = {
        "output_type": "display_data",
        "data": {
            MIME_TYPE: payload,
            "text/html": static_html(payload),
            "text/plain": "<IR timeline>",
        },
        "metadata": {},
    }
    cell = {"cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {},
            "source": "%ir_load tests/data/ascend/vadd.adapter.log", "outputs": [output]}  # fmt: skip
    return {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, real_payload: Any) -> Iterator[tuple[str, str]]:
    if not (LABEXT / "package.json").exists():
        pytest.skip("labextension not built: run scripts/build_frontend.sh")
    root = tmp_path_factory.mktemp("lab")
    (root / "work").mkdir()
    nb = saved_notebook(real_payload("vadd.adapter.log", "vadd adapter"))
    (root / "work" / "saved.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    ext_dir = root / "share" / "labextensions"
    ext_dir.mkdir(parents=True)
    (ext_dir / "ascend-ir-lab").symlink_to(LABEXT)
    port, token = free_port(), secrets.token_hex(16)
    env = {
        **os.environ,
        "JUPYTER_PATH": str(root / "share"),
        "JUPYTER_CONFIG_DIR": str(root / "config"),
        "JUPYTER_RUNTIME_DIR": str(root / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(root / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(root / "workspaces"),
    }
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ip=127.0.0.1",
           f"--port={port}", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root / 'work'}",
           "--KernelSpecManager.allowed_kernelspecs=['no-kernel-here']"]  # fmt: skip
    log = open(root / "lab.log", "wb")
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
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
        proc.wait(timeout=30)
        log.close()


def kernels(base: str, token: str) -> list[Any]:
    with urllib.request.urlopen(f"{base}/api/kernels?token={token}", timeout=5) as r:
        return list(json.load(r))


def test_saved_notebook_steps_without_a_kernel(browser: Any, lab: tuple[str, str]) -> None:
    base, token = lab
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{base}/lab/tree/saved.ipynb?token={token}")
    # No kernelspec is allowed, so JupyterLab asks which kernel to use: decline.
    page.wait_for_selector(".jp-Dialog", timeout=60_000)
    page.click(".jp-Dialog-footer button:has-text('No Kernel')")
    page.wait_for_selector(".jp-Dialog", state="detached")
    page.wait_for_selector(".jp-OutputArea-output .air-passname", timeout=60_000)
    out = page.locator(".jp-OutputArea-output .air-root")
    assert out.locator(".air-title").inner_text() == "vadd adapter"
    assert out.locator(".air-pos").inner_text() == "#0 (1/14)"
    out.locator(".air-passinfo").click()
    page.keyboard.press("j")
    assert out.locator(".air-pos").inner_text() == "#1 (2/14)"
    assert out.locator(".air-passname").inner_text() == "triton-to-annotation"
    page.keyboard.press("n")
    assert out.locator(".air-pos").inner_text() == "#11 (12/14)"
    page.keyboard.press("d")
    assert out.locator(".air-view.air-on").inner_text() == "Unified diff"
    assert out.locator(".air-ir .air-row.air-add").count() > 0
    page.keyboard.press("j")
    assert out.locator(".air-passname").inner_text() == "canonicalize"
    # the notebook's own j/k/d shortcuts did not fire: still one cell, still there
    assert page.locator(".jp-Notebook .jp-Cell").count() == 1
    assert kernels(base, token) == []
    page.close()
