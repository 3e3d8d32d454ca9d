"""The IPython calls the magics make, typed: IPython's magic_arguments decorators, `display`
and `Markdown` carry no annotations and its magic markers a union type, so each is wrapped
here once with the signature it has."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from IPython.core import magic_arguments as _magic_arguments
from IPython.core.interactiveshell import InteractiveShell
from IPython.core.magic import cell_magic as _cell_magic
from IPython.core.magic import line_magic as _line_magic
from IPython.display import Markdown as _Markdown
from IPython.display import display as _display

# arg_split is public IPython API, re-exported by IPython.utils.process without an __all__
from IPython.utils.process import arg_split  # type: ignore[attr-defined]

__all__ = [
    "Markdown",
    "arg_split",
    "argument",
    "cell_magic",
    "display",
    "line_magic",
    "magic_arguments",
    "run_cell",
]

F = TypeVar("F", bound=Callable[..., Any])


def line_magic(method: F) -> F:
    """IPython's bare `@line_magic` (typed by IPython as either a method or a decorator)."""
    return cast(F, _line_magic(method))


def cell_magic(method: F) -> F:
    """IPython's bare `@cell_magic`."""
    return cast(F, _cell_magic(method))


def magic_arguments() -> Callable[[F], F]:
    """IPython's `@magic_arguments()`: the magic's docstring gains its usage."""
    decorate: Callable[[F], F] = _magic_arguments.magic_arguments()  # type: ignore[no-untyped-call]  # unannotated in IPython
    return decorate


def argument(*args: Any, **kwargs: Any) -> Callable[[F], F]:
    """IPython's `@argument(...)`: one argparse argument of the magic."""
    decorate: Callable[[F], F] = _magic_arguments.argument(*args, **kwargs)  # type: ignore[no-untyped-call]  # unannotated in IPython
    return decorate


def display(*objs: Any, **kwargs: Any) -> Any:
    """IPython's `display` (with `display_id=True` it returns the handle to update)."""
    return _display(*objs, **kwargs)  # type: ignore[no-untyped-call]  # unannotated in IPython


def Markdown(text: str) -> Any:  # noqa: N802 - IPython's name
    """IPython's `Markdown` display object."""
    return _Markdown(text)  # type: ignore[no-untyped-call]  # unannotated in IPython


def run_cell(shell: InteractiveShell, cell: str) -> Any:
    """Run `cell` in `shell` without adding it to the history; IPython's ExecutionResult."""
    return shell.run_cell(cell, store_history=False)  # type: ignore[no-untyped-call]  # unannotated in IPython
