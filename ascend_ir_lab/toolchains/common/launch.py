"""What taking over `kernel[grid](...)` launches shares across toolchains.

The Launch record, the shared part of a capture (its Runs, errors and progress), a fresh Run
folder per compile, a compile watched stage by stage from another thread, the source of a
kernel defined in a notebook cell, and the grid of a launch.
"""

from __future__ import annotations

import json
import linecache
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.runs import MANIFEST, Run, safe_name
from ascend_ir_lab.toolchains.common.process import stoppable
from ascend_ir_lab.toolchains.common.run import prepare_folder

__all__ = [
    "Capture",
    "Launch",
    "Progress",
    "cell_source",
    "compile_watched",
    "fresh_folder",
    "grid_text",
    "keep_cell",
    "kernel_name",
    "launch_grid",
    "report_stages",
]

Progress = Callable[[str, dict[str, Any]], None]
STOP_JOIN_S = 30.0  # how long a stopped compile has to record its interrupted stage


def kernel_name(fn: Any) -> str:
    """The name of a `@triton.jit` kernel (or of the function under it)."""
    return str(getattr(getattr(fn, "fn", fn), "__name__", "kernel"))


@dataclass
class Launch:
    """One intercepted `kernel[grid](...)` call and what became of it."""

    kernel: str
    grid: tuple[int, ...]
    signature: dict[str, str]
    constexprs: dict[str, Any]
    run: Run | None = None
    error: BaseException | None = None
    launched: bool = False  # ran on an NPU
    interpreted: bool = False  # ran in Triton's CPU interpreter
    interpret_error: BaseException | None = None
    note: str = ""


@dataclass
class Capture:
    """What a block of taken-over launches saw: the launches in order, one Run per compile.

    The part both toolchains share; `intercept_launches` (Ascend) and `intercept_upstream`
    (upstream Triton) add their own settings and the launch hook."""

    name: str | None = None
    kernels: Sequence[str] | None = None  # only these kernel names are compiled
    runs_dir: str | os.PathLike[str] | None = None
    progress: Progress | None = None
    launches: list[Launch] = field(default_factory=list)
    errors: list[BaseException] = field(default_factory=list)
    _compiled: dict[tuple[Any, ...], Run | BaseException] = field(default_factory=dict)

    @property
    def runs(self) -> list[Run]:
        """The Runs compiled, one per distinct kernel/signature/constexprs, in order; a
        compile that failed gives the Run it left (compile-error: every Dump up to the
        failure, the stage's log and command), the Run a failure is debugged from."""
        made = (
            r if isinstance(r, Run) else getattr(r, "run", None) for r in self._compiled.values()
        )
        return [r for r in made if isinstance(r, Run)]

    def _found(self, key: tuple[Any, ...], launch: Launch) -> Run | None:
        """The Run compiled for `key` (its error noted on `launch` where it failed)."""
        found = self._compiled[key]
        launch.error = found if isinstance(found, BaseException) else None
        return found if isinstance(found, Run) else None

    def _say(self, event: str, info: dict[str, Any]) -> None:
        if self.progress is not None:
            self.progress(event, info)


def fresh_folder(name: str, root: str | os.PathLike[str] | None = None) -> Path:
    """A new, empty Run folder `<root>/<name>[-N]` (root: the default runs dir); never an
    existing Run, so Runs already open in a session stay as they are."""
    if root is None:
        return prepare_folder(name, None)
    base, name = Path(root), safe_name(name)
    base.mkdir(parents=True, exist_ok=True)
    # the number after the last one this process made there: a suite's hundreds of Runs of
    # one kernel each try one name, not every name taken before (quadratic in the Runs)
    key = (str(base.resolve()), name)
    start = _NEXT.get(key, 1)
    if start > 1 and not _numbered(base, name, start - 1).exists():
        start = 1  # the folder was emptied since: its first name is free again
    for n in range(start, _MOST + 1):
        path = _numbered(base, name, n)
        try:
            path.mkdir()
        except FileExistsError:
            continue
        _NEXT[key] = n + 1
        return path
    raise InputError(f"{base}: too many Runs called {name!r}")


def _numbered(base: Path, name: str, n: int) -> Path:
    return base / (name if n == 1 else f"{name}-{n}")


_MOST = 9_999  # Runs of one name in one folder
_NEXT: dict[tuple[str, str], int] = {}  # (folder, name) -> the number to try first


