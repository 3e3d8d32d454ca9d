"""The package's own data files (static/: the viewer bundle, its CSS, the MLIR grammar)."""

from __future__ import annotations

import os

_STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")


def static_text(name: str) -> str:
    """The text of static/`name`: read beside this module where the package is a folder
    (importlib.resources, which also reads from zip archives, costs a few ms of imports
    at every start), through importlib.resources otherwise."""
    path = os.path.join(_STATIC, name)
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            return f.read()
    from importlib import resources

    return resources.files("ascend_ir_lab").joinpath("static").joinpath(name).read_text("utf-8")
