"""Which Triton this interpreter has and which target a cell or command means: upstream
Triton's targets (cuda:NN, hip:gfxNNN), this host's GPU, and the clear error naming the
environment to switch to (.venv-gpu and its Jupyter kernel) when upstream Triton is not here."""

from __future__ import annotations

import functools
import importlib.util

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.toolchains.common.targets import toolchain_for
from ascend_ir_lab.toolchains.triton import compile as tu
from ascend_ir_lab.toolchains.triton import records

__all__ = [
    "GPU_KERNEL",
    "default_target",
    "device_target",
    "is_upstream_target",
    "require_upstream_environment",
    "upstream_triton_here",
]

# The Jupyter kernel of .venv-gpu, registered by scripts/setup --all.
GPU_KERNEL = "ascend-ir-lab-gpu"
GPU_KERNEL_DISPLAY = "Python (.venv-gpu, upstream Triton)"


def is_upstream_target(target: str | None) -> bool:
    """Whether `target` is one of upstream Triton's (cuda:NN, hip:gfxNNN)."""
    return toolchain_for(target) == "triton"


def upstream_triton_here() -> bool:
    """Whether this interpreter's `triton` is upstream Triton (not triton-ascend)."""
    try:
        tu.require_upstream_triton()
    except Exception:  # noqa: BLE001 - not installed, or triton-ascend: both mean "no"
        return False
    return True


def require_upstream_environment(target: str) -> None:
    """Raise a clear error, naming the environment to switch to, unless upstream Triton is here."""
    if upstream_triton_here():
        return
    ascend = importlib.util.find_spec("triton") is not None
    why = (
        "the `triton` of this kernel is triton-ascend, and upstream Triton installs under the "
        "same name"
        if ascend
        else "upstream Triton is not installed in this kernel's environment"
    )
    raise InputError(
        f"--target {target} needs upstream Triton: {why}. It lives in its own venv, "
        f".venv-gpu. Run this cell in a kernel of that venv:\n"
        f"  scripts/setup --all   (creates .venv-gpu and its Jupyter kernel {GPU_KERNEL!r})\n"
        f"  then Kernel > Change Kernel > {GPU_KERNEL_DISPLAY!r} and run the cell again.\n"
        f"From the shell, without changing kernels: "
        f"ascend-ir-lab compile FILE.py --target {target}"
    )


@functools.lru_cache(maxsize=1)
def device_target() -> str | None:
    """'cuda:90' / 'hip:gfx942' of this host's GPU, None without one (asked once)."""
    return records.active_target()


def default_target() -> str:
    """This host's GPU, else cuda:90."""
    return device_target() or "cuda:90"
