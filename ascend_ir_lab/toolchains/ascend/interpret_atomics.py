"""Atomics of every element type in Triton's CPU interpreter.

Triton 3.2's interpreter does its atomics in C++ for 32- and 64-bit integers and float32
add only: `tl.atomic_or` on int8 or int16, `tl.atomic_add` on float16, or `tl.atomic_max` on
float32 fail there with "Unsupported data type", while the NPU has them.
`atomic_ops(builder)` gives the builder's `create_atomic_rmw` a fallback for those types,
done element by element in the launch's own memory, in order, as one program of a
sequential interpreter sees it: read the old value, store the new one where the mask
holds, return the old values. bf16, which the interpreter holds as its bits, combines as the
values (`tl.atomic_add` of bf16 added the bit patterns).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

__all__ = ["atomic_ops"]

_UNSUPPORTED = "Unsupported data type"


def _cell(address: int, dtype: Any) -> Any:
    """The one element at `address`, as a writable numpy array of `dtype`."""
    import numpy as np

    raw = (ctypes.c_char * dtype.itemsize).from_address(address)
    return np.frombuffer(raw, dtype=dtype)


def _combine(name: str, dtype: Any) -> Callable[[Any, Any], Any]:
    """How an atomic `name` ('ADD', 'UMAX', 'XCHG', ...) makes the new value of `dtype`."""
    import numpy as np

    unsigned = np.dtype(f"u{dtype.itemsize}") if dtype.kind == "i" else dtype

    def as_unsigned(how: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
        return lambda old, val: how(old.view(unsigned), val.view(unsigned)).view(dtype)

    table: dict[str, Callable[[Any, Any], Any]] = {
        "ADD": np.add,
        "FADD": np.add,
        "MIN": np.minimum,
        "MAX": np.maximum,
        "UMIN": as_unsigned(np.minimum),
        "UMAX": as_unsigned(np.maximum),
        "AND": np.bitwise_and,
        "OR": np.bitwise_or,
        "XOR": np.bitwise_xor,
        "XCHG": lambda old, val: val,
    }
    if name not in table:
        raise ValueError(f"unsupported rmwOp {name}")
    return table[name]


def _rmw(name: str, ptr: Any, val: Any, mask: Any, bf16: bool = False) -> Any:
    """Old values of `ptr`'s elements; `val` combined into those where `mask` holds. bf16
    elements (their bits, as the interpreter holds them) combine as their values do, the
    new value rounded to bf16 to nearest even."""
    import numpy as np

    ptrs, vals, masks = np.broadcast_arrays(ptr, val, mask)
    dtype = vals.dtype
    how = _combine(name, dtype)
    if bf16 and name != "XCHG":
        how = _on_bf16_values(_combine(name, np.dtype(np.float32)))
    old = np.zeros(vals.shape, dtype=dtype)
    for index in np.ndindex(vals.shape):
        if not masks[index]:
            continue
        cell = _cell(int(ptrs[index]), dtype)
        old[index] = cell[0]
        cell[0] = how(cell[:1].copy(), np.asarray([vals[index]], dtype=dtype))[0]
    return old


def _on_bf16_values(how: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """`how` of fp32 values, taking and giving bf16 bits."""
    from ascend_ir_lab.toolchains.ascend.interpret_bf16 import bf16_bits, bf16_values

    return lambda old, val: bf16_bits(how(bf16_values(old), bf16_values(val)))


def atomic_ops(builder: Any, handle: Callable[[Any, Any], Any]) -> dict[str, Callable[..., Any]]:
    """`create_atomic_rmw` for `builder` (the interpreter's builder class): its own where it
    has the type, the fallback where it says it has not.
    `handle(data, scalar_type)` makes the interpreter's TensorHandle."""
    rmw = builder.create_atomic_rmw

    def create_atomic_rmw(self: Any, op: Any, ptr: Any, val: Any, mask: Any, *rest: Any) -> Any:
        try:
            return rmw(self, op, ptr, val, mask, *rest)
        except ValueError as exc:
            if _UNSUPPORTED not in str(exc):
                raise
        name = str(getattr(op, "name", op)).rsplit(".", 1)[-1]
        bf16 = str(val.dtype.scalar) == "bf16"
        return handle(_rmw(name, ptr.data, val.data, mask.data, bf16), val.dtype.scalar)

    return {"create_atomic_rmw": create_atomic_rmw}
