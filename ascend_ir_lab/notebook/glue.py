"""What every magic class shares: errors shown as panels, argument parsing, nested cells."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from typing import Any

from IPython.core.interactiveshell import InteractiveShell

from ascend_ir_lab.errors import IRLabError, LaunchFailedError
from ascend_ir_lab.notebook.ipython_api import arg_split, display, run_cell
from ascend_ir_lab.notebook.text import ErrorPanel

__all__ = ["cell_error", "friendly", "magic_args", "run_nested", "widget_frontend"]


def friendly(method: Callable[..., Any]) -> Callable[..., Any]:
    """Our own errors become a short panel instead of a traceback (failed launches, already
    shown as panels, fail the cell)."""

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any) -> Any:
        try:
            return method(self, *args)
        except LaunchFailedError:
            raise  # the cell fails, so that "Run All" stops; its panels are already shown
        except IRLabError as exc:
            display(ErrorPanel(exc))
            return None

    return wrapper


def magic_args(magic: Any, line: str) -> Any:
    """The parsed arguments of `magic`'s line, or None after printing its usage for -h/--help."""
    if {"-h", "--help"} & set(line.split()):
        print(magic.__doc__)
        return None
    # shell quoting as users type it: --signature 'x_ptr=*fp32,n=i32' (IPython's own
    # splitting keeps the quotes)
    return magic.parser.parse_args(arg_split(line, posix=True))


def run_nested(shell: InteractiveShell, cell: str) -> Any:
    """Run `cell` in `shell` as a normal cell would (transforms, tracebacks, display of
    values); returns its ExecutionResult. A compiled kernel the cell ends on is not shown:
    the cell's result is its Runs."""
    hook = shell.displayhook
    outer = getattr(hook, "exec_result", None)
    shown = sys.displayhook

    def display_value(value: Any) -> None:
        if type(value).__name__ not in ("CompiledKernel", "OfflineKernel"):
            shown(value)

    sys.displayhook = display_value
    try:
        return run_cell(shell, cell)
    finally:
        sys.displayhook = shown
        # the nested run replaces the outer cell's result, where our return value goes
        hook.exec_result = outer


def cell_error(outcome: Any, missing: Sequence[str] = ()) -> list[str]:
    """The cell's own exception (its traceback is already shown), as a failure line; with
    the hint when it comes of a `triton.*` module the installed triton lacks (the one raised
    for, else those in `missing`, looked for and not found while the cell ran)."""
    error = getattr(outcome, "error_before_exec", None) or getattr(outcome, "error_in_exec", None)
    if error is None:
        return []
    from ascend_ir_lab.toolchains.common.outcome import missing_module_hint

    text = str(error).strip().splitlines()
    line = f"the cell raised {type(error).__name__}: {text[0] if text else ''}".rstrip(": ")
    hint = missing_module_hint(error, missing)
    return [f"{line} ({hint})" if hint else line]


def widget_frontend() -> bool:
    """Whether the current IPython talks to a kernel frontend (Jupyter) that shows widgets."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None
