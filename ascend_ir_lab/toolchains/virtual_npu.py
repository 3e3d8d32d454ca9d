"""A virtual NPU for hosts without one: NPU scripts run unmodified, with tensors on the CPU.

Inside `virtual_npu(target=...)`:
- `import torch_npu` (and any `torch_npu.*` submodule) works; ops that exist only on a real
  NPU (`torch_npu.npu_fusion_attention`, `torch_npu.profiler...`) raise `NPUOnlyError`
  naming the op;
- `device='npu'`, `'npu:0'`, `torch.device('npu')`, `.npu()`, `.to('npu')` give CPU tensors
  (a `torch.overrides.TorchFunctionMode` maps NPU devices to the CPU);
- `torch.npu` (current_device, set_device, device_count, synchronize, current_stream,
  Event, get_device_name, is_available, ...) is a registered device module;
- `triton.runtime.driver.active` answers for the target (`toolchains.virtual_driver`).

Built on PyTorch's own extension points (`torch.utils.rename_privateuse1_backend`,
`generate_methods_for_privateuse1_backend`, `torch._register_device_module`,
`TorchFunctionMode`). Everything comes back on exit, also after an exception, with one
exception PyTorch imposes: the rename of the privateuse1 backend to "npu" cannot be undone
in a process. It stays and is harmless: `torch.device("npu")` still parses afterwards, but
with no NPU backend registered any tensor on it fails as it would have before.
Launches are not handled here: `toolchains.launch.intercept_launches` compiles them.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import re
import sys
import time
import types
from collections.abc import Iterator
from typing import Any

from ascend_ir_lab.errors import InputError

__all__ = ["NPUOnlyError", "summary_line", "virtual_npu"]

_NPU_DEVICE = re.compile(r"npu(:\d+)?")


class NPUOnlyError(AttributeError):
    """An op or API that exists only with a real NPU (torch_npu's kernels, its profiler)."""

    def __init__(self, name: str) -> None:
        super().__init__(
            f"{name} exists only on a real NPU: the virtual NPU (tensors on the CPU) has no "
            "such op; compute the reference another way, or run on an NPU host"
        )
        self.op = name


def summary_line(interpret: bool) -> str:
    """What the virtual NPU means for the results, in one line for the cell or command."""
    results = "results from the CPU interpreter" if interpret else "results not computed"
    return f"virtual NPU: tensors on the CPU; launches compiled offline; {results}"


# torch_npu's subpackages: `torch_npu.profiler.profile(...)` names the op, not the package
_SUBPACKAGES = frozenset(
    "profiler contrib testing utils optim dynamo distributed onnx asd _inductor".split()
)


class _NPUOnlyModule(types.ModuleType):
    """A `torch_npu.*` module: importable, every attribute is an NPUOnlyError."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if self.__name__ == "torch_npu" and name in _SUBPACKAGES:
            return importlib.import_module(f"torch_npu.{name}")
        raise NPUOnlyError(f"{self.__name__}.{name}")


class _Stream:
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
        event = event if event is not None else _Event()
        event.record()
        return event

    def __enter__(self) -> _Stream:
        return self

    def __exit__(self, *_exc: Any) -> None:
        return None


class _Event:
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

    def elapsed_time(self, end: _Event) -> float:
        """Milliseconds between this event and `end` (host time)."""
        if self._at is None or end._at is None:
            raise RuntimeError("elapsed_time: both events must be recorded first")
        return (end._at - self._at) * 1000.0


class _DeviceModule(types.ModuleType):
    """`torch.npu` (and `torch_npu.npu`) of the virtual NPU: one device, index 0."""

    Stream = _Stream
    Event = _Event

    def __init__(self, target: str) -> None:
        super().__init__("torch.npu", "The virtual NPU's device module (tensors on the CPU).")
        self.target = target
        self._device = 0
        self._stream = _Stream()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise NPUOnlyError(f"torch.npu.{name}")

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
        from ascend_ir_lab.toolchains.virtual_driver import device_spec

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


def _cpu(value: Any) -> Any:
    """`value` with an NPU device replaced by the CPU (other values unchanged)."""
    import torch

    if isinstance(value, torch.device) and value.type == "npu":
        return torch.device("cpu")
    if isinstance(value, str) and _NPU_DEVICE.fullmatch(value):
        return "cpu"
    return value


def _device_mode() -> Any:
    from torch.overrides import TorchFunctionMode

    class CPUForNPU(TorchFunctionMode):  # type: ignore[misc]
        """Every `device` that names the NPU becomes the CPU."""

        def __torch_function__(
            self, func: Any, types_: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            import torch

            if func is getattr(torch.Tensor, "npu", None):
                return args[0]  # `.npu()`: already where NPU tensors live
            kwargs = dict(kwargs or {})
            if "device" in kwargs:
                kwargs["device"] = _cpu(kwargs["device"])
            return func(*(_cpu(a) for a in args), **kwargs)

    return CPUForNPU()


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves `torch_npu` and its submodules from the virtual NPU."""

    def __init__(self, modules: dict[str, types.ModuleType]) -> None:
        self.modules = modules

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != "torch_npu" and not fullname.startswith("torch_npu."):
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: Any) -> types.ModuleType:
        module = self.modules.get(spec.name) or _NPUOnlyModule(spec.name)
        module.__path__ = []  # a package: any submodule imports
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        return None


