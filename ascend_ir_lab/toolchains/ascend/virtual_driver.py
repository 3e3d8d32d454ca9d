"""triton-ascend's driver, answering for a chosen target on a host with no NPU.

Scripts written for an NPU host ask `triton.runtime.driver.active` for the target
(`get_current_target()`), the device (`get_current_device()`) and its core counts
(`utils.get_device_properties(device)["num_vectorcore"]`) to size their grids. Here the
answers come from the toolchain: bishengir-opt's `--hacc-append-device-spec` states the
target's core counts, the same figures bishengir-compile plans the kernel with.
"""

from __future__ import annotations

import contextlib
import functools
import re
import subprocess
from collections.abc import Iterator
from typing import Any

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.toolchains.common.env import tool_env
from ascend_ir_lab.toolchains.common.tools import find_tool

__all__ = ["VirtualDriver", "device_spec", "driver_answering"]

_SPEC_ENTRY = re.compile(r'"([A-Z0-9_]+)", (\d+) : i\d+')


@functools.cache
def device_spec(target: str) -> dict[str, int]:
    """The target's device spec as bishengir knows it: AI_CORE_COUNT, CUBE_CORE_COUNT,
    VECTOR_CORE_COUNT, UB_SIZE, L1_SIZE, ... (InputError for a target it does not know)."""
    command = [str(find_tool("bishengir-opt")), f"--hacc-append-device-spec=target={target}"]
    try:
        result = subprocess.run(
            command,
            input="module {}\n",
            capture_output=True,
            text=True,
            timeout=60,
            env=tool_env(),
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise InputError(f"{' '.join(command)}: no answer within 60 s") from None
    spec = {name: int(value) for name, value in _SPEC_ENTRY.findall(result.stdout)}
    if "AI_CORE_COUNT" not in spec:
        raise InputError(
            f"target {target!r}: bishengir-opt states no core counts for it "
            "(try Ascend910B1..B4 or Ascend910_93xx)"
        )
    return spec


class _Utils:
    """`driver.active.utils` of the virtual NPU."""

    def __init__(self, target: str) -> None:
        self.target = target

    def get_device_properties(self, _device: Any = None) -> dict[str, int]:
        """As triton-ascend's NPUUtils answers: max_shared_mem, num_aicore, num_vectorcore."""
        spec = device_spec(self.target)
        return {
            "max_shared_mem": 1,
            "num_aicore": spec["CUBE_CORE_COUNT"],
            "num_vectorcore": spec["VECTOR_CORE_COUNT"],
        }

    def get_arch(self) -> str:
        """The target name."""
        return self.target

    def get_aicore_num(self) -> int:
        """Cube cores of the target."""
        return self.get_device_properties()["num_aicore"]

    def get_aivector_core_num(self) -> int:
        """Vector cores of the target."""
        return self.get_device_properties()["num_vectorcore"]

    def set_device_limit(self, *_args: Any) -> None:
        """No limits to set on a virtual device."""

    def load_binary(self, *_args: Any) -> Any:
        """There is no NPU to load a kernel binary onto."""
        from ascend_ir_lab.toolchains.ascend.npu import NPUOnlyError

        raise NPUOnlyError("driver.active.utils.load_binary")


class VirtualDriver:
    """The active Triton driver under the virtual NPU."""

    def __init__(self, target: str, device: Any) -> None:
        self.target = target
        self.device = device
        self.utils = _Utils(target)

    def is_active(self) -> bool:
        """True while it stands in."""
        return True

    def get_current_target(self) -> Any:
        """GPUTarget("npu", target, 0), as triton-ascend's driver answers."""
        from triton.backends.compiler import GPUTarget

        return GPUTarget("npu", self.target, 0)

    def get_current_device(self) -> int:
        """The device index (`torch.npu.current_device()`)."""
        return int(self.device.current_device())

    def set_current_device(self, device: Any) -> None:
        """`torch.npu.set_device(device)`."""
        self.device.set_device(device)

    def get_current_stream(self, _device: Any = None) -> int:
        """The raw stream handle (0: there is one stream)."""
        return 0

    def get_device_interface(self) -> Any:
        """`torch.npu`."""
        return self.device

    def get_benchmarker(self) -> Any:
        """triton.testing.do_bench, as triton-ascend's driver gives."""
        from triton.testing import do_bench

        return do_bench

    def get_empty_cache_for_benchmark(self) -> Any:
        """A 192 MiB buffer, as triton-ascend allocates to flush the cache between timings."""
        import torch

        return torch.empty(192 * 1024 * 1024 // 4, dtype=torch.int)

    def clear_cache(self, cache: Any) -> None:
        """Zero the flush buffer."""
        cache.zero_()


@contextlib.contextmanager
def driver_answering(target: str, device: Any) -> Iterator[VirtualDriver]:
    """`triton.runtime.driver.active` is a VirtualDriver for the block, then what it was."""
    from triton.runtime import driver

    before = driver.active
    virtual = VirtualDriver(target, device)
    driver.set_active(virtual)
    try:
        yield virtual
    finally:
        driver.active = before
