"""A virtual GPU for upstream Triton on a host with none: GPU scripts run, launches cross-compile.

Scripts written for a GPU ask triton's driver for the device and its figures before they
launch anything: `driver.active.get_active_torch_device()` for their tensors,
`get_current_target()` to pick configs, `utils.get_device_properties(i)` (SM count,
registers, shared memory) to size grids, a warmed-up kernel's `n_regs` for occupancy, and
`torch.cuda.get_device_capability()` to choose a code path. With no GPU each of those
fails. Inside `virtual_gpu(target)`:

- triton's active driver answers for `target`: tensors live on the CPU, the properties are
  those of the GPU the target names (`PROPERTIES`), a compiled kernel's register count is
  read from its cubin by NVIDIA's `cuobjdump` (bundled with triton), a compiled kernel's
  own launch does nothing (the launches are cross-compiled and skipped by the capture);
- autotuners time nothing: every config is compiled (once, as the user's code compiles it)
  and each takes the same time, so the first stands in for the best;
- `torch.cuda.get_device_capability` and `get_device_name` answer for the target.

Everything comes back as it was on exit, also after an exception.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["PROPERTIES", "VirtualGPUDriver", "summary_line", "virtual_gpu"]

# Figures of the GPU each target names, from the vendors' data sheets (H100 SXM, A100 SXM,
# MI300X): what `cudaGetDeviceProperties` / `hipGetDeviceProperties` report there.
PROPERTIES: dict[str, dict[str, Any]] = {
    "cuda:90": {"name": "NVIDIA H100 (virtual)", "multiprocessor_count": 132,
                "max_num_regs": 65536, "max_shared_mem": 232448, "warpSize": 32,
                "sm_clock_rate": 1980000, "mem_clock_rate": 2619000, "mem_bus_width": 5120},
    "cuda:80": {"name": "NVIDIA A100 (virtual)", "multiprocessor_count": 108,
                "max_num_regs": 65536, "max_shared_mem": 166912, "warpSize": 32,
                "sm_clock_rate": 1410000, "mem_clock_rate": 1593000, "mem_bus_width": 5120},
    "hip:gfx942": {"name": "AMD Instinct MI300X (virtual)", "multiprocessor_count": 304,
                   "max_num_regs": 65536, "max_shared_mem": 65536, "warpSize": 64,
                   "sm_clock_rate": 2100000, "mem_clock_rate": 2600000, "mem_bus_width": 8192},
}  # fmt: skip
_REG = re.compile(rb"REG:(\d+)")


def summary_line(target: str) -> str:
    """What the cell's output says about the virtual GPU."""
    return (
        f"virtual GPU ({target}): tensors on the CPU; launches cross-compiled for {target}, "
        "not run; results not computed"
    )


class _SkippedLaunch:
    """A compiled kernel's launcher on the virtual GPU: the launch is skipped."""

    def __init__(self, *_args: Any, **_kwargs: Any) -> None:
        return None

    def __call__(self, *_args: Any, **_kwargs: Any) -> None:
        return None


class _Utils:
    """`driver.active.utils` of the virtual GPU."""

    def __init__(self, target: str) -> None:
        self.target = target

    def get_device_properties(self, _device: Any = None) -> dict[str, Any]:
        """The figures of the target's GPU."""
        return dict(PROPERTIES[self.target])

    def load_binary(self, name: str, binary: bytes, _shared: int, _device: Any) -> tuple[Any, ...]:
        """(module, function, n_regs, n_spills, n_max_threads) as loading it would give."""
        return None, None, registers(name, binary), 0, 1024

    def unload_module(self, *_args: Any) -> None:
        """Nothing was loaded."""


