"""bf16 in Triton's CPU interpreter, computed as the NPU computes it.

Triton 3.2's interpreter holds a bf16 value as its bits in a uint16 array and computes on
those bits as integers: under plain `TRITON_INTERPRET=1`, `x + y` of two bf16 tensors adds
the bit patterns (garbage), `tl.exp`, `tl.where`, `tl.dot`, `tl.max` and casts to other types
read them as integers too, and `x + 1.0` fails (the builder has no `get_bf16`).

The NPU has no bf16 vector arithmetic: bishengir-compile computes a bf16 elementwise op in
fp32, and a chain of them (`x + y + x + x`, a loop adding into a bf16 value) stays in fp32,
rounded to bf16 once, where the value leaves the computation (a store, an explicit cast).
`bf16_as_device()` does the same for the block. Every op on bf16 values (arithmetic,
comparisons, math functions, selects, reductions, scans, dots, shape ops, triton-ascend's own
ops) is computed on their fp32 values; its bf16 result keeps its fp32 values beside its bits
(rounded to nearest even), and the next op reads those. A cast to fp32 gives them exactly;
stores, bitcasts and explicit casts to bf16 see the rounded bits. Removed afterwards.

Reductions and scans of fp16 tensors compute in fp32 as well: bishengir-compile casts the
tensor to f32 (`vcast_half_to_float`), reduces or scans it there (`reduce_sum_ra_float`, an
f32 loop for `tl.cumsum` or a combine function of one's own) and casts the result back once,
where the interpreter's numpy sum of fp16 rounds at every step (a 13-row `tl.sum` of fp16
then misses torch's fp32 reference by an ulp). A reduction reading another's result directly
reads its fp32 values (the casts between the two fold away: `tl.sum(tl.sum(x, 0), 0)` is
one cast up, two f32 reductions, one cast down); an fp16 elementwise op in between computes
in fp16, as the device's `vmuls_vs_1d_half` does, on the rounded values.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["bf16_as_device", "bf16_bits", "bf16_values"]

_FP32 = "_fp32_values"  # a handle's (bits array, fp32 values) while it is the one computed

# builder methods computing on their operands' values: bf16 operands are given as fp32
_COMPUTING = (
    "binary_op", "unary_op", "ternary_op", "create_fma", "create_fabs", "create_rsqrt",
    "create_erf", "create_dot", "create_reshape", "create_trans", "create_expand_dims",
    "create_broadcast", "create_cat", "create_join", "create_split", "create_splat",
    "create_gather", "create_flip", "create_sort", "create_tanh", "create_mod",
    "create_extract_slice", "create_insert_slice", "create_extract_scalar",
)  # fmt: skip


def bf16_values(bits: Any) -> Any:
    """fp32 values of bf16 bits held in a uint16 array."""
    return (bits.astype("uint32") << 16).view("float32")


def bf16_bits(values: Any) -> Any:
    """bf16 bits (uint16) of float values, rounded to nearest even."""
    import torch

    wide = torch.from_numpy(values.astype("float32", copy=True))
    return wide.to(torch.bfloat16).view(torch.int16).numpy().view("uint16")


def _is_bf16(dtype: Any) -> bool:
    return str(getattr(dtype, "scalar", dtype)) == "bf16"


def _is_fp16(dtype: Any) -> bool:
    return str(getattr(dtype, "scalar", dtype)) == "fp16"


def _is_fp32(dtype: Any) -> bool:
    return str(getattr(dtype, "scalar", dtype)) == "fp32"


def _fp32_of(handle: Any) -> Any:
    """The fp32 values of a bf16 handle: those it was computed as, else those of its bits."""
    kept = vars(handle).get(_FP32)
    if kept is not None and kept[0] is handle.data:
        return kept[1]
    return bf16_values(handle.data)


class _Bf16:
    """The interpreter's bf16 handles, seen as their fp32 values (see the module docstring)."""

    def __init__(self) -> None:
        import numpy as np
        import triton.language as tl
        from triton.runtime import interpreter

        self.np, self.tl, self.handle = np, tl, interpreter.TensorHandle
        self.bits = np.dtype(np.uint16)

    def computed(self, values: Any) -> Any:
        """A bf16 handle of fp32 values: their rounded bits, the values kept beside them."""
        values = self.np.asarray(values, dtype=self.np.float32)
        out = self.handle(bf16_bits(values), self.tl.bfloat16)
        vars(out)[_FP32] = (out.data, values)
        return out

    def is_bits(self, value: Any) -> bool:
        """A bf16 handle holding bits (a comparison of bf16 values is a bool array the
        interpreter labels bf16)."""
        return (
            isinstance(value, self.handle)
            and _is_bf16(value.dtype)
            and value.data.dtype == self.bits
        )

    def is_fp32_values(self, value: Any) -> bool:
        """An fp32 handle of float values (not a comparison labelled fp32)."""
        return (
            isinstance(value, self.handle)
            and _is_fp32(value.dtype)
            and value.data.dtype.kind == "f"
        )

    def as_fp32(self, value: Any) -> tuple[Any, bool]:
        """(the fp32 handle of a bf16 one, True), else (value, False)."""
        if self.is_bits(value):
            return self.handle(_fp32_of(value), self.tl.float32), True
        return value, False

    def back(self, out: Any, other_fp32: bool) -> Any:
        """An op's result on widened operands, bf16 again unless an operand was fp32."""
        if isinstance(out, tuple):
            return tuple(self.back(o, other_fp32) for o in out)
        if not isinstance(out, self.handle) or other_fp32 or not _is_fp32(out.dtype):
            return out
        if out.data.dtype.kind == "f":
            return self.computed(out.data)
        return self.handle(out.data, self.tl.bfloat16)  # a comparison, labelled as before

    def widened(self, method: Callable[..., Any]) -> Callable[..., Any]:
        """`method` computing on the fp32 values of its bf16 operands."""

        def op(builder: Any, *args: Any, **kwargs: Any) -> Any:
            pairs = [self.as_fp32(a) for a in args]
            if not any(w for _, w in pairs):
                return method(builder, *args, **kwargs)
            # an operand that was fp32 already (a dot's accumulator): the result is fp32
            other_fp32 = any(not w and self.is_fp32_values(a) for a, w in pairs)
            return self.back(method(builder, *[a for a, _ in pairs], **kwargs), other_fp32)

        return op

    def extern(self, method: Callable[..., Any]) -> Callable[..., Any]:
        """`create_extern_elementwise` (libdevice's `__hmf_*` calls: `isnan`, `tanh`, ...)
        computing on the fp32 values of its bf16 operands; a bf16 result rounded once."""

        def call(builder: Any, lib: str, path: str, symbol: str, args: Any, ret: Any,
                 pure: bool) -> Any:  # fmt: skip
            pairs = [self.as_fp32(a) for a in args]
            if not any(w for _, w in pairs):
                return method(builder, lib, path, symbol, args, ret, pure)
            wide = self.tl.float32 if _is_bf16(ret) else ret
            out = method(builder, lib, path, symbol, [a for a, _ in pairs], wide, pure)
            return self.back(out, False) if _is_bf16(ret) else out

        return call

    def cast(self, original: Callable[..., Any]) -> Callable[..., Any]:
        """`cast_impl` reading bf16 as its fp32 values and rounding to bf16 to nearest even."""
        fp32 = self.tl.float32

        def cast_impl(builder: Any, src: Any, dst_type: Any) -> Any:
            from_bf16, to_bf16 = self.is_bits(src), _is_bf16(dst_type)
            if from_bf16 and to_bf16:
                return src
            if from_bf16:
                return original(builder, self.handle(_fp32_of(src), fp32), dst_type)
            if not to_bf16:
                return original(builder, src, dst_type)
            wide = src.data if _is_fp32(src.dtype) else original(builder, src, fp32).data
            return self.handle(bf16_bits(wide), dst_type.scalar)  # rounded: seen as bits

        return cast_impl

    def constant(self, value: float) -> Any:
        """`get_bf16`: a bf16 constant (`x + 1.0` with x of bf16)."""
        return self.handle(
            bf16_bits(self.np.array([value], dtype=self.np.float32)), self.tl.bfloat16
        )


