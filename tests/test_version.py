"""One version source: labextension/package.json, written into the package by the build."""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import pytest

import ascend_ir_lab

ROOT = Path(__file__).resolve().parent.parent


def test_package_version_is_the_extension_version() -> None:
    pytest.importorskip("ascend_ir_lab._version", reason="source tree never built or installed")
    declared = json.loads((ROOT / "labextension" / "package.json").read_text())["version"]
    assert ascend_ir_lab.__version__ == declared
    assert version("ascend-ir-lab") == declared
