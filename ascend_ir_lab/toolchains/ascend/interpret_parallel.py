"""The programs of one interpreted launch run in several processes when that cannot change
what they compute.

Triton's interpreter runs the programs of a grid one after another in Python. On a device
they run at once, and a kernel whose result depended on their order would be wrong there;
still, the interpreter's answer is the one a script checks, so it must come out the same.
`run_programs(...)` runs program 0 here, timed; when the rest would take a while and the host
has several cores, the grid is cut into one share per core and it forks: this process runs
the rest of the first share, each forked process one later share, each recording the bytes
it read and wrote (`interpret_memory.watched`). When no share wrote bytes another read or wrote, and none used an
op that depends on order (atomics, prints, asserts, barriers), each forked share's written
bytes are copied into this process's tensors: memory ends exactly as after one sequential run.
Otherwise the forked results are dropped and the programs after this process's share run here
in order, as plain `TRITON_INTERPRET=1` runs them (this process's own share ran in order
before them already).
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import pickle
import sys
import time
from collections.abc import Iterator, Sequence
from typing import Any

from ascend_ir_lab.toolchains.ascend.interpret_fast import tensor_spans
from ascend_ir_lab.toolchains.ascend.interpret_memory import Footprint, independent, watched

__all__ = ["beside_a_compile", "run_programs"]

# below this estimated sequential time a launch runs in order here (a fork costs milliseconds)
_WORTH_FORKING_S = 0.25
# the same while the launch's compile runs beside it: its tools hold a core for the next few
# tenths of a second, and forking a process that holds torch costs tens of milliseconds of
# kernel time (page tables, copy-on-write) that only a long run wins back
_WORTH_FORKING_BESIDE_S = 2.0
_beside = 0  # compiles running beside the interpretation in this process


@contextlib.contextmanager
def beside_a_compile() -> Iterator[None]:
    """Within the block the launch's compile runs beside its interpretation: its programs
    are shared among processes only when that pays off all the same."""
    global _beside
    _beside += 1
    try:
        yield
    finally:
        _beside -= 1


class _Done(Exception):
    """Raised after the last program of a share, so the interpreter's loop stops there."""


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def run_programs(kernel: Any, grid: Any, args: Sequence[Any]) -> None:
    """`kernel[grid](*args)` for an InterpretedFunction, in several processes where that
    leaves memory as one sequential run does (see the module docstring)."""
    if not isinstance(grid, (tuple, list)) or not hasattr(os, "fork"):
        kernel[grid](*args)
        return
    shape = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))
    total = math.prod(shape)
    own = Footprint()
    start = time.perf_counter()
    with watched(own, refuse_ordered=False):
        _share(kernel, shape, args, range(0, min(1, total)), last=total <= 1)
    estimate = (time.perf_counter() - start) * (total - 1)
    workers = min(_cores(), total - 1)
    if total <= 1:
        return
    worth = _WORTH_FORKING_BESIDE_S if _beside else _WORTH_FORKING_S
    if workers < 2 or estimate < worth or own.ordered:
        _share(kernel, shape, args, range(1, total), last=True)
        return
    shares = _split(range(total), workers)  # program 0 ran already: the first share is short
    shares[0] = range(1, shares[0].stop)
    _forked(kernel, shape, args, shares, own)


def _split(programs: range, parts: int) -> list[range]:
    size, extra = divmod(len(programs), parts)
    out, at = [], programs.start
    for i in range(parts):
        n = size + (1 if i < extra else 0)
        out.append(range(at, at + n))
        at += n
    return out


def _share(kernel: Any, shape: tuple[int, ...], args: Sequence[Any], programs: range,
           *, last: bool) -> None:  # fmt: skip
    """Run the programs (linear ids, in the interpreter's x, y, z order) of `programs` only;
    `last`: the launch ends with them (the interpreter's own loop runs to its end)."""
    from triton.runtime.errors import InterpreterError

    table = kernel.rewritten_fn
    body = kernel.rewrite()
    program = _program(body, shape, programs, None if last else programs.stop - 1)
    table[kernel.fn] = program
    try:
        kernel[shape](*args)
    except InterpreterError as exc:
        if not isinstance(exc.__cause__, _Done):
            raise
    finally:
        table[kernel.fn] = body