def compile_watched(
    fn: Any,
    folder: Path,
    kwargs: dict[str, Any],
    say: Progress,
    compile_fn: Callable[..., Any],
    beside: Callable[[], None] | None = None,
) -> Any:
    """`compile_fn(fn, **kwargs)` with `say("stage", record)` as each stage is recorded.

    The compile runs in a worker thread; this thread watches the Run's manifest (written
    after every stage) and reports. Nothing is reported while the in-process ttir stage
    holds fds 1/2, so progress never lands in the compile log. `compile_fn` is the
    toolchain's compile (Ascend's or upstream Triton's `compile_kernel`, or a compile that
    leaves its last stage running, whose "done" its caller says when it has finished).

    `beside` (the launch run in the CPU interpreter) runs in this thread while the compile's
    later stages (other processes) run: once the first stage, the one in this process that
    uses `triton.language` and fds 1/2, is recorded (or the compile ended before).
    """
    result: dict[str, Any] = {}
    stop, done = threading.Event(), threading.Event()

    def work() -> None:
        with stoppable(stop):
            try:
                result["run"] = compile_fn(fn, **kwargs)
            except BaseException as exc:  # noqa: BLE001 - re-raised in the calling thread
                result["error"] = exc
            finally:
                done.set()

    say("start", {"kernel": kernel_name(fn), "path": folder, "target": kwargs["target"]})
    # waited for through `done`, not join(): Ctrl-C inside Thread.join can leave the thread
    # marked as ended while it still runs (CPython's bpo-45274 handling)
    threading.Thread(target=work, name="ascend-ir-lab-compile", daemon=True).start()
    seen = 0
    try:
        if beside is not None:
            while seen < 1 and not done.wait(0.01):
                seen = report_stages(folder, seen, say)
            beside()
        while not done.wait(0.1):
            seen = report_stages(folder, seen, say)
    except BaseException:
        # Ctrl-C (or a failure beside it) in this thread: the compile's tool is stopped too,
        # its Run recorded as interrupted, rather than left running to its timeout
        stop.set()
        done.wait(STOP_JOIN_S)
        error = result.get("error")
        if isinstance(error, KeyboardInterrupt):
            raise error from None  # the same Ctrl-C, carrying the interrupted Run
        raise
    report_stages(folder, seen, say)
    if "error" in result:
        say("failed", {"kernel": kernel_name(fn), "error": result["error"]})
        raise result["error"]
    run = result["run"]
    if isinstance(run, Run):
        say("done", {"run": run})
    return run


def keep_cell(folder: Path, manifest: dict[str, Any], fn: Any) -> bool:
    """For a kernel defined in a notebook cell, keep the whole cell as `source.py` in the Run
    `folder` and name the cell in `manifest["kernel"]` (changed in place), so that IR
    locations (cell line numbers) match; False (nothing done) for a kernel from a file."""
    cell = cell_source(fn)
    if cell is None:
        return False
    text, filename, first_line = cell
    (folder / "source.py").write_text(text)
    manifest["kernel"] = {
        **(manifest.get("kernel") or {}),
        "file": filename,
        "first_line": first_line,
    }
    return True


def cell_source(fn: Any) -> tuple[str, str, int] | None:
    """(whole cell text, cell file name, def line) when `fn` was defined in an IPython cell
    (its code's file exists only in linecache), else None."""
    code = getattr(getattr(fn, "fn", fn), "__code__", None)
    if code is None or os.path.isfile(code.co_filename):
        return None
    lines = linecache.getlines(code.co_filename)
    if not lines:
        return None
    first = code.co_firstlineno
    while first <= len(lines) and not lines[first - 1].lstrip().startswith("def "):
        first += 1  # skip decorators
    return "".join(lines), code.co_filename, min(first, len(lines))


def report_stages(folder: Path, seen: int, say: Progress) -> int:
    """Say each stage the Run's manifest recorded since the first `seen`; the new count."""
    try:
        stages = json.loads((folder / MANIFEST).read_text()).get("stages", [])
    except (OSError, ValueError):
        return seen
    for record in stages[seen:]:
        say("stage", {"record": record})
    return max(seen, len(stages))


def launch_grid(
    grid: Any, fn: Any, args: Sequence[Any], kwargs: Mapping[str, Any]
) -> tuple[int, ...]:
    """The grid of a launch; a callable grid gets every parameter, defaults included, as
    triton's launch gives it."""
    if callable(grid):
        params = list(getattr(fn, "params", []))
        meta = {p.name: p.default for p in params if p.has_default}
        meta.update(zip([p.name for p in params], args, strict=False))
        grid = grid({**meta, **kwargs})
    if isinstance(grid, int):
        grid = (grid,)
    return tuple(int(g) for g in grid)


def grid_text(grid: tuple[int, ...]) -> str:
    """A grid as Python writes the tuple: `(4,)`, `(2, 3)`."""
    return "(" + ", ".join(map(str, grid)) + ("," if len(grid) == 1 else "") + ")"
