"""triton-ascend's own language ops in Triton's CPU interpreter.

triton-ascend adds ops to `triton.language` (`tl.gather`, `tl.flip`, `tl.sort`,
`tl.extract_slice`, `tl.insert_slice`, `tl.get_element`, `tl.math.tanh`, float `%`,
`tl.compile_hint`, `tl.sync_block_*`, atomics of every element type, `~` on bools,
`tl.dot` of any size, and math functions it calls as `__hmf_*` externs: tanh, tan, atan,
log1p, pow, ...) whose builder calls Triton 3.2's interpreter does not have: under plain `TRITON_INTERPRET=1` a kernel using one fails with "'InterpreterBuilder'
object has no attribute 'create_gather'". `npu_ops()` gives the interpreter's builder those
calls for the block, computed with numpy as the ops are defined (gather along an axis, flip
and sort along a dim, strided slices, C `fmod` for float `%`); compile hints and
inter-core syncs mean nothing to a sequential interpreter and do nothing. Removed afterwards.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from ascend_ir_lab.toolchains.ascend.interpret_atomics import atomic_ops

__all__ = ["npu_ops"]


def _ints(handles: Any) -> list[int]:
    return [int(h.data.item()) if hasattr(h, "data") else int(h) for h in handles]


def _slices(offsets: Any, sizes: Any, strides: Any) -> tuple[slice, ...]:
    return tuple(
        slice(o, o + (n - 1) * s + 1, s or 1)
        for o, n, s in zip(_ints(offsets), sizes, strides, strict=True)
    )


def _ops(handle: Callable[..., Any]) -> dict[str, Callable[..., Any]]:
    """The builder methods, each returning `handle(data, dtype)` as the interpreter's own."""

    def nothing(self: Any, *_args: Any) -> None:
        return None

    def same(self: Any, value: Any = None, *_args: Any) -> Any:
        return value

    return {
        **_array_ops(handle),
        **_slice_ops(handle),
        "create_annotation": nothing,
        "create_custom_op_for_inter_core_sync": nothing,
        "get_str_attr": same,
        "get_i64_array_attr": same,
        "get_bool_attr": same,
        "get_int32_attr": same,
        "get_unit_attr": nothing,
        **_type_ops(),
    }


def _type_ops() -> dict[str, Callable[..., Any]]:
    """The element types the frontend asks the builder for that Triton 3.2's interpreter
    lacks: `~x` on a bool tensor asks for int1."""
    import triton.language as tl

    def int1(self: Any) -> Any:
        return tl.int1

    def void(self: Any) -> Any:
        return tl.void

    return {"get_int1_ty": int1, "get_void_ty": void}


def _array_ops(handle: Callable[..., Any]) -> dict[str, Callable[..., Any]]:
    """Gather, flip, sort and the elementwise builder methods numpy answers."""
    import numpy as np

    def gather(self: Any, src: Any, index: Any, axis: int) -> Any:
        return handle(np.take_along_axis(src.data, index.data.astype(np.intp), axis), src.dtype)

    def flip(self: Any, arg: Any, dim: int) -> Any:
        return handle(np.flip(arg.data, dim).copy(), arg.dtype)

    def sort(self: Any, arg: Any, dim: int, descending: bool) -> Any:
        data = np.sort(arg.data, axis=dim)
        return handle((np.flip(data, dim) if descending else data).copy(), arg.dtype)

    def tanh(self: Any, arg: Any) -> Any:
        return handle(np.tanh(arg.data), arg.dtype)

    def mod(self: Any, lhs: Any, rhs: Any) -> Any:
        return handle(np.fmod(lhs.data, rhs.data), lhs.dtype)

    return {
        "create_gather": gather,
        "create_flip": flip,
        "create_sort": sort,
        "create_tanh": tanh,
        "create_mod": mod,
    }