def registers(name: str, binary: bytes) -> int:
    """Registers per thread of `name` in a cubin, as `cuobjdump --dump-resource-usage`
    states them (0 where it cannot say: an hsaco, no cuobjdump)."""
    if not isinstance(binary, bytes) or not binary.startswith(b"\x7fELF"):
        return 0
    try:
        from triton import knobs

        tool = knobs.nvidia.cuobjdump.path  # the cuobjdump triton ships (or $TRITON_CUOBJDUMP_PATH)
    except Exception:  # noqa: BLE001 - no NVIDIA backend: no figure
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        cubin = Path(tmp) / f"{name}.cubin"
        cubin.write_bytes(binary)
        try:
            out = subprocess.run(
                [str(tool), "--dump-resource-usage", str(cubin)],
                capture_output=True, timeout=60, check=False,
            ).stdout  # fmt: skip
        except (OSError, subprocess.TimeoutExpired):
            return 0
    found = _REG.search(out)
    return int(found.group(1)) if found else 0


class VirtualGPUDriver:
    """triton's active driver on a host with no GPU, answering for one target."""

    virtual = True

    def __init__(self, target: str) -> None:
        from ascend_ir_lab.toolchains.triton.compile import parse_target

        self.target = target
        self.backend, self.arch, self.warp_size = parse_target(target)
        self.utils = _Utils(target)
        self.launcher_cls = _SkippedLaunch

    def is_active(self) -> bool:
        """Always the active one while it is set."""
        return True

    def get_current_target(self) -> Any:
        """The target's GPUTarget."""
        from triton.backends.compiler import GPUTarget

        return GPUTarget(self.backend, self.arch, self.warp_size)

    def get_active_torch_device(self) -> Any:
        """Tensors live on the CPU."""
        import torch

        return torch.device("cpu")

    def get_current_device(self) -> int:
        """Device 0."""
        return 0

    def set_current_device(self, _device: Any) -> None:
        """There is one device."""

    def get_current_stream(self, _device: Any = None) -> int:
        """Stream 0."""
        return 0

    def get_device_capability(self, _device: Any = None) -> tuple[int, int]:
        """(major, minor) of a cuda target; (9, 4) stands for gfx942's."""
        arch = self.arch
        return (arch // 10, arch % 10) if isinstance(arch, int) else (9, 4)

    def get_benchmarker(self) -> Any:
        """An autotuner's timer: runs the config once (it is compiled), times nothing."""
        return _untimed

    def get_empty_cache_for_benchmark(self) -> Any:
        """A small buffer (nothing is timed)."""
        import torch

        return torch.empty(1, dtype=torch.int8)

    def clear_cache(self, _cache: Any) -> None:
        """Nothing to clear."""


def _untimed(kernel_call: Any, quantiles: Any = None, **_kwargs: Any) -> Any:
    kernel_call()
    return [0.0] * len(quantiles) if quantiles else 0.0


@contextlib.contextmanager
def virtual_gpu(target: str) -> Iterator[VirtualGPUDriver]:
    """Make triton's driver (and torch.cuda's capability queries) answer for `target`."""
    from triton.runtime import driver

    fake = VirtualGPUDriver(target)
    saved = dict(vars(driver))
    driver.set_active(fake)
    try:
        with _torch_cuda_answers(fake):
            yield fake
    finally:
        vars(driver).clear()
        vars(driver).update(saved)


@contextlib.contextmanager
def _torch_cuda_answers(fake: VirtualGPUDriver) -> Iterator[None]:
    """`torch.cuda.get_device_capability()` / `get_device_name()` answer for the target
    (CPU torch raises "Torch not compiled with CUDA enabled" there)."""
    try:
        import torch
    except ImportError:
        yield
        return
    cuda = torch.cuda
    saved = {name: getattr(cuda, name) for name in ("get_device_capability", "get_device_name")}
    cuda.get_device_capability = fake.get_device_capability  # type: ignore[assignment]
    cuda.get_device_name = lambda _device=None: PROPERTIES[fake.target]["name"]  # type: ignore[assignment]
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(cuda, name, value)
