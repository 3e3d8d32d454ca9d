"""Values keep, in Triton's CPU interpreter, the types Triton gives them.

Faults of Triton 3.2's interpreter (plain `TRITON_INTERPRET=1` has them too), mended for the
block by `types_kept()`:

- A reduction or scan returns numpy's result as it comes: `np.sum`/`np.cumsum` of int8,
  int16 or bool values is int64, labelled with the input's Triton type. Stored through an
  int8 pointer, each element then writes 8 bytes: 7 bytes past the end of the last one, over
  the host's memory (a later free aborts the process). The result is given the numpy type
  of its Triton type, as the compiled kernel computes it.
- `tl.sort`, `tl.topk` and the other helpers sizing by `_log2(n)` read `.value` of a
  constexpr, and the interpreter gives them plain ints ("'int' object has no attribute
  'value'").
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

__all__ = ["types_kept"]


@contextlib.contextmanager
def types_kept() -> Iterator[None]:
    """Both mends of the module docstring, for the block; as it was afterwards."""
    with _results_typed(), _constexpr_helpers_take_ints():
        yield


@contextlib.contextmanager
def _results_typed() -> Iterator[None]:
    """Reductions and scans return arrays of their Triton type's numpy type."""
    from triton.runtime import interpreter

    ops = interpreter.ReduceScanOpIneterface
    original = ops.to_tensor

    def to_tensor(self: Any, ret: Any, dtype: Any) -> Any:
        if hasattr(ret, "shape") and ret.shape:
            wanted = interpreter._get_np_dtype(dtype)
            if ret.dtype != wanted:
                ret = ret.astype(wanted)
        return original(self, ret, dtype)

    ops.to_tensor = to_tensor
    try:
        yield
    finally:
        ops.to_tensor = original


@contextlib.contextmanager
def _constexpr_helpers_take_ints() -> Iterator[None]:
    """triton's `_log2` and `_is_power_of_two` (module globals of triton.language.standard
    and triton-ascend's patch of it) read `.value` of a constexpr: for the block they also
    take the plain ints the interpreter passes, with the same answers."""
    import importlib

    import triton.language as tl

    def unwrapped(helper: Any) -> Any:
        return lambda i: helper(i if isinstance(i, tl.constexpr) else tl.constexpr(i))

    modules = []
    for name in ("triton.language.standard", "triton.triton_patch.language.standard"):
        with contextlib.suppress(ImportError):
            modules.append(importlib.import_module(name))
    saved = [(m, k, vars(m)[k]) for m in modules for k in ("_log2", "_is_power_of_two")
             if k in vars(m)]  # fmt: skip
    for module, name, helper in saved:
        setattr(module, name, unwrapped(helper))
    try:
        yield
    finally:
        for module, name, helper in saved:
            setattr(module, name, helper)