def _program(body: Any, shape: tuple[int, ...], programs: range, final: int | None) -> Any:
    """`body` run only for the programs of `programs`, raising _Done after `final`.

    The interpreter reads the function's signature, annotations (constexprs) and globals
    (triton.language must be among them): those of `body`."""
    import inspect
    import types

    from triton.runtime import interpreter

    builder, done = interpreter.interpreter_builder, _Done

    def program(*a: Any, **kw: Any) -> Any:
        x, y, z = builder.grid_idx
        linear = (x * shape[1] + y) * shape[2] + z
        if linear in programs:
            body(*a, **kw)
        if final is not None and linear >= final:
            raise done

    made = types.FunctionType(
        program.__code__, body.__globals__, body.__name__, None, program.__closure__
    )
    made.__annotations__ = dict(body.__annotations__)
    made.__signature__ = inspect.signature(body)  # type: ignore[attr-defined]
    return made


def _forked(kernel: Any, shape: tuple[int, ...], args: Sequence[Any], shares: list[range],
            own: Footprint) -> None:  # fmt: skip
    sys.stdout.flush()
    sys.stderr.flush()
    children = [_fork(kernel, shape, args, share) for share in shares[1:]]
    with _reaped(children):
        with watched(own, refuse_ordered=False):
            _share(kernel, shape, args, shares[0], last=False)
        prints = [_header(child[1]) for child in children]
        ok = all(p is not None for p in prints) and not own.ordered
        merged = [own.merged(), *[p for p in prints if p is not None]]
        if ok and independent(merged) and _inside(merged[1:], args):
            for (_, stream), footprint in zip(children, merged[1:], strict=True):
                _copy_in(stream, footprint.stores)
            return
    _share(kernel, shape, args, range(shares[1].start, shares[-1].stop), last=True)


def _fork(
    kernel: Any, shape: tuple[int, ...], args: Sequence[Any], share: range
) -> tuple[int, Any]:
    read, write = os.pipe()
    pid = os.fork()
    if pid:
        os.close(write)
        return pid, os.fdopen(read, "rb")
    os.close(read)  # the forked process: never returns into the caller's code
    status = 1
    try:
        with os.fdopen(write, "wb") as out:
            _child(kernel, shape, args, share, out)
        status = 0
    finally:
        os._exit(status)


def _child(
    kernel: Any, shape: tuple[int, ...], args: Sequence[Any], share: range, out: Any
) -> None:
    footprint = Footprint()
    try:
        with watched(footprint, refuse_ordered=True):
            _share(kernel, shape, args, share, last=False)
    except BaseException:  # noqa: BLE001 - any failure: the share runs again in order, there
        footprint.ordered = footprint.ordered or "failed"
    merged = footprint.merged()
    header = pickle.dumps(merged)
    out.write(len(header).to_bytes(8, "little") + header)
    if merged.ordered:
        return
    for lo, hi in merged.stores:
        out.write(memoryview((ctypes.c_char * (hi - lo)).from_address(lo)).cast("B"))


def _header(stream: Any) -> Footprint | None:
    """A forked share's footprint, or None when it failed or used an order-dependent op."""
    size = stream.read(8)
    if len(size) < 8:
        return None
    found = pickle.loads(stream.read(int.from_bytes(size, "little")))  # noqa: S301 - our fork
    if not isinstance(found, Footprint) or found.ordered:
        return None
    return found


def _inside(prints: Sequence[Footprint], args: Sequence[Any]) -> bool:
    """Whether every written interval lies in the memory of one of the launch's tensors."""
    spans = tensor_spans(args)
    return all(any(a <= lo and hi <= b for a, b in spans) for p in prints for lo, hi in p.stores)


def _copy_in(stream: Any, stores: Sequence[tuple[int, int]]) -> None:
    for lo, hi in stores:
        target = memoryview((ctypes.c_char * (hi - lo)).from_address(lo)).cast("B")
        done = 0
        while done < len(target):
            n = stream.readinto(target[done:])
            if not n:
                raise RuntimeError("a forked share of the interpreted launch ended early")
            done += n


@contextlib.contextmanager
def _reaped(children: list[tuple[int, Any]]) -> Iterator[None]:
    """Every forked process ends and is waited for when the block ends, however it ends."""
    try:
        yield
    finally:
        for pid, stream in children:
            stream.close()
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, 9)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