@contextlib.contextmanager
def bf16_as_device() -> Iterator[None]:
    """For the block, bf16 computes as the module docstring says; as it was afterwards."""
    from triton.runtime import interpreter

    bf16 = _Bf16()
    builder = interpreter.InterpreterBuilder
    special = {"cast_impl": bf16.cast, "create_extern_elementwise": bf16.extern}
    saved = {name: vars(builder)[name] for name in (*_COMPUTING, *special) if name in vars(builder)}
    added = "get_bf16" not in vars(builder)
    for name, method in saved.items():
        setattr(builder, name, special.get(name, bf16.widened)(method))
    if added:
        builder.get_bf16 = lambda _builder, value: bf16.constant(value)
    ops = interpreter.ReduceScanOpIneterface
    original_apply = ops.apply
    ops.apply = _reduced_in_fp32(original_apply, bf16)
    try:
        yield
    finally:
        ops.apply = original_apply
        if added:
            del builder.get_bf16
        for name, method in saved.items():
            setattr(builder, name, method)


def _fp16_widened(bf16: _Bf16, handle: Any) -> Any:
    """The fp32 handle of an fp16 one: a reduction's own result gives the values it kept."""
    kept = vars(handle).get(_FP32)
    if kept is not None and kept[0] is handle.data:
        return bf16.handle(kept[1], bf16.tl.float32)
    return bf16.handle(handle.data.astype(bf16.np.float32), bf16.tl.float32)


