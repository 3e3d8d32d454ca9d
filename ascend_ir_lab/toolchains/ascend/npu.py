"""This host's NPU: whether there is one (common.tools asks), and what stands in for it where
there is none."""

from __future__ import annotations

from typing import Any

from ascend_ir_lab.toolchains.common.tools import npu_available

__all__ = ["NPUOnlyError", "no_device_to_time", "npu_available"]


class NPUOnlyError(AttributeError):
    """An op or API that exists only with a real NPU (torch_npu's kernels, its profiler)."""

    def __init__(self, name: str) -> None:
        super().__init__(
            f"{name} exists only on a real NPU: the virtual NPU (tensors on the CPU) has no "
            "such op; compute the reference another way, or run on an NPU host"
        )
        self.op = name


def no_device_to_time(*_args: Any, **_kwargs: Any) -> Any:
    """The benchmarker an autotuner gets with no NPU: timing a config is refused, loudly."""
    raise RuntimeError("no NPU to time autotune configs on; ascend-ir-lab compiles them instead")
