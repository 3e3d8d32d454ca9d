"""The device boundary of the virtual NPU: what torch_npu refuses or shows for an NPU tensor.

All tensors of the virtual NPU are on the CPU, so without these rules a script could do there
what fails on an NPU host, and pass here only:
- `x.numpy()` (and `numpy.asarray(x)`) of an NPU tensor is torch's TypeError for a device
  tensor ("can't convert npu:0 device type tensor to numpy. Use Tensor.cpu() ..."), as
  torch_npu raises it; `x.numpy(force=True)` copies, as it does there;
- an op given NPU tensors beside host tensors of one element or more (`torch.allclose(out,
  ref)` with `ref` left on the host, `out - ref`, `torch.cat([out, ref])`) is torch's
  RuntimeError "Expected all tensors to be on the same device, but found at least two
  devices, npu:0 and cpu!". A host tensor of no dimension is a scalar (`x * torch.tensor(2.)`)
  and the ops that cross the boundary on purpose (`copy_`, `.to`, `.cpu()`, indexing with
  host indices, `*_as` of a shape) are left alone, as on the device;
- `print(x)` / `repr(x)` / `f"{x}"` show `device='npu:0'`, as torch prints any tensor off the
  default device;
- a Python int out of an integer NPU tensor's range set into it (`x[i] = 2**31` of int32) is
  stored wrapped, where CPU torch refuses it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "NUMPY_REFUSAL", "crossing", "mixed_devices", "numpy_refused", "printed_on_npu", "ran",
    "scalar_wrapped", "shown_on_npu",
]  # fmt: skip

NUMPY_REFUSAL = (
    "can't convert npu:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to "
    "host memory first."
)

# ops that take tensors of two devices on a real device: copies across the boundary, host
# index tensors, shapes taken from another tensor, attribute access
_CROSSING = frozenset(
    "copy_ to cpu npu __setitem__ __getitem__ index_put_ index_put set_ type_as view_as "
    "expand_as reshape_as new_tensor __get__ __set__ __repr__ __format__ __deepcopy__ "
    "__reduce_ex__ __setstate__ data_ptr untyped_storage is_set_to is_same_size".split()
)


def crossing(
    func: Any, args: Sequence[Any], kwargs: Mapping[str, Any], source: bool,
    on_npu: Callable[[Any], bool], run: Callable[..., Any],
) -> tuple[bool, Any]:  # fmt: skip
    """The call `func(*args, **kwargs)` at the boundary (`source`: args[0] is an NPU tensor):
    torch's error where the NPU refuses it, raised; (True, its result) where the boundary
    gives it (a print of an NPU tensor); else (False, None), the call to be run."""
    if source and numpy_refused(func, args, kwargs):
        raise TypeError(NUMPY_REFUSAL)
    if source and shown_on_npu(func):
        return True, printed_on_npu(on_npu, run, func, args, kwargs)
    mixed = mixed_devices(func, args, kwargs, on_npu)
    if mixed:
        raise RuntimeError(mixed)
    return False, None


def ran(
    func: Any, args: Sequence[Any], kwargs: Mapping[str, Any], source: bool,
    run: Callable[..., Any],
) -> Any:  # fmt: skip
    """`run(*args, **kwargs)`; where CPU torch refuses an int out of an NPU tensor's range,
    the same call with it wrapped (`scalar_wrapped`)."""
    try:
        return run(*args, **kwargs)
    except RuntimeError as exc:
        wrapped = scalar_wrapped(func, args, exc) if source else None
        if wrapped is None:
            raise
        return run(*wrapped, **kwargs)


def numpy_refused(func: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> bool:
    """Whether `func(*args, **kwargs)` (args[0] an NPU tensor) is a conversion to numpy that
    torch refuses for a device tensor."""
    import torch

    if func is torch.Tensor.numpy:
        force = kwargs.get("force", args[1] if len(args) > 1 else False)
        return not force
    return func is torch.Tensor.__array__


def shown_on_npu(func: Any) -> bool:
    """Whether `func` prints a tensor (its repr, or a format of it)."""
    import torch

    return func is torch.Tensor.__repr__ or func is torch.Tensor.__format__


def printed_on_npu(
    on_npu: Callable[[Any], bool], run: Callable[..., Any], func: Any, args: Sequence[Any],
    kwargs: Mapping[str, Any],
) -> Any:  # fmt: skip
    """`func(*args, **kwargs)`, a print of an NPU tensor (`run` calls it), as torch prints it
    on the device: torch's own printer, with NPU tensors saying `npu:0`, puts the suffix
    `device='npu:0'` where it goes."""
    import torch
    from torch.overrides import TorchFunctionMode

    printer = getattr(getattr(torch, "_tensor_str", None), "_str", None)
    tensor = args[0]
    if func is torch.Tensor.__format__ and (tensor.dim() == 0 or (args[1:] or [""])[0]):
        return run(*args, **kwargs)  # a number's format, or the TypeError of a format spec
    if printer is None:
        return run(*args, **kwargs)

    class DeviceShown(TorchFunctionMode):
        def __torch_function__(
            self, func: Any, types_: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            owner = getattr(func, "__self__", None)
            if func.__name__ == "__get__" and owner is torch.Tensor.device and on_npu(args[0]):
                return torch.device("npu", 0)
            return func(*args, **(kwargs or {}))

    with DeviceShown():  # the printer's own reads of `.device` see the NPU
        return printer(tensor, **(kwargs if func is torch.Tensor.__repr__ else {}))


def mixed_devices(
    func: Any, args: Sequence[Any], kwargs: Mapping[str, Any], on_npu: Callable[[Any], bool]
) -> str | None:
    """torch's refusal of an op given NPU tensors and host tensors of one element or more,
    the devices named in the order torch finds them; else None."""
    name = str(getattr(func, "__name__", ""))
    if name in _CROSSING or (name.startswith("_") and not name.startswith("__")):
        return None  # torch's private queries (`_has_compatible_shallow_copy_type`...) too
    first: str | None = None
    for tensor in _tensors((*args, *kwargs.values())):
        npu = on_npu(tensor)
        if not npu and tensor.dim() == 0:
            continue  # a host scalar goes with any device
        device = "npu:0" if npu else "cpu"
        if first is None:
            first = device
        elif device != first:
            return (
                "Expected all tensors to be on the same device, but found at least two "
                f"devices, {first} and {device}!"
            )
    return None


def _tensors(values: Iterable[Any]) -> Iterable[Any]:
    import torch

    for value in values:
        for item in value if isinstance(value, (tuple, list)) else (value,):
            if isinstance(item, torch.Tensor):
                yield item


_WRAPS = ("__setitem__", "fill_", "index_fill_", "masked_fill_")


def scalar_wrapped(func: Any, args: Sequence[Any], exc: Exception) -> tuple[Any, ...] | None:
    """`args` of an integer tensor's `x[i] = v` / `x.fill_(v)` whose Python int `v` is out of
    the type's range, with `v` wrapped to it (two's complement) as torch_npu converts the
    scalar; else None. CPU torch refuses it ("value cannot be converted to type int without
    overflow"), where the NPU stores it (suites set `int32_max + 1` into an int32 tensor)."""
    import torch

    tensor = args[0] if args else None
    if (
        "without overflow" not in str(exc)
        or getattr(func, "__name__", "") not in _WRAPS
        or not isinstance(tensor, torch.Tensor)
        or tensor.dtype.is_floating_point
        or tensor.dtype.is_complex
        or tensor.dtype == torch.bool
    ):
        return None
    bits = torch.iinfo(tensor.dtype).bits
    signed = torch.iinfo(tensor.dtype).min < 0

    def wrap(value: Any) -> Any:
        if type(value) is not int:
            return value
        value &= (1 << bits) - 1
        return value - (1 << bits) if signed and value >> (bits - 1) else value

    wrapped = (tensor, *(wrap(a) for a in args[1:]))
    changed = any(type(a) is int and a != b for a, b in zip(args[1:], wrapped[1:], strict=True))
    return wrapped if changed else None
