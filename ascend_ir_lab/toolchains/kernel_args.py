"""What a launch says about a kernel, for both Triton flavours: argument types, and the hook
that takes `kernel[grid](...)` launches over for a block."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from ascend_ir_lab.errors import InputError

# dtype names of torch/numpy → Triton pointee types
DTYPES = {
    "float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
    "bool": "i1", "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",
}  # fmt: skip


def arg_type(value: Any, *, where: str) -> str:
    """The Triton signature type of one launch argument (`*fp32`, `i32`, `i64`, `fp32`, ...);
    `where` names it in errors ("add_kernel: argument x_ptr")."""
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        dtype = str(value.dtype).rsplit(".", 1)[-1]
        if dtype not in DTYPES:
            raise InputError(
                f"{where} has dtype {dtype!r}, which has no Triton pointer type "
                f"(known: {', '.join(sorted(DTYPES))})"
            )
        return "*" + DTYPES[dtype]
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, int):
        return "i32" if -(2**31) <= value < 2**31 else "i64"
    if isinstance(value, float):
        return "fp32"
    raise InputError(
        f"{where} is a {type(value).__name__}; expected a tensor, a numpy array, an int or a "
        "float (or pass --signature)"
    )


OnLaunch = Callable[[Any, Callable[..., Any], tuple[Any, ...], dict[str, Any]], Any]


@contextlib.contextmanager
def launches_taken_over(on_launch: OnLaunch) -> Iterator[None]:
    """Route every `JITFunction.run` to `on_launch(kernel, original_run, args, kwargs)` for the
    block; the original is restored on exit, also after an exception."""
    from triton.runtime.jit import JITFunction

    original = JITFunction.run

    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        return on_launch(self, original, args, kwargs)

    JITFunction.run = run  # type: ignore[method-assign]
    try:
        yield
    finally:
        JITFunction.run = original  # type: ignore[method-assign]
