"""Per-op costs of Triton's CPU interpreter cut where the result cannot change.

Loads and stores: the interpreter moves every element through its own pointer, one at a
time (a 12k-element load costs a third of a millisecond). `direct_memory(spans)` moves a
block whose pointers are consecutive elements lying inside one of the launch's tensors
(`spans`: their storages' byte ranges) as one numpy copy of that memory: the same bytes,
masked elements as the interpreter fills them (`other`, or zeros); any other block, and
every small one, goes the interpreter's own way.

A store's elements that lie outside every tensor of the launch are not written: the
interpreter would write them over the host's own memory (plain `TRITON_INTERPRET=1` then
crashes, or corrupts what the script reads later; on a device such bytes land past the
tensor's end). Each kernel line that stored there is named in one warning per launch. A
kernel that makes a pointer of an integer (`tl.load(table + i).to(tl.pointer_type(...))`:
a table of `tensor.data_ptr()`s the script filled) reaches memory the launch was handed by
address, which no argument shows: from then on its stores go where it says, as in plain
`TRITON_INTERPRET=1` and on the device.

Triton 3.2's interpreter maps a Triton dtype to its numpy dtype (`_get_np_dtype`) by
building a table of 19 dtypes, each hashed through Python, on every call: about a tenth of
each op's time in a kernel of scalar loads and small blocks, called several times per op.
`cheap_dtypes()` answers each dtype from a table built once, keyed by the dtype's name (as
Triton's own dtype equality is); the answers are the original function's, asked once per
name.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

__all__ = ["cheap_dtypes", "direct_memory", "tensor_spans"]

_SMALL = 64  # elements: below this the interpreter's own loop is as quick


@contextlib.contextmanager
def cheap_dtypes() -> Iterator[None]:
    """For the block, the interpreter's `_get_np_dtype` answers from a table (see the module
    docstring); as it was afterwards."""
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter

    original = interpreter._get_np_dtype
    pointer, block = tl.pointer_type, tl.block_type
    address = np.dtype(np.uint64)
    known: dict[str, Any] = {}

    def get_np_dtype(tt_dtype: Any) -> Any:
        if isinstance(tt_dtype, block):
            tt_dtype = tt_dtype.element_ty
        if isinstance(tt_dtype, pointer):
            return address
        name = getattr(tt_dtype, "name", None)
        found = known.get(name) if isinstance(name, str) else None
        if found is None:
            found = original(tt_dtype)
            if isinstance(name, str) and type(tt_dtype) is tl.dtype:
                known[name] = found
        return found

    interpreter._get_np_dtype = get_np_dtype
    try:
        yield
    finally:
        interpreter._get_np_dtype = original


def tensor_spans(args: Any) -> list[tuple[int, int]]:
    """The byte ranges `[lo, hi)` of the storages of the CPU tensors among `args`."""
    import torch

    spans = []
    for value in args:
        if isinstance(value, torch.Tensor) and value.device.type == "cpu":
            storage = value.untyped_storage()
            spans.append((storage.data_ptr(), storage.data_ptr() + storage.nbytes()))
    return spans


def _block(ptrs: Any, spans: Any) -> Any:
    """numpy view of the memory a block of consecutive pointers covers, or None."""
    import ctypes

    import numpy as np
    from triton.runtime import interpreter

    if ptrs.data.size < _SMALL:  # scalars and small blocks: the interpreter's own way
        return None
    flat = ptrs.data.reshape(-1)
    dtype = interpreter._get_np_dtype(ptrs.get_element_ty())
    if dtype.itemsize * 8 != ptrs.get_element_ty().primitive_bitwidth:
        return None
    lo = int(flat[0])
    hi = lo + flat.size * dtype.itemsize
    if int(flat[-1]) != hi - dtype.itemsize or not any(a <= lo and hi <= b for a, b in spans):
        return None
    if not (np.diff(flat) == dtype.itemsize).all():
        return None
    raw = (ctypes.c_char * (hi - lo)).from_address(lo)
    return np.frombuffer(raw, dtype=dtype).reshape(ptrs.data.shape)


def _mask(mask: Any) -> Any:
    """The mask's boolean array (block-pointer loads and stores pass a bare numpy array)."""
    import numpy as np

    return mask if isinstance(mask, np.ndarray) else np.asarray(mask.data)


