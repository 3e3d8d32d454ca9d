"""What a launch says about a kernel, for both Triton flavours: triton's own specialisation of
the call (with the argument at fault named when there is none), and the hook that takes
`kernel[grid](...)` launches over for a block."""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.toolchains.common.specialise import Specialisation, specialise


def specialised(
    fn: Any, run: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any], target: Any
) -> Specialisation:
    """triton's own specialisation of `fn[grid](*args, **kwargs)` (see `specialise`); when
    triton cannot take the call, the error names the argument at fault."""
    if getattr(fn, "params", None) is None:  # a kernel of no parameters has params == []
        raise InputError(f"{fn!r} is not a @triton.jit kernel")
    try:
        return specialise(fn, run, args, kwargs, target)
    except InputError as exc:
        bad = _unpassable(fn, args, kwargs)
        if bad:
            raise InputError(bad) from exc
        raise


def _unpassable(fn: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> str | None:
    """Why an argument of the call has no Triton type, or None when each has one."""
    name = getattr(getattr(fn, "fn", fn), "__name__", "kernel")
    params = list(fn.params)
    values = {**{p.name: a for p, a in zip(params, args, strict=False)}, **kwargs}
    known = _known_dtypes()
    for p in params:
        if p.is_constexpr or p.name not in values:
            continue
        value = values[p.name]
        if hasattr(value, "dtype") and hasattr(value, "data_ptr" if known is None else "dtype"):
            dtype = str(value.dtype).rsplit(".", 1)[-1]
            if known is not None and hasattr(value, "shape") and dtype not in known:
                return (
                    f"{name}: argument {p.name} has dtype {dtype!r}, which has no Triton "
                    f"pointer type (known: {', '.join(sorted(known))})"
                )
        elif not _scalar_or_special(value):
            return (
                f"{name}: argument {p.name} is a {type(value).__name__}; expected a tensor, a "
                "numpy array, an int, a float or None (or pass --signature)"
            )
    return None


def _scalar_or_special(value: Any) -> bool:
    """None, a number, a tuple, a tl.dtype, a TensorDescriptor or a kernel: triton decides."""
    if value is None or isinstance(value, (bool, int, float, tuple)):
        return True
    return any(hasattr(value, a) for a in ("block_shape", "cache_key", "to_ir", "tma_desc_cpu_ptr"))


def _known_dtypes() -> set[str] | None:
    """Tensor dtype names triton has a pointer type for (None: this triton does not say)."""
    for module in ("triton._utils", "triton.runtime.jit"):
        try:
            table = importlib.import_module(module).type_canonicalisation_dict
        except (ImportError, AttributeError):
            continue
        # torch's names (bfloat16, int32), not triton's own (bf16, i32)
        return {k for k in table if not k.startswith(("fp", "bf", "i", "u")) or "int" in k
                or "float" in k}  # fmt: skip
    return None


OnLaunch = Callable[[Any, Callable[..., Any], tuple[Any, ...], dict[str, Any]], Any]


_TAKEN_OVER: list[Callable[..., Any]] = []  # the original runs, outermost first


def triton_run() -> Callable[..., Any]:
    """triton's own `JITFunction.run`, also while launches are taken over."""
    from triton.runtime.jit import JITFunction

    return _TAKEN_OVER[0] if _TAKEN_OVER else JITFunction.run


@contextlib.contextmanager
def launches_taken_over(on_launch: OnLaunch) -> Iterator[None]:
    """Route every `JITFunction.run` to `on_launch(kernel, original_run, args, kwargs)` for the
    block; the original is restored on exit, also after an exception."""
    from triton.runtime.jit import JITFunction

    original = JITFunction.run

    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        return on_launch(self, original, args, kwargs)

    _TAKEN_OVER.append(original)
    JITFunction.run = run
    try:
        yield
    finally:
        JITFunction.run = original
        _TAKEN_OVER.remove(original)