def _torch_npu_modules(device: _DeviceModule) -> dict[str, types.ModuleType]:
    root = _NPUOnlyModule("torch_npu", "The virtual NPU's stand-in for torch_npu.")
    c_ext = _NPUOnlyModule("torch_npu._C")
    c_ext._npu_getCurrentRawStream = lambda _device=None: 0  # type: ignore[attr-defined]
    root.npu = device  # type: ignore[attr-defined]
    root._C = c_ext  # type: ignore[attr-defined]
    root.__version__ = "virtual"  # type: ignore[attr-defined]
    return {"torch_npu": root, "torch_npu._C": c_ext, "torch_npu.npu": device}


def _rename_backend() -> None:
    import torch

    name = torch._C._get_privateuse1_backend_name()
    if name == "npu":
        return
    if name != "privateuseone":
        raise InputError(
            f"the virtual NPU needs torch's privateuse1 backend, already named {name!r} in this "
            "process: run with --no-virtual-npu, or in a fresh process"
        )
    torch.utils.rename_privateuse1_backend("npu")


@contextlib.contextmanager
def _tensor_methods() -> Iterator[None]:
    """`Tensor.npu()`, `Tensor.is_npu`, `Module.npu()` for the block (torch generates them)."""
    import torch
    from torch.nn.utils.rnn import PackedSequence

    owners = {torch.Tensor: ("npu", "is_npu"), torch.nn.Module: ("npu",)}
    owners[PackedSequence] = ("npu", "is_npu")
    if hasattr(torch.Tensor, "npu"):
        yield  # someone else's methods: theirs to keep
        return
    torch.utils.generate_methods_for_privateuse1_backend(for_storage=False)
    try:
        yield
    finally:
        for owner, names in owners.items():
            for name in names:
                if name in vars(owner):
                    delattr(owner, name)


@contextlib.contextmanager
def _device_module(device: _DeviceModule) -> Iterator[None]:
    import torch

    if "npu" in vars(torch):
        raise InputError(
            "torch.npu is already registered (a real torch_npu?): run with --no-virtual-npu"
        )
    before = sys.modules.get("torch.npu")
    torch._register_device_module("npu", device)
    try:
        yield
    finally:
        delattr(torch, "npu")
        if before is None:
            sys.modules.pop("torch.npu", None)
        else:
            sys.modules["torch.npu"] = before


@contextlib.contextmanager
def _torch_npu_importable(device: _DeviceModule) -> Iterator[None]:
    saved = {k: v for k, v in sys.modules.items() if k == "torch_npu" or k.startswith("torch_npu.")}
    for name in saved:
        del sys.modules[name]
    finder = _Finder(_torch_npu_modules(device))
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for name in [k for k in sys.modules if k == "torch_npu" or k.startswith("torch_npu.")]:
            del sys.modules[name]
        sys.modules.update(saved)


@contextlib.contextmanager
def virtual_npu(target: str = "Ascend910B3") -> Iterator[Any]:
    """Stand in for an NPU of `target` for the block (see the module docstring); yields the
    `torch.npu` device module."""
    from ascend_ir_lab.toolchains.launch import npu_available
    from ascend_ir_lab.toolchains.virtual_driver import driver_answering

    npu_available()  # asked before the virtual driver is active, so it keeps saying "none"
    _rename_backend()
    device = _DeviceModule(target)
    with contextlib.ExitStack() as stack:
        stack.enter_context(_device_module(device))
        stack.enter_context(_tensor_methods())
        stack.enter_context(_torch_npu_importable(device))
        stack.enter_context(driver_answering(target, device))
        stack.enter_context(_device_mode())
        yield device