def _slice_ops(handle: Callable[..., Any]) -> dict[str, Callable[..., Any]]:
    """The builder methods of triton-ascend's slices and scalar extraction."""
    import numpy as np

    def extract_scalar(self: Any, src: Any, indices: Any) -> Any:
        return handle(np.array([src.data[tuple(_ints(indices))]]), src.dtype)

    def extract_slice(self: Any, ful: Any, offsets: Any, sizes: Any, strides: Any) -> Any:
        return handle(ful.data[_slices(offsets, sizes, strides)].copy(), ful.dtype)

    def insert_slice(self: Any, ful: Any, sub: Any, offsets: Any, sizes: Any, strides: Any) -> Any:
        out = ful.data.copy()
        out[_slices(offsets, sizes, strides)] = sub.data
        return handle(out, ful.dtype)

    return {
        "create_extract_scalar": extract_scalar,
        "create_extract_slice": extract_slice,
        "create_insert_slice": insert_slice,
    }


def _hmf(name: str) -> Callable[..., Any] | None:
    """numpy for one of triton-ascend's `__hmf_<name>f` / `__hmf_<name>Dh` math functions."""
    import numpy as np

    def c_round(x: Any) -> Any:
        return np.sign(x) * np.floor(np.abs(x) + 0.5)

    def ilogb(x: Any) -> Any:
        return np.frexp(x)[1] - 1

    table: dict[str, Callable[..., Any]] = {
        "atan": np.arctan,
        "tan": np.tan,
        "tanh": np.tanh,
        "log1p": np.log1p,
        "isinf": np.isinf,
        "isnan": np.isnan,
        "pow": np.power,
        "powi": np.power,
        "recip": lambda x: 1 / x,
        "relu": lambda x: np.maximum(x, 0),
        "round": c_round,
        "ldexp": lambda x, n: np.ldexp(x, n.astype(np.int32)),
        "ilogb": ilogb,
    }
    base = name.removeprefix("__hmf_")
    for suffix in ("Dh", "f", ""):
        if base.endswith(suffix) and base[: len(base) - len(suffix)] in table:
            return table[base[: len(base) - len(suffix)]]
    return None


def _extern(original: Callable[..., Any], interpreter: Any) -> Callable[..., Any]:
    """`create_extern_elementwise` that computes triton-ascend's `__hmf_*` functions."""

    def extern(self: Any, lib: str, path: str, symbol: str, args: Any, ret: Any, pure: bool) -> Any:
        how = _hmf(symbol) if symbol.startswith("__hmf_") else None
        if how is None:
            return original(self, lib, path, symbol, args, ret, pure)
        out = how(*[a.data for a in args])
        scalar = ret.scalar
        return interpreter.TensorHandle(out.astype(interpreter._get_np_dtype(scalar)), scalar)

    return extern


@contextlib.contextmanager
def npu_ops() -> Iterator[None]:
    """The interpreter's builder has triton-ascend's ops for the block (those it lacks)."""
    from triton.runtime import interpreter

    builder = interpreter.InterpreterBuilder

    def handle(data: Any, dtype: Any) -> Any:
        return interpreter.TensorHandle(data, dtype.scalar)

    added = [name for name in _ops(handle) if not hasattr(builder, name)]
    for name, method in _ops(handle).items():
        if name in added:
            setattr(builder, name, method)
    original = builder.create_extern_elementwise
    builder.create_extern_elementwise = _extern(original, interpreter)
    widened = {
        **atomic_ops(builder, interpreter.TensorHandle), **_all_ones(builder, interpreter),
        **_wrapping_constants(builder), **_index_arguments(builder),
    }  # fmt: skip
    kept = {name: getattr(builder, name) for name in widened}
    for name, method in widened.items():
        setattr(builder, name, method)
    codegen = interpreter.interpreter_builder.codegen_fns
    saved_codegen = dict(codegen)
    codegen.update(_npu_codegen())
    semantic, indexed = _indexed_semantic()
    kept_semantic = {name: getattr(semantic, name) for name in indexed}
    for name, function in indexed.items():
        setattr(semantic, name, function)
    try:
        yield
    finally:
        for name, function in kept_semantic.items():
            setattr(semantic, name, function)
        codegen.clear()
        codegen.update(saved_codegen)
        builder.create_extern_elementwise = original
        for name, method in kept.items():
            setattr(builder, name, method)
        for name in added:
            delattr(builder, name)


