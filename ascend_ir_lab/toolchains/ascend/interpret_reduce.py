"""Reductions of triton-ascend's own `tl.max`/`tl.min`/`tl.argmax`/`tl.argmin`/`tl.xor_sum`
at numpy speed in Triton's CPU interpreter.

Triton 3.2's interpreter reduces with numpy when the combine function is one of upstream's
(`tl.standard._elementwise_max`, `_argmax_combine_tie_break_left`, ...), and otherwise walks
the tensor element by element, calling the combine function once per element through the
whole language layer. triton-ascend replaces `tl.max`, `tl.min`, `tl.argmax`, `tl.argmin`
by its own (`triton.triton_patch.language.standard`) with combine functions of its own, so
under plain `TRITON_INTERPRET=1` every such reduction takes the slow walk: a softmax over
rows of 1024 spends about half a second per `tl.max`. `fast_reductions()` gives those combine
functions the numpy reductions upstream's twins get (and `tl.xor_sum`, walked in both, one
too); the results are the same (numpy's
max/min propagate NaN like the interpreter's `maximum`/`minimum`; argmax/argmin take the first
index, as `tie_break_left` does).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["fast_reductions"]


def _numpy_reductions() -> dict[Any, Callable[[Any, Any], Any]]:
    """triton-ascend's combine functions -> how to reduce with numpy (ops, input tuple)."""
    import numpy as np
    from triton.language import standard

    try:
        from triton.triton_patch.language import standard as patched
    except ImportError:  # upstream triton: its interpreter knows its own max/min/argmax
        patched = None

    def reducer(val: Any, idx: Any = None) -> Callable[[Any, Any], Any]:
        return lambda ops, data: ops.min_max(data[0], val_reduce_op=val, idx_reduce_op=idx)

    def xor(ops: Any, data: Any) -> Any:
        source = data[0]
        out = np.bitwise_xor.reduce(source.handle.data, axis=ops.axis, keepdims=ops.keep_dims)
        return ops.to_tensor(out, source.dtype)

    table: dict[Any, Callable[[Any, Any], Any]] = {}
    for name, how in (
        ("_elementwise_max_default", reducer(np.max)),
        ("_elementwise_max_propagate_nan", reducer(np.max)),
        ("_elementwise_min", reducer(np.min)),
        ("_argmax_combine_tie_break_left", reducer(np.max, np.argmax)),
        ("_argmin_combine_tie_break_left", reducer(np.min, np.argmin)),
        ("_xor_combine", xor),
    ):
        for module in (patched, standard):
            combine = getattr(module, name, None)
            if combine is not None and (module is patched or name == "_xor_combine"):
                table[combine] = how
    return table


@contextlib.contextmanager
def fast_reductions() -> Iterator[None]:
    """For the block, the interpreter reduces with triton-ascend's combine functions at
    numpy speed (see the module docstring); as it was afterwards."""
    from triton.runtime import interpreter

    ops_class = getattr(interpreter, "ReduceOps", None)
    table = _numpy_reductions()
    if ops_class is None or not table:
        yield
        return
    original = ops_class.apply_impl

    def apply_impl(self: Any, data: Any) -> Any:
        how = table.get(self.combine_fn)
        return original(self, data) if how is None else how(self, data)

    ops_class.apply_impl = apply_impl
    try:
        yield
    finally:
        ops_class.apply_impl = original
