"""ascend-ir-lab: every IR of every pass of a Triton-Ascend compilation, navigable and diffable."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from typing import Any

    from ascend_ir_lab.dumps import Timeline

try:  # written by the build from labextension/package.json, the one version source
    from ascend_ir_lab._version import __version__
except ImportError:  # a source tree that was never built or installed
    __version__ = "0+unknown"

__all__ = ["__version__", "load_ipython_extension", "open_timeline"]


def open_timeline(path: str | os.PathLike[str]) -> Timeline:
    """Read a log, tree-dir, Triton cache/dump folder or Run folder into a Timeline."""
    from ascend_ir_lab.dumps import open_timeline as _open

    return _open(path)


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics (`%load_ext ascend_ir_lab`)."""
    from ascend_ir_lab.notebook.magics import load_ipython_extension as _load

    _load(ipython)
