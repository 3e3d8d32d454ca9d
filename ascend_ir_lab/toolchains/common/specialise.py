"""The specialisation triton itself gives a launch: signature, constants, attributes, options.

Triton does not compile a kernel once: each launch is specialised on its arguments (ints
equal to 1 become constants, pointers and ints divisible by 16 get `tt.divisibility`,
annotated parameters keep their types, `do_not_specialize` turns that off, `None` becomes a
constant, keywords named like options are options too). Rather than re-deriving those rules,
the installed triton's own `JITFunction.run` is driven up to the point where it would
compile: a stand-in driver answers for the wanted target (no device is touched) and, for
that one call, the kernel's compile is a stop that keeps what triton built. The same code
serves triton-ascend 3.2 and upstream triton 3.x; the kernel object is left as it was.

>>> spec = specialise(kernel, JITFunction.run, args, kwargs, npu_target("Ascend910B3"))
>>> spec.signature, spec.constexprs, spec.attrs
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ascend_ir_lab.errors import InputError

__all__ = ["Specialisation", "npu_target", "specialise"]

# The device the stand-in driver names: a key of the kernel's per-device caches that no real
# device has, so nothing triton cached for a device is read or left behind.
OFFLINE_DEVICE = "ascend-ir-lab-offline"


@dataclass
class Specialisation:
    """What triton would compile for one call: its ASTSource, target and options."""

    src: Any  # triton's ASTSource for the call
    target: Any  # triton's GPUTarget
    options: dict[str, Any]  # every compile option, as triton passes them to compile
    given: dict[str, Any] = field(default_factory=dict)  # the options the call named

    @property
    def params(self) -> list[Any]:
        """The kernel's parameters (triton's KernelParam objects)."""
        return list(self.src.fn.params)

    @property
    def signature(self) -> dict[str, str]:
        """Runtime parameters and their Triton types ('*fp32', 'i32', 'u1', 'tensordesc<...>')."""
        return {k: str(v) for k, v in self.src.signature.items() if v != "constexpr"}

    @property
    def constexprs(self) -> dict[str, Any]:
        """Values compiled in, by parameter name: constexprs, and what triton specialised
        to a constant (ints equal to 1, None)."""
        return {self._name(k): v for k, v in self.src.constants.items()}

    @property
    def attrs(self) -> dict[str, dict[str, Any]]:
        """Attributes per parameter, e.g. {'x_ptr': {'tt.divisibility': 16}}."""
        attrs = self.src.attrs
        found: dict[str, dict[str, Any]] = {}
        if hasattr(attrs, "get_fn_attrs"):  # triton-ascend 3.2: an AttrsDescriptor
            items: Any = attrs.get_fn_attrs().items()
        else:  # upstream 3.x: {path: [[name, value], ...]}
            items = attrs.items()
        for key, pairs in items:
            for prop, value in pairs:
                found.setdefault(self._name(key), {})[str(prop)] = value
        return found

    @property
    def key(self) -> tuple[Any, ...]:
        """What tells two compiles of the same kernel apart."""
        return (
            tuple(self.signature.items()),
            _freeze(self.constexprs),
            _freeze({k: sorted(v.items()) for k, v in self.attrs.items()}),
            _freeze(self.given),
            str(self.target),
        )

    def _name(self, key: Any) -> str:
        names: list[str] = [p.name for p in self.params]
        if isinstance(key, str):
            return key
        if isinstance(key, int):
            return names[key]
        head, *rest = key
        return names[int(head)] + "".join(f"[{i}]" for i in rest)


def _freeze(mapping: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, repr(v)) for k, v in mapping.items()))


def npu_target(arch: str) -> Any:
    """triton's GPUTarget of an Ascend chip ('Ascend910B3')."""
    from triton.backends.compiler import GPUTarget

    return GPUTarget("npu", arch, 0)


class _Stop(Exception):
    """Raised by the stand-in compile: triton got as far as compiling."""

    def __init__(self, src: Any, target: Any, options: Any) -> None:
        super().__init__("ascend-ir-lab: specialised, not compiled")
        self.src, self.target, self.options = src, target, options


class _StandInDriver:
    """Answers the three questions triton's launch path asks of its driver, for a target."""

    def __init__(self, target: Any) -> None:
        self.target = target

    def get_current_device(self) -> str:
        return OFFLINE_DEVICE

    def get_current_stream(self, device: Any = None) -> int:
        return 0

    def get_current_target(self) -> Any:
        return self.target


