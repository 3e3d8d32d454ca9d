"""A virtual NPU for hosts without one: NPU scripts run unmodified, with tensors on the CPU.

Inside `virtual_npu(target=...)`:
- `import torch_npu` (and any `torch_npu.*` submodule) works; ops that exist only on a real
  NPU (`torch_npu.npu_fusion_attention`, `torch_npu.npu_format_cast`) raise `NPUOnlyError`
  naming the op; `torch_npu.profiler.profile(...)` runs its block and profiles nothing
  (`toolchains.ascend.virtual_profiler`);
- `device='npu'`, `'npu:0'`, `torch.device('npu')`, `.npu()`, `.to('npu')` give CPU tensors
  (a `torch.overrides.TorchFunctionMode` maps NPU devices to the CPU) that say they are on
  the NPU (`toolchains.ascend.virtual_memory` keeps which ones are); an op the CPU lacks
  for a type (`bool // bool`, `torch.rand(dtype=torch.int32)`) is computed in a wider type
  and given back in its own;
- `torch.npu` (current_device, set_device, device_count, synchronize, current_stream,
  Event, get_device_name, is_available, ...) is a registered device module;
- `triton.runtime.driver.active` answers for the target (`toolchains.ascend.virtual_driver`).

Built on PyTorch's own extension points (`torch.utils.rename_privateuse1_backend`,
`generate_methods_for_privateuse1_backend`, `torch._register_device_module`,
`TorchFunctionMode`). Everything comes back on exit, also after an exception, with one
exception PyTorch imposes: the rename of the privateuse1 backend to "npu" cannot be undone
in a process. It stays and is harmless: `torch.device("npu")` still parses afterwards, but
with no NPU backend registered any tensor on it fails as it would have before.
Launches are not handled here: `toolchains.ascend.launch.intercept_launches` compiles them.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import re
import sys
import types
from collections.abc import Iterator
from typing import Any

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.toolchains.ascend.npu import NPUOnlyError, npu_available
from ascend_ir_lab.toolchains.ascend.virtual_device import DeviceModule
from ascend_ir_lab.toolchains.ascend.virtual_memory import Memory
from ascend_ir_lab.toolchains.ascend.virtual_profiler import profiler_module

__all__ = ["NPUOnlyError", "summary_line", "virtual_npu"]

_NPU_DEVICE = re.compile(r"npu(:\d+)?")
_CPU_DEVICE = re.compile(r"cpu(:\d+)?")


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


def _cpu(value: Any) -> Any:
    """`value` with an NPU device replaced by the CPU (other values unchanged)."""
    import torch

    if isinstance(value, torch.device) and value.type == "npu":
        return torch.device("cpu")
    if isinstance(value, str) and _NPU_DEVICE.fullmatch(value):
        return "cpu"
    return value


def _named(value: Any) -> str | None:
    """The device `value` names, "npu" or "cpu", else None."""
    import torch

    if isinstance(value, torch.device):
        return value.type if value.type in ("npu", "cpu") else None
    if isinstance(value, str):
        if _NPU_DEVICE.fullmatch(value):
            return "npu"
        return "cpu" if _CPU_DEVICE.fullmatch(value) else None
    return None


def _device_mode(memory: Memory) -> Any:
    from torch.overrides import TorchFunctionMode
    from torch.utils._device import _device_constructors

    constructors = _device_constructors()  # what a default device applies to (torch's list)

    class CPUForNPU(TorchFunctionMode):
        """Every `device` that names the NPU becomes the CPU; the tensors made for the NPU
        are kept in `memory` (`toolchains.ascend.virtual_memory`)."""

        def __torch_function__(
            self, func: Any, types_: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            import torch

            kwargs = dict(kwargs or {})
            if func is torch.device:  # `torch.device("npu")` names the NPU, as on its host
                return func(*args, **kwargs)
            if "device" not in kwargs and func in constructors and _default_is_npu():
                # `torch.set_default_device("npu")`: torch's own mode, under this one, would
                # give the constructor the NPU; it is named here, and mapped as any other
                kwargs["device"] = "npu"
            named = [_named(kwargs["device"])] if "device" in kwargs else []
            named += [_named(a) for a in args[1:]] if args else []
            target = "npu" if "npu" in named else "cpu" if "cpu" in named else None
            if "device" in kwargs:
                kwargs["device"] = _cpu(kwargs["device"])
            args = tuple(_cpu(a) for a in args)

            def run(*a: Any, **k: Any) -> Any:
                try:
                    return func(*a, **k)
                except NotImplementedError as exc:
                    return _widened(func, a, k, exc)

            return memory.call(func, args, kwargs, target, run)

    return CPUForNPU()


def _default_is_npu() -> bool:
    """Whether `torch.set_default_device` (or `with torch.device(...)`) chose the NPU: the
    device of torch's DeviceContext on the mode stack (`torch.get_default_device()` would
    make a tensor on it to read its index)."""
    import torch
    from torch.overrides import _get_current_function_mode_stack
    from torch.utils._device import DeviceContext

    modes = [m for m in _get_current_function_mode_stack() if isinstance(m, DeviceContext)]  # type: ignore[no-untyped-call]  # unannotated in torch
    held = getattr(getattr(torch, "_GLOBAL_DEVICE_CONTEXT", None), "device_context", None)
    context = modes[-1] if modes else held
    device = getattr(context, "device", None)
    return getattr(device, "type", None) == "npu"


_CPU_LACKS = re.compile(r"not implemented for '(Bool|Half|BFloat16|Char|Short|Int|Long)'")
_IN_PLACE = re.compile(
    r"(?!__)\w+_|__i(add|sub|mul|truediv|floordiv|mod|pow|and|or|xor|[lr]shift)__"
)


def _widened(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], exc: Exception) -> Any:
    """An op the CPU lacks for a type the NPU has it for (`bool // bool`, some half-precision
    kernels, `torch.rand(..., dtype=torch.int32)`): computed in the next wider type the CPU
    has, the result in the op's own type. Integer types widen only where the type is asked
    for (`dtype=`); in-place ops and other failures raise as they did."""
    import torch

    found = _CPU_LACKS.search(str(exc))
    if found is None or _IN_PLACE.fullmatch(str(getattr(func, "__name__", ""))):
        raise exc
    dtype = {"Bool": torch.bool, "Half": torch.float16, "BFloat16": torch.bfloat16,
             "Char": torch.int8, "Short": torch.int16, "Int": torch.int32,
             "Long": torch.int64}[found.group(1)]  # fmt: skip
    if dtype.is_floating_point or dtype == torch.bool:
        wide = torch.uint8 if dtype == torch.bool else torch.float32
    elif kwargs.get("dtype") == dtype:
        wide = torch.float64
    else:
        raise exc

    def up(value: Any) -> Any:
        if value is dtype:
            return wide
        is_narrow = isinstance(value, torch.Tensor) and value.dtype == dtype
        return value.to(wide) if is_narrow else value

    out = func(*(up(a) for a in args), **{k: up(v) for k, v in kwargs.items()})
    if isinstance(out, torch.Tensor) and out.dtype == wide:
        return out.to(dtype)
    return out


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


def _torch_npu_modules(device: DeviceModule) -> dict[str, types.ModuleType]:
    root = _NPUOnlyModule("torch_npu", "The virtual NPU's stand-in for torch_npu.")
    c_ext = _NPUOnlyModule("torch_npu._C")
    c_ext._npu_getCurrentRawStream = lambda _device=None: 0  # type: ignore[attr-defined]
    root.npu = device  # type: ignore[attr-defined]
    root._C = c_ext  # type: ignore[attr-defined]
    root.__version__ = "virtual"  # type: ignore[attr-defined]
    profiler = profiler_module(_NPUOnlyModule)
    return {
        "torch_npu": root,
        "torch_npu._C": c_ext,
        "torch_npu.npu": device,
        "torch_npu.npu.utils": device,
        "torch_npu.profiler": profiler,
    }


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
    from torch.utils.backend_registration import rename_privateuse1_backend

    rename_privateuse1_backend("npu")


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
    from torch.utils.backend_registration import generate_methods_for_privateuse1_backend

    generate_methods_for_privateuse1_backend(for_storage=False)
    try:
        yield
    finally:
        for owner, names in owners.items():
            for name in names:
                if name in vars(owner):
                    delattr(owner, name)


@contextlib.contextmanager
def _device_module(device: DeviceModule) -> Iterator[None]:
    import torch

    if "npu" in vars(torch):
        raise InputError(
            "torch.npu is already registered (a real torch_npu?): run with --no-virtual-npu"
        )
    before = sys.modules.get("torch.npu")
    torch._register_device_module("npu", device)  # type: ignore[no-untyped-call]  # unannotated in torch
    try:
        yield
    finally:
        delattr(torch, "npu")
        if before is None:
            sys.modules.pop("torch.npu", None)
        else:
            sys.modules["torch.npu"] = before


@contextlib.contextmanager
def _torch_npu_importable(device: DeviceModule) -> Iterator[None]:
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
    from ascend_ir_lab.toolchains.ascend.virtual_driver import driver_answering

    npu_available()  # asked before the virtual driver is active, so it keeps saying "none"
    _rename_backend()
    device = DeviceModule(target)
    with contextlib.ExitStack() as stack:
        stack.enter_context(_device_module(device))
        stack.enter_context(_tensor_methods())
        stack.enter_context(_torch_npu_importable(device))
        stack.enter_context(driver_answering(target, device))
        memory = stack.enter_context(Memory().entered())
        stack.enter_context(_device_mode(memory))
        stack.enter_context(_default_device_kept())
        yield device


@contextlib.contextmanager
def _default_device_kept() -> Iterator[None]:
    """`torch.set_default_device("npu")` in the block is undone after it (no NPU backend
    stays to make its tensors); another default device the block set stays."""
    import torch

    before = _default_is_npu()
    try:
        yield
    finally:
        if _default_is_npu() and not before:
            torch.set_default_device(None)
