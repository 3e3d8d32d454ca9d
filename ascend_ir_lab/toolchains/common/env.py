"""The environment variables of the debugging guide, set and restored exactly.

`debug_switches(...)` is the guide's `export TRITON_DEBUG=1 ...` ritual as a context manager;
`patched_environ(...)` is the primitive under it. On exit every variable is back to its
previous value, and variables that did not exist are removed again, also after an exception.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping

# Variables whose values change what triton-ascend / bishengir compile or print: recorded
# in a Run's "env" when set.
RELEVANT_PREFIXES = ("TRITON_", "MLIR_", "LLVM_", "ASCEND_", "BISHENG", "ENABLE_")
RELEVANT_NAMES = ("USE_IR_LOC",)


@contextlib.contextmanager
def patched_environ(updates: Mapping[str, str | None]) -> Iterator[dict[str, str]]:
    """Set (str) or remove (None) variables for the block; restore all of them afterwards.

    Yields the updates actually applied (removals left out).
    """
    saved = {name: os.environ.get(name) for name in updates}
    applied: dict[str, str] = {}
    try:
        for name, value in updates.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = str(value)
                applied[name] = str(value)
        yield applied
    finally:
        for name, old in saved.items():
            if old is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = old


def _flag(value: bool | None) -> str | None:
    return None if value is None else ("1" if value else "0")


def switch_values(
    *,
    debug: bool | None = None,
    always_compile: bool | None = None,
    dump: bool | str | None = None,
    llvm_dump: bool | None = None,
    reproducer_path: str | os.PathLike[str] | None = None,
    timing: bool | None = None,
    llvm_timing: bool | None = None,
    interpret: bool | None = None,
    device_print: bool | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    dump_dir: str | os.PathLike[str] | None = None,
) -> dict[str, str]:
    """Map keyword switches to variable values; an argument left as None is not touched.

    `dump` is True (every kernel) or a kernel name (`MLIR_ENABLE_DUMP=name`).
    """
    if dump is not None and not isinstance(dump, (bool, str)):
        raise TypeError(f"dump must be a bool or a kernel name, not {dump!r}")
    dump_value = dump if isinstance(dump, str) else _flag(dump)
    pairs = {
        "TRITON_DEBUG": _flag(debug),
        "TRITON_ALWAYS_COMPILE": _flag(always_compile),
        "MLIR_ENABLE_DUMP": dump_value,
        "LLVM_IR_ENABLE_DUMP": _flag(llvm_dump),
        "TRITON_REPRODUCER_PATH": None if reproducer_path is None else os.fspath(reproducer_path),
        "MLIR_ENABLE_TIMING": _flag(timing),
        "LLVM_ENABLE_TIMING": _flag(llvm_timing),
        "TRITON_INTERPRET": _flag(interpret),
        "TRITON_DEVICE_PRINT": _flag(device_print),
        "TRITON_CACHE_DIR": None if cache_dir is None else os.fspath(cache_dir),
        "TRITON_DUMP_DIR": None if dump_dir is None else os.fspath(dump_dir),
    }
    return {name: value for name, value in pairs.items() if value is not None}


@contextlib.contextmanager
def debug_switches(**switches: object) -> Iterator[dict[str, str]]:
    """The guide's debug environment for the block (see `switch_values` for the keywords).

    >>> with debug_switches(debug=True, always_compile=True, dump="add_kernel"):
    ...     pass  # compile / launch here; the environment is restored afterwards
    """
    values = switch_values(**switches)  # type: ignore[arg-type]
    with patched_environ(values) as applied:
        yield applied


def relevant_env(env: Mapping[str, str]) -> dict[str, str]:
    """The variables of `env` that can change what the Ascend toolchain does or prints."""
    return {
        name: value
        for name, value in sorted(env.items())
        if name.startswith(RELEVANT_PREFIXES) or name in RELEVANT_NAMES
    }


def tool_env(overrides: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """A copy of this process's environment with `overrides` applied (None removes)."""
    env = dict(os.environ)
    for name, value in (overrides or {}).items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env
