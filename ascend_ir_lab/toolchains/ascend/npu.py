"""This host's NPU: whether there is one, and what stands in for it where there is none."""

from __future__ import annotations

import functools
import warnings
from typing import Any

__all__ = ["NPUOnlyError", "no_device_to_time", "npu_available"]


@functools.lru_cache(maxsize=1)
def npu_available() -> bool:
    """Whether Triton has an active NPU driver on this host (False: launches cannot run).

    Asked once per process: triton-ascend's driver probe warns about missing CANN tools
    each time it runs, and an NPU does not appear mid-session.
    """
    try:
        from triton.runtime import driver

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return str(driver.active.get_current_target().backend) == "npu"
    except Exception:  # noqa: BLE001 - "0 active drivers", no torch_npu, no CANN: all mean none
        return False


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
