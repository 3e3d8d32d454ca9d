"""ascend-ir-lab: every IR of every pass of a Triton-Ascend compilation, navigable and diffable."""

__version__ = "0.1.0"

__all__ = ["__version__", "load_ipython_extension", "open_timeline"]


def open_timeline(path: str):  # type: ignore[no-untyped-def]
    """Read a log, tree-dir, Triton cache/dump folder or Run folder into a Timeline."""
    from ascend_ir_lab.dumps import open_timeline as _open

    return _open(path)


def load_ipython_extension(ipython):  # type: ignore[no-untyped-def]
    """Register the magics (`%load_ext ascend_ir_lab`)."""
    from ascend_ir_lab.notebook.magics import load_ipython_extension as _load

    _load(ipython)
