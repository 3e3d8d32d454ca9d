"""Launches run in Triton's CPU interpreter, as `TRITON_INTERPRET=1 python script.py` runs
them, with the faults of Triton 3.2's interpreter mended and `triton.language` given back
afterwards (later real compiles in the same process see it as it was)."""

from __future__ import annotations

import contextlib
import sys
import types
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ascend_ir_lab.toolchains.common.env import debug_switches

__all__ = ["interpret_launch"]


def interpret_launch(fn: Any, grid: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
    """Run `fn[grid](*args, **kwargs)` in Triton's interpreter on the CPU, as
    `TRITON_INTERPRET=1 python script.py` would.

    numpy arrays are passed as torch views of the same memory, so results land in them.
    """
    from triton.runtime.errors import InterpreterError
    from triton.runtime.interpreter import InterpretedFunction

    from ascend_ir_lab.toolchains.ascend.interpret_fast import direct_memory, tensor_spans
    from ascend_ir_lab.toolchains.ascend.interpret_parallel import run_programs

    params = list(getattr(fn, "params", []))
    values = dict(zip([p.name for p in params], args, strict=False))
    # compile options (multibuffer=...) mean nothing to the interpreter
    values.update({k: v for k, v in kwargs.items() if k in {p.name for p in params}})
    # every parameter by position: the interpreter takes keywords named like launch options
    # (num_stages=..., num_warps=...) for options, not for the kernel's own parameters
    call_args = [_as_tensor(values[p.name] if p.name in values else p.default) for p in params]
    with (
        debug_switches(interpret=True),
        _language_restored() as interpreted,
        direct_memory(tensor_spans(call_args), bounded=_memory_known(call_args)),
    ):
        kernel = InterpretedFunction(_interpretable(getattr(fn, "fn", fn)))
        interpreted.append(kernel)
        try:
            run_programs(kernel, grid, call_args)
        except InterpreterError as exc:
            where = _kernel_line(exc)
            if not where:
                raise
            raise InterpreterError(
                f"{exc}; Triton's CPU interpreter runs the kernel's code as Python (as plain"
                f" TRITON_INTERPRET=1 does), and Python fails at {where}"
            ) from exc


def _memory_known(args: Sequence[Any]) -> bool:
    """Whether all the memory the launch can reach is that of its CPU torch tensors (no
    descriptor, no other object holding memory of its own)."""
    import torch

    for value in args:
        if isinstance(value, torch.Tensor):
            if value.device.type != "cpu":
                return False
        elif hasattr(value, "data_ptr") or hasattr(value, "base"):
            return False
    return True


def _kernel_line(exc: BaseException) -> str:
    """`file:line: code` of the innermost frame of the failure in the user's own code (not
    triton's, numpy's or this package's), else ""."""
    import linecache
    import traceback

    skip = ("/triton/", "/numpy/", "/torch/", "/ascend_ir_lab/")
    cause = exc.__cause__ or exc
    # a notebook cell's code is named "<ipython-input-...>": kept, as linecache has its lines
    frames = [f for f in traceback.extract_tb(cause.__traceback__) if not any(
        s in f.filename for s in skip) and linecache.getline(f.filename, f.lineno or 0)]  # fmt: skip
    if not frames:
        return ""
    frame = frames[-1]
    code = linecache.getline(frame.filename, frame.lineno or 0).strip()
    return f"{Path(frame.filename).name}:{frame.lineno}: {code}"


def _interpretable(func: Any) -> Any:
    """A copy of `func` whose globals are a copy of its module's, less the values Triton's
    interpreter cannot look at.

    The interpreter adds its own names (np, interpreter_builder, ...) to the globals of every
    function it rewrites: on a copy, the user's module or notebook namespace stays as it was.
    Triton 3.2's interpreter also tests every global with `value in [tl, tl.core]`, which
    raises for numpy arrays ("truth value of an array ... is ambiguous"). It gives its builder
    to the builtins of `tl`, `tl.core` and `tl.math` only: those of the other language modules
    a kernel imports (`import triton.language.extra.ascend.libdevice as libdevice`, or
    `from ... import relu`) are given it here, on the copy (plain `TRITON_INTERPRET=1` fails
    there: "Did you forget to add @triton.jit ?").
    """
    import triton.language as tl

    def ambiguous(value: Any) -> bool:
        try:
            return not isinstance(value in [tl, tl.core], bool)
        except Exception:  # noqa: BLE001 - any failure here is the interpreter's failure
            return True

    clean = {k: _builder_given(v) for k, v in func.__globals__.items() if not ambiguous(v)}
    copy = types.FunctionType(
        func.__code__, clean, func.__name__, func.__defaults__, func.__closure__
    )
    copy.__kwdefaults__, copy.__qualname__ = func.__kwdefaults__, func.__qualname__
    copy.__module__, copy.__annotations__ = func.__module__, dict(func.__annotations__)
    return copy


def _builder_given(value: Any) -> Any:
    """A language module other than those the interpreter patches (a copy whose builtins
    take the interpreter's builder), or one of its builtins (the same); else `value`."""
    import triton.language as tl
    from triton.runtime import interpreter

    def bound(member: Any) -> Any:
        builder = interpreter.interpreter_builder
        return lambda *a, **k: member(*a, **{**k, "_builder": builder})

    is_builtin = tl.core.is_builtin
    if isinstance(value, types.ModuleType):
        name = value.__name__
        if not name.startswith("triton.language.") or value in (tl.core, tl.math):
            return value
        copy = types.ModuleType(name, value.__doc__)
        vars(copy).update(vars(value))
        for key, member in vars(value).items():
            if is_builtin(member):
                setattr(copy, key, bound(member))
        return copy
    module = str(getattr(value, "__module__", "") or "")
    if callable(value) and module.startswith("triton.language.") and is_builtin(value):
        return bound(value)
    return value


@contextlib.contextmanager
def _language_restored() -> Iterator[list[Any]]:
    """Make `triton.language` what the interpreter needs for the block, then as it was.

    Triton 3.2's interpreter rebinds tl's builtins, tensor methods and dtype.to_ir for the
    whole process and never puts them back; every later real compile of a kernel would then
    fail ("'block_argument' object has no attribute 'dtype'"). Yields a list for the
    InterpretedFunctions made, whose rewritten code is dropped from Triton's cache on exit.
    """
    import triton.language as tl
    from triton.runtime.interpreter import InterpretedFunction

    from ascend_ir_lab.toolchains.ascend.interpret_bf16 import bf16_as_device
    from ascend_ir_lab.toolchains.ascend.interpret_fast import cheap_dtypes
    from ascend_ir_lab.toolchains.ascend.interpret_ops import npu_ops
    from ascend_ir_lab.toolchains.ascend.interpret_reduce import fast_reductions

    extras = _extra_language_modules()
    objects = {
        id(o): o
        for o in (tl, tl.core, tl.math, tl.tensor, tl.dtype, tl.core.tensor, tl.core.dtype, *extras)
    }.values()
    saved = [(o, dict(vars(o))) for o in objects]
    made: list[Any] = []
    try:
        for module in extras:  # reached by attribute (`tl.extra.ascend.libdevice.isnan`)
            vars(module).update(vars(_builder_given(module)))
        with (
            _jit_calls_interpreted(made),
            _interpreter_fixed(),
            fast_reductions(),
            npu_ops(),
            bf16_as_device(),  # after npu_ops: its ops compute on bf16 too
            cheap_dtypes(),
        ):
            yield made
    finally:
        for function in made:
            InterpretedFunction.rewritten_fn.pop(function.fn, None)
        for obj, before in saved:
            now = dict(vars(obj))
            for name in now.keys() - before.keys():
                delattr(obj, name)
            for name, value in before.items():
                if now.get(name, _MISSING) is not value:
                    setattr(obj, name, value)


def _extra_language_modules() -> list[Any]:
    """The language modules loaded beside those the interpreter patches (triton-ascend's
    `triton.language.extra.ascend.libdevice`, ...), whose builtins it leaves without its
    builder: a kernel that reaches one through `tl.extra...` fails under plain
    `TRITON_INTERPRET=1` ("Did you forget to add @triton.jit ?")."""
    import triton.language as tl

    return [
        module
        for name, module in list(sys.modules.items())
        if name.startswith("triton.language.extra.")
        and isinstance(module, types.ModuleType)
        and module not in (tl.core, tl.math)
    ]


@contextlib.contextmanager
def _jit_calls_interpreted(made: list[Any]) -> Iterator[None]:
    """A `@triton.jit` function called from an interpreted kernel runs interpreted too.

    Plain `TRITON_INTERPRET=1` makes every `@triton.jit` function (tl.max, tl.sum, tl.cumsum,
    the user's helpers) an interpreted one when it is decorated; here they were decorated for
    compiling, and calling one raised "Cannot call @triton.jit'd outside of the scope of a
    kernel".
    """
    from triton.runtime.errors import InterpreterError
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    helpers: dict[int, Any] = {}

    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        helper = helpers.get(id(self))
        if helper is None:
            helper = helpers[id(self)] = InterpretedFunction(_interpretable(self.fn))
            made.append(helper)
            return helper(*args, **kwargs)  # patches the language its globals see
        # the language stays patched for the launch: later calls skip re-patching it, which
        # plain TRITON_INTERPRET=1 does on every call (most of a small helper's cost)
        try:
            return helper.rewrite()(*args, **kwargs)
        except Exception as exc:
            raise InterpreterError(repr(exc)) from exc

    original = JITFunction.__call__
    JITFunction.__call__ = call
    try:
        yield
    finally:
        JITFunction.__call__ = original


@contextlib.contextmanager
def _interpreter_fixed() -> Iterator[None]:
    """Faults of Triton 3.2's interpreter mended for the block, so results match a device.

    - Scalars index again (`range(pid, n, step)`, `tl.range(...)`) with numpy >= 2.4: a
      scalar is a one-element array, indexed with `int(array)`, which numpy 2.4 refuses
      ("only 0-dimensional arrays can be converted to Python scalars"; plain
      `TRITON_INTERPRET=1` fails there too); `.item()` reads it.
    - bf16 computes as on the NPU (`interpret_bf16`): in fp32, rounded once where a value
      leaves the computation; fp32 -> bf16 casts round to nearest even.
    - Values keep the types Triton gives them (`interpret_types`): sums and scans of small
      integers, and `tl.sort`/`tl.topk`.
    - `not`, `and`, `or` of tensors compute as compiled (`interpret_syntax`), not as one
      Python bool for the whole block.
    """
    from triton.runtime import interpreter

    from ascend_ir_lab.toolchains.ascend.interpret_syntax import tensor_operators
    from ascend_ir_lab.toolchains.ascend.interpret_types import types_kept

    original_patch = interpreter._patch_lang_tensor

    def patch(tensor: Any) -> None:
        original_patch(tensor)
        tensor.__index__ = lambda self: int(self.handle.data.item())

    interpreter._patch_lang_tensor = patch
    try:
        with types_kept(), tensor_operators():
            yield
    finally:
        interpreter._patch_lang_tensor = original_patch


_MISSING = object()


def _as_tensor(value: Any) -> Any:
    if type(value).__module__ == "numpy" and hasattr(value, "shape"):
        import torch

        return torch.from_numpy(value)
    return value
