"""Which toolchain compiles for a target: the one place that reads a target's name for it."""

from __future__ import annotations

from typing import Literal

__all__ = ["UPSTREAM_BACKENDS", "Toolchain", "toolchain_for"]

Toolchain = Literal["ascend", "triton"]
UPSTREAM_BACKENDS = ("cuda", "hip")  # upstream Triton's: cuda:90, cuda:80, hip:gfx942


def toolchain_for(target: str | None) -> Toolchain:
    """'triton' (toolchains/triton/) for upstream Triton's targets (`cuda:NN`, `hip:gfxNNN`),
    'ascend' (toolchains/ascend/) for every other target (Ascend910B3, Ascend910_9391...)."""
    backend, sep, _ = str(target or "").partition(":")
    return "triton" if sep and backend in UPSTREAM_BACKENDS else "ascend"