def _outside(ptrs: Any, through: Any, spans: Any) -> Any:
    """The mask of the elements to be stored that lie outside every span, or None if none."""
    import numpy as np

    data = ptrs.data
    width = max(1, ptrs.get_element_ty().primitive_bitwidth // 8)
    inside = np.zeros(data.shape, dtype=bool)
    for lo, hi in spans:
        inside |= (data >= lo) & (data <= hi - width)
    outside = np.broadcast_to(through, data.shape) & ~inside
    return outside if outside.any() else None


def _kernel_frame() -> tuple[str, int]:
    """(file, line) of the innermost frame of the user's code (the kernel running)."""
    import sys

    skip = ("/triton/", "/numpy/", "/torch/", "/ascend_ir_lab/")
    frame = sys._getframe(1)
    while frame.f_back is not None and any(s in frame.f_code.co_filename for s in skip):
        frame = frame.f_back
    return frame.f_code.co_filename, frame.f_lineno


def _warn_dropped(dropped: dict[tuple[str, int], int]) -> None:
    import warnings

    for (file, line), count in dropped.items():
        warnings.warn_explicit(
            f"the kernel stored {count} element(s) outside every tensor of the launch here;"
            " not written (Triton's CPU interpreter would write them over the host's memory)",
            RuntimeWarning,
            file,
            line,
        )


@contextlib.contextmanager
def direct_memory(spans: Any, *, bounded: bool = True) -> Iterator[None]:
    """For the block, loads and stores of consecutive elements inside `spans` (byte ranges
    `[lo, hi)` of the launch's tensors) copy memory with numpy (see the module docstring).

    `bounded`: `spans` are all the memory the launch may write (its arguments are tensors
    this process can see): elements stored outside them are dropped and warned of."""
    import numpy as np
    from triton.runtime import interpreter

    builder = interpreter.InterpreterBuilder
    load, store = builder.create_masked_load, builder.create_masked_store
    ranges = list(spans)
    dropped: dict[tuple[str, int], int] = {}
    by_address = [False]  # the kernel made a pointer of an integer

    def bounded_store(self: Any, ptrs: Any, value: Any, mask: Any, *rest: Any) -> Any:
        through = _mask(mask)
        outside = _outside(ptrs, through, ranges) if bounded and not by_address[0] else None
        if outside is not None:
            where = _kernel_frame()
            dropped[where] = dropped.get(where, 0) + int(outside.sum())
            import triton.language as tl

            kept = np.broadcast_to(through, outside.shape) & ~outside
            mask = interpreter.TensorHandle(kept, tl.int1)
        return store(self, ptrs, value, mask, *rest)

    def masked_load(self: Any, ptrs: Any, mask: Any, other: Any, *rest: Any) -> Any:
        view = _block(ptrs, ranges)
        through = _mask(mask)
        if view is None or through.shape != view.shape:
            return load(self, ptrs, mask, other, *rest)
        if through.all():
            return interpreter.TensorHandle(view.copy(), ptrs.get_element_ty())
        fill = np.zeros((), view.dtype) if other is None else other.data.astype(view.dtype)
        out = np.where(through, view, fill)
        return interpreter.TensorHandle(out, ptrs.get_element_ty())

    def masked_store(self: Any, ptrs: Any, value: Any, mask: Any, *rest: Any) -> Any:
        view = _block(ptrs, ranges)
        through = _mask(mask)
        if (
            view is None
            or value.data.dtype.itemsize != view.dtype.itemsize
            or not (value.data.shape == through.shape == view.shape)
        ):
            return bounded_store(self, ptrs, value, mask, *rest)
        np.copyto(view, value.data.view(view.dtype), where=through)
        return None

    builder.create_masked_load, builder.create_masked_store = masked_load, masked_store
    try:
        with _pointers_made(builder, by_address):
            yield
    finally:
        builder.create_masked_load, builder.create_masked_store = load, store
    _warn_dropped(dropped)


@contextlib.contextmanager
def _pointers_made(builder: Any, seen: list[bool]) -> Iterator[None]:
    """For the block, `seen[0]` becomes True once the kernel makes a pointer of an integer."""
    int_to_ptr, bitcast = builder.create_int_to_ptr, builder.create_bitcast

    def made_pointer(self: Any, src: Any, dst_type: Any) -> Any:
        seen[0] = True
        return int_to_ptr(self, src, dst_type)

    def cast_bits(self: Any, src: Any, dst_type: Any) -> Any:
        if getattr(dst_type, "is_ptr", lambda: False)():
            seen[0] = True
        return bitcast(self, src, dst_type)

    builder.create_int_to_ptr, builder.create_bitcast = made_pointer, cast_bits
    try:
        yield
    finally:
        builder.create_int_to_ptr, builder.create_bitcast = int_to_ptr, bitcast
