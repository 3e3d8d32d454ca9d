"""Which tensors live on the virtual NPU: all tensors are on the CPU, some stand for NPU ones.

A tensor is on the virtual NPU when it was made for it (`device='npu'`, `.npu()`,
`.to('npu')`, `device=x.device` of an NPU tensor), computed from one (`x + y`, views,
`empty_like`), or shares the storage of one (`nn.Parameter(x)`, `param.data = x`). Such a
tensor says so as it would on an NPU host: `x.device` is `npu:0`, `x.is_npu` is true,
`x.is_cpu` false. `.cpu()` / `.to('cpu')` of it, and `.npu()` of a CPU tensor, copy as they
do across a real device boundary, so a reference taken with `.cpu()` before an in-place
kernel keeps the values it had.

A launch giving a kernel CPU tensors beside NPU ones fails as triton-ascend's launcher fails
on an NPU host (`ValueError: Pointer argument (at N) cannot be accessed from Triton (cpu
tensor?)`); one of CPU tensors alone runs, as code written for this tool (a cell's plain
`torch.randn(n)`) has always run.

While a launch is handled (`host_view()`), the tool's own code sees every tensor where it
really is, on the CPU.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ascend_ir_lab.toolchains.ascend import virtual_boundary as boundary

__all__ = ["Memory", "active", "host_view", "unreachable_argument"]

_ACTIVE: list[Memory] = []  # the virtual NPUs entered, innermost last


def active() -> Memory | None:
    """The memory of the virtual NPU in force, else None."""
    return _ACTIVE[-1] if _ACTIVE else None


def host_view() -> contextlib.AbstractContextManager[None]:
    """For the block, tensors report where they really are (the CPU), on the virtual NPU in
    force; elsewhere nothing changes."""
    memory = active()
    return memory.host_view() if memory is not None else contextlib.nullcontext()


class Memory:
    """The tensors on the virtual NPU (weakly held: a tensor freed is forgotten)."""

    def __init__(self) -> None:
        # the storages of NPU tensors: a storage's Python object lives as long as the storage
        # does (torch keeps it), and storages compare by identity
        self._storages: weakref.WeakSet[Any] = weakref.WeakSet()
        self._host_view = 0

    @contextlib.contextmanager
    def entered(self) -> Iterator[Memory]:
        """This memory is the one in force for the block."""
        _ACTIVE.append(self)
        try:
            yield self
        finally:
            _ACTIVE.remove(self)

    @contextlib.contextmanager
    def host_view(self) -> Iterator[None]:
        """For the block, tensors report where they really are (the CPU)."""
        self._host_view += 1
        try:
            yield
        finally:
            self._host_view -= 1

    def on_npu(self, tensor: Any) -> bool:
        """Whether `tensor` stands for an NPU tensor."""
        storage = _storage(tensor)
        return storage is not None and storage in self._storages

    def mark(self, value: Any, npu: bool = True) -> Any:
        """`value` (a tensor, or a tuple/list of them) put on the NPU (a tensor sharing its
        storage is there too); with `npu=False`, nothing changes."""
        import torch

        if not npu:
            return value
        for tensor in value if isinstance(value, (tuple, list)) else (value,):
            storage = _storage(tensor) if isinstance(tensor, torch.Tensor) else None
            if storage is not None:
                self._storages.add(storage)
        return value

    def call(
        self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], target: str | None,
        run: Callable[..., Any],
    ) -> Any:  # fmt: skip
        """`run(*args, **kwargs)`, the torch function `func` with its devices already mapped to
        the CPU; `target` is "npu"/"cpu" where the call named a device, else None. Returns
        the result placed as it would be on an NPU host."""
        import torch

        if self._host_view:  # the tool's own code: every tensor as it is, on the CPU
            return run(*args, **kwargs)
        if getattr(func, "__name__", "") in ("__get__", "__set__"):
            return self._attribute(func, args, kwargs, run)
        source = bool(args) and isinstance(args[0], torch.Tensor) and self.on_npu(args[0])
        decided, value = boundary.crossing(func, args, kwargs, source, self.on_npu, run)
        if decided:  # a print of an NPU tensor
            return value
        if func is getattr(torch.Tensor, "npu", None):
            return args[0] if source else self.mark(args[0].clone())
        target = self._moved_to(func, args, target)
        out = boundary.ran(func, args, kwargs, source, run)
        if args and out is args[0]:
            if func not in (torch.Tensor.cpu, torch.Tensor.to) or not target:
                return out  # in place (`copy_`, `add_`), `.contiguous()`: where it was
            if (target == "npu") != source:  # across the device boundary: a copy
                out = out.clone()
        if target is None:
            target = "npu" if _any_tensor(args, kwargs, self.on_npu) else None
        return self.mark(out, target == "npu") if target else out

    def _attribute(
        self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], run: Callable[..., Any]
    ) -> Any:
        """`x.device`, `x.is_cpu`, `x.is_npu` (other attributes as they are)."""
        import torch

        owner, name = getattr(func, "__self__", None), func.__name__
        if name == "__get__" and owner is torch.Tensor.device and self.on_npu(args[0]):
            return torch.device("npu", 0)
        if name == "__get__" and owner is torch.Tensor.is_cpu:
            return not self.on_npu(args[0])
        if name == "__get__" and owner is vars(torch.Tensor).get("is_npu"):
            return self.on_npu(args[0])
        out = run(*args, **kwargs)  # `param.data = t`: param is on t's storage, t's device
        if name == "__get__" and isinstance(out, torch.Tensor) and self.on_npu(args[0]):
            self.mark(out)  # `x.data`, `x.T`, `x.grad`... of an NPU tensor
        return out

    def _moved_to(self, func: Any, args: tuple[Any, ...], target: str | None) -> str | None:
        """The device `.cpu()` / `x.to(other)` moves to; else `target`."""
        import torch

        if func is torch.Tensor.cpu:
            return "cpu"
        if func is torch.Tensor.to and target is None:
            other = next((a for a in args[1:] if isinstance(a, torch.Tensor)), None)
            if other is not None:  # `x.to(other)`: other's device
                return "npu" if self.on_npu(other) else "cpu"
        return target


def _storage(tensor: Any) -> Any:
    try:
        return tensor.untyped_storage()
    except (RuntimeError, TypeError, AttributeError, NotImplementedError):
        return None  # sparse, nested or otherwise storage-less


def _any_tensor(args: Sequence[Any], kwargs: Mapping[str, Any], test: Any) -> bool:
    import torch

    for value in (*args, *kwargs.values()):
        for item in value if isinstance(value, (tuple, list)) else (value,):
            if isinstance(item, torch.Tensor) and test(item):
                return True
    return False


def unreachable_argument(fn: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> str | None:
    """triton-ascend's launcher's refusal of a host tensor among a launch's arguments that
    also holds NPU tensors (on the virtual NPU), else None. A launch of host tensors alone
    runs: code written for this tool (a cell's `torch.randn(n)`) has no NPU tensors at all."""
    import torch

    memory = active()
    if memory is None:
        return None
    names = list(getattr(fn, "arg_names", ()))
    values = [*args, *(kwargs[n] for n in names[len(args) :] if n in kwargs)]
    tensors = [(i, v) for i, v in enumerate(values) if isinstance(v, torch.Tensor) and v.data_ptr()]
    placed = [(i, memory.on_npu(v)) for i, v in tensors]
    if not any(npu for _, npu in placed):
        return None
    index = next((i for i, npu in placed if not npu), None)
    if index is None:
        return None
    return f"Pointer argument (at {index}) cannot be accessed from Triton (cpu tensor?)"