def _npu_codegen() -> dict[str, Any]:
    """triton-ascend's own shape bounds for `tl.dot` (any size), in place of the
    interpreter's GPU ones (16 x 16 x 16 at least)."""
    try:
        from triton.backends.ascend.compiler import min_dot_size
    except ImportError:
        return {}
    return {"min_dot_size": min_dot_size(None)}


def _all_ones(builder: Any, interpreter: Any) -> dict[str, Callable[..., Any]]:
    """`get_all_ones_value` for bools too (`~mask` is `mask ^ all-ones`)."""
    import numpy as np

    original = builder.get_all_ones_value

    def all_ones(self: Any, type: Any) -> Any:
        if interpreter._get_np_dtype(type) == np.bool_:
            return interpreter.TensorHandle(np.full(1, True), type.scalar)
        return original(self, type)

    return {"get_all_ones_value": all_ones}


_INT_CONSTANTS = {  # builder call: (bits, signed)
    "get_int8": (8, True), "get_int16": (16, True), "get_int32": (32, True),
    "get_int64": (64, True), "get_uint8": (8, False), "get_uint16": (16, False),
    "get_uint32": (32, False), "get_uint64": (64, False),
}  # fmt: skip


def _wrapping_constants(builder: Any) -> dict[str, Callable[..., Any]]:
    """Integer constants of a width that wrap as the compiled IR's do: the compiler's
    builder truncates `get_int32(0x80000001)` to an i32 (-2147483647, libdevice's
    `nextafter` builds its bit masks so); numpy 2 refuses to put the value in an int32."""

    def wrapping(name: str, bits: int, signed: bool) -> Callable[..., Any]:
        original, low, span = getattr(builder, name), -(1 << (bits - 1)) if signed else 0, 1 << bits

        def get(self: Any, value: Any) -> Any:
            if isinstance(value, int) and not low <= value < low + span:
                value = (value - low) % span + low
            return original(self, value)

        return get

    return {name: wrapping(name, *spec) for name, spec in _INT_CONSTANTS.items()}


def _index_arguments(builder: Any) -> dict[str, Callable[..., Any]]:
    """`create_make_range` with its bounds read as the compiler's builder reads them, as
    integers (`__index__`): libdevice's `set_element` passes a tensor's `shape[0]`, a
    constexpr, which numpy's `arange` divides into a float first and then refuses."""
    from operator import index

    original = builder.create_make_range

    def make_range(self: Any, start: Any, stop: Any) -> Any:
        return original(self, index(start), index(stop))

    return {"create_make_range": make_range}


def _indexed_semantic() -> tuple[Any, dict[str, Callable[..., Any]]]:
    """triton-ascend's semantic module and its `get_element`, `extract_slice` and
    `insert_slice` taking plain integers among their indices and offsets: in a compiled
    kernel a loop's counter (`for i in range(n)`) and a literal are i32 values, and the
    language converts only constexprs; the interpreter leaves both Python ints, which these
    calls would refuse ("'int' object has no attribute 'handle'")."""
    try:
        from triton.language import semantic as real_semantic
        from triton.triton_patch.language import semantic
    except ImportError:  # not triton-ascend: nothing of it to widen
        return None, {}

    def values(items: Any, builder: Any) -> list[Any]:
        return [real_semantic.to_tensor(i, builder) if isinstance(i, int) else i for i in items]

    original: dict[str, Callable[..., Any]] = {
        name: getattr(semantic, name) for name in _INDEXED if hasattr(semantic, name)
    }

    def get_element(src: Any, indice: Any, builder: Any) -> Any:
        return original["get_element"](src, values(indice, builder), builder)

    def extract_slice(ful: Any, offsets: Any, sizes: Any, strides: Any, builder: Any) -> Any:
        return original["extract_slice"](ful, values(offsets, builder), sizes, strides, builder)

    def insert_slice(
        ful: Any, sub: Any, offsets: Any, sizes: Any, strides: Any, builder: Any
    ) -> Any:
        return original["insert_slice"](ful, sub, values(offsets, builder), sizes, strides, builder)

    made: dict[str, Callable[..., Any]] = {
        "get_element": get_element,
        "extract_slice": extract_slice,
        "insert_slice": insert_slice,
    }
    return semantic, {name: made[name] for name in original}


_INDEXED = ("get_element", "extract_slice", "insert_slice")
