"""`torch.npu` of the virtual NPU: one device, one stream, events on the host clock."""

from __future__ import annotations

import contextlib
import time
import types
from collections.abc import Iterator
from typing import Any

__all__ = ["DeviceModule", "Event", "Stream"]


def _npu_only(name: str) -> Exception:
    from ascend_ir_lab.toolchains.ascend.npu import NPUOnlyError

    return NPUOnlyError(name)


class Stream:
    """A stream of the virtual NPU: work is already done when it is queued."""

    npu_stream = 0
    device_index = 0

    def __init__(self, *_args: Any, **_kwargs: Any) -> None:
        self.device = "npu:0"

    def synchronize(self) -> None:
        """Nothing to wait for."""

    def query(self) -> bool:
        """Always done."""
        return True

    def wait_stream(self, _other: Any) -> None:
        """Nothing to wait for."""

    def wait_event(self, _event: Any) -> None:
        """Nothing to wait for."""

    def record_event(self, event: Any = None) -> Any:
        """Record `event` (a new Event if None) now."""
        event = event if event is not None else Event()
        event.record()
        return event

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *_exc: Any) -> None:
        return None


class Event:
    """An event of the virtual NPU: records the host clock."""

    def __init__(self, *_args: Any, **_kwargs: Any) -> None:
        self._at: float | None = None

    def record(self, _stream: Any = None) -> None:
        """Note the time."""
        self._at = time.perf_counter()

    def synchronize(self) -> None:
        """Nothing to wait for."""

    def wait(self, _stream: Any = None) -> None:
        """Nothing to wait for."""

    def query(self) -> bool:
        """Always done."""
        return True

    def elapsed_time(self, end: Event) -> float:
        """Milliseconds between this event and `end` (host time)."""
        if self._at is None or end._at is None:
            raise RuntimeError("elapsed_time: both events must be recorded first")
        return (end._at - self._at) * 1000.0


_Stream = Stream  # the class, for annotations inside DeviceModule (whose `Stream` is an attribute)


class DeviceModule(types.ModuleType):
    """`torch.npu` (and `torch_npu.npu`) of the virtual NPU: one device, index 0."""

    Stream = Stream
    Event = Event

    def __init__(self, target: str) -> None:
        super().__init__("torch.npu", "The virtual NPU's device module (tensors on the CPU).")
        self.target = target
        self._device = 0
        self._stream = Stream()
        # `torch_npu.npu.utils.set_device(...)`: torch_npu keeps the same functions there
        self.utils = self
        # precision switches scripts set (`torch.npu.matmul.allow_hf32 = False`): CPU
        # matmuls compute in fp32 whatever they say
        self.matmul = types.SimpleNamespace(allow_hf32=False, allow_tf32=False)
        self.conv = types.SimpleNamespace(allow_hf32=True, allow_tf32=True)
        # torch_npu's own op settings (`torch.npu.config.allow_internal_format = False`):
        # kept, nothing of torch_npu's runs here to read them
        self.config = types.SimpleNamespace(allow_internal_format=False)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise _npu_only(f"torch.npu.{name}")

    def is_available(self) -> bool:
        """True: the virtual NPU is there."""
        return True

    def is_initialized(self) -> bool:
        """True."""
        return True

    def init(self) -> None:
        """Nothing to initialise."""

    def device_count(self) -> int:
        """One device."""
        return 1

    def current_device(self) -> int:
        """The device index set last (0)."""
        return self._device

    def set_device(self, device: Any) -> None:
        """Select a device: 0, 'npu', 'npu:0' or torch.device('npu:0')."""
        if isinstance(device, str):
            index: Any = int(device.partition(":")[2] or 0)
        else:
            index = getattr(device, "index", device)
        if index not in (None, 0):
            raise RuntimeError(f"set_device({device!r}): the virtual NPU has one device, npu:0")
        self._device = 0

    def synchronize(self, _device: Any = None) -> None:
        """Nothing to wait for: CPU work is done when it returns."""

    def current_stream(self, _device: Any = None) -> _Stream:
        """The one stream."""
        return self._stream

    default_stream = current_stream

    def set_stream(self, _stream: Any) -> None:
        """The one stream stays current."""

    def set_compile_mode(self, *_args: Any, **_kwargs: Any) -> None:
        """How torch_npu compiles its own ops: none of them runs here."""

    def is_bf16_supported(self, *_args: Any, **_kwargs: Any) -> bool:
        """True, as on Ascend 910B (the CPU computes bfloat16 too)."""
        return True

    @contextlib.contextmanager
    def stream(self, _stream: Any = None) -> Iterator[None]:
        """Run the block on the one stream."""
        yield

    @contextlib.contextmanager
    def device(self, _device: Any = None) -> Iterator[None]:
        """Run the block on the one device."""
        yield

    def get_device_name(self, _device: Any = None) -> str:
        """The target the virtual NPU stands in for (e.g. Ascend910B3)."""
        return self.target

    def get_device_properties(self, _device: Any = None) -> Any:
        """Name and core counts of the target (from the toolchain's device spec)."""
        from ascend_ir_lab.toolchains.ascend.virtual_driver import device_spec

        spec = device_spec(self.target)
        return types.SimpleNamespace(
            name=self.target,
            cube_core_num=spec["CUBE_CORE_COUNT"],
            vector_core_num=spec["VECTOR_CORE_COUNT"],
            total_memory=0,
        )

    def empty_cache(self) -> None:
        """Nothing cached."""

    def memory_allocated(self, _device: Any = None) -> int:
        """0: NPU memory is not modelled."""
        return 0

    max_memory_allocated = memory_allocated
    memory_reserved = memory_allocated
    max_memory_reserved = memory_allocated

    def reset_peak_memory_stats(self, _device: Any = None) -> None:
        """Nothing to reset."""

    def manual_seed(self, seed: int) -> None:
        """Nothing of its own to seed: NPU tensors are drawn from the CPU generator, which
        `torch.manual_seed` seeds (and which calls this, as for every device module)."""

    manual_seed_all = manual_seed

    def get_amp_supported_dtype(self) -> list[Any]:
        """Half types, as on the NPU."""
        import torch

        return [torch.float16, torch.bfloat16]

    def _is_in_bad_fork(self) -> bool:
        return False