def _fp16_rounded(bf16: _Bf16, handle: Any) -> Any:
    """An fp32 result rounded to fp16, its fp32 values kept for a reduction reading it next."""
    half = bf16.handle(handle.data.astype(bf16.np.float16), bf16.tl.float16)
    vars(half)[_FP32] = (half.data, handle.data)
    return half


def _reduced_in_fp32(apply: Callable[..., Any], bf16: _Bf16) -> Callable[..., Any]:
    """A reduction or scan of bf16 or fp16 tensors computed on their fp32 values, its float
    results rounded to the input's type once (the interpreter's numpy `max`/`sum` of bf16
    bits orders negative values backwards; its fp16 sums round at every step)."""
    tl = bf16.tl

    def retyped(t: Any, dtype: Any, handle: Any) -> Any:
        kind = tl.block_type(dtype, list(t.type.shape)) if t.type.is_block() else dtype
        return tl.core.tensor(handle, kind)

    def wide(t: Any) -> tuple[Any, Any]:
        """(t on fp32 values, the type it was) for a bf16 or fp16 tensor, else (t, None)."""
        handle = getattr(t, "handle", None)
        if isinstance(handle, bf16.handle) and _is_fp16(handle.dtype):
            return retyped(t, tl.float32, _fp16_widened(bf16, handle)), tl.float16
        handle, was = bf16.as_fp32(handle)
        return (retyped(t, tl.float32, handle), tl.bfloat16) if was else (t, None)

    def narrow(t: Any, to: Any) -> Any:
        if isinstance(t, (tuple, list)):
            return type(t)(narrow(x, to) for x in t)
        if not isinstance(t, tl.core.tensor) or not _is_fp32(t.dtype):
            return t
        if to is tl.float16:
            return retyped(t, to, _fp16_rounded(bf16, t.handle))
        return retyped(t, to, bf16.back(t.handle, False))

    def reduced(self: Any, input: Any) -> Any:
        many = isinstance(input, tuple)
        pairs = [wide(t) for t in (input if many else (input,))]
        kinds = {was for _, was in pairs if was is not None}
        mixed = any(was is None and _is_fp32(getattr(t, "dtype", None)) for t, was in pairs)
        if mixed or len(kinds) != 1:  # with fp32 inputs (or none narrow): as the interpreter
            return apply(self, input)
        out = apply(self, tuple(t for t, _ in pairs) if many else pairs[0][0])
        return narrow(out, kinds.pop())

    return reduced