def specialise(
    fn: Any,
    run: Callable[..., Any],
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    target: Any,
) -> Specialisation:
    """Triton's own specialisation of `fn[grid](*args, **kwargs)` for `target`.

    `run` is triton's unpatched `JITFunction.run`. numpy arrays stand in for tensors (their
    address decides divisibility, as a tensor's does). A `tl.constexpr(...)` object given as
    an argument (code written for a newer triton, which compiles it in) is given as its value
    where this triton's launch path takes no such object (triton-ascend 3.2 calls it "Callable
    constexpr"): a constexpr parameter gets the same value either way. Errors triton raises
    for the call (an unknown keyword, a missing argument, an argument of no Triton type)
    become InputError.
    """
    name = getattr(getattr(fn, "fn", fn), "__name__", "kernel")
    unwrap = not _takes_constexpr_objects()
    call_args = [_as_pointer(a, unwrap) for a in args]
    call_kwargs = {
        k: _as_pointer(v, unwrap) for k, v in kwargs.items() if k not in ("grid", "warmup")
    }
    with _offline(fn, target):
        try:
            run(fn, *call_args, grid=(1,), warmup=True, **call_kwargs)
        except _Stop as stop:
            given = {k: v for k, v in kwargs.items() if k in _option_names(stop.options)}
            return Specialisation(stop.src, stop.target, dict(stop.options), given)
        except (KeyError, TypeError, ValueError, AttributeError, AssertionError) as exc:
            raise InputError(f"{name}: {_reason(exc)}") from exc
    raise InputError(f"{name}: triton's launch path returned before compiling")


def _reason(exc: BaseException) -> str:
    text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    if "missing" in text and "required positional argument" in text:
        missing = text.rsplit(":", 1)[-1].strip()
        return f"no value for parameter {missing}"
    if "was specified but unrecognised" in text:  # triton's own words for an unknown keyword
        import triton

        return (
            f"{text}: neither a parameter of the kernel nor a launch option of the installed "
            f"triton ({triton.__version__})"
        )
    return text or type(exc).__name__


def _option_names(options: Mapping[str, Any]) -> set[str]:
    return set(options) - {"debug", "stream"}


@contextlib.contextmanager
def _offline(fn: Any, target: Any) -> Iterator[None]:
    """For the block: triton's driver is a stand-in for `target`, the kernel's compile is a
    stop, its pre-run hooks wait; the driver and the kernel come back exactly as they were."""
    from triton.runtime import driver
    from triton.runtime.jit import JITFunction

    saved_driver = dict(vars(driver))
    saved_fn = dict(vars(fn))
    hook = getattr(JITFunction, "cache_hook", None)
    driver.set_active(_StandInDriver(target))
    try:
        _make_binder(fn, target)
        fn.compile = _stop_compile
        fn.pre_run_hooks = []
        if hook is not None:
            JITFunction.cache_hook = None
        yield
    finally:
        if hook is not None:
            JITFunction.cache_hook = hook
        for cache in ("cache", "device_caches"):
            with contextlib.suppress(AttributeError, TypeError):
                getattr(fn, cache).pop(OFFLINE_DEVICE, None)
        for key in set(vars(fn)) - set(saved_fn):
            object.__delattr__(fn, key)
        for key, value in saved_fn.items():
            if vars(fn).get(key, _MISSING) is not value:
                object.__setattr__(fn, key, value)
        vars(driver).clear()
        vars(driver).update(saved_driver)


_MISSING = object()


def _make_binder(fn: Any, target: Any) -> None:
    """Build the kernel's argument binder now, so that the stop replaces the compile it sets."""
    if hasattr(fn, "device_caches"):  # upstream 3.x: one binder per device, made on first use
        fn.device_caches[OFFLINE_DEVICE]  # noqa: B018 - the defaultdict builds it
        return
    from triton.compiler import make_backend

    if getattr(fn, "binder", None) is None:  # triton-ascend 3.2
        fn.create_binder(make_backend(target))


def _stop_compile(src: Any, target: Any = None, options: Any = None, **_: Any) -> Any:
    raise _Stop(src, target, options or {})


class _HostPointer:
    """A numpy array (or a shape-and-dtype spec) seen as triton sees a tensor: a dtype and an
    address (a spec's is 0: aligned, as a fresh allocation is)."""

    def __init__(self, value: Any) -> None:
        import numpy

        self.dtype = numpy.dtype(value.dtype)
        self.shape = tuple(value.shape)
        ctypes = getattr(value, "ctypes", None)
        self._address = int(ctypes.data) if ctypes is not None else 0

    def data_ptr(self) -> int:
        return self._address


@functools.cache
def _takes_constexpr_objects() -> bool:
    """Whether the installed triton's launch path types a `tl.constexpr` argument itself
    (upstream 3.3 and later: as a constexpr), asked of its own typing function."""
    from triton import language
    from triton.runtime import jit

    try:
        return "constexpr" in str(jit.mangle_type(language.constexpr(16)))
    except Exception:  # noqa: BLE001 - triton-ascend 3.2: no type for it
        return False


def _as_pointer(value: Any, unwrap: bool = False) -> Any:
    if unwrap and type(value).__name__ == "constexpr" and hasattr(value, "value"):
        return value.value
    numpy_array = type(value).__module__ == "numpy" and hasattr(value, "ctypes")
    spec = hasattr(value, "shape") and isinstance(getattr(value, "dtype", None), str)
    if (numpy_array or spec) and not hasattr(value, "data_ptr"):
        return _HostPointer(value)
    return value
