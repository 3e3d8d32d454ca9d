"""What went wrong in a block of launches, said the same way by the cell and by `capture`."""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = [
    "failure_message",
    "failures",
    "kept_error",
    "missing_module_hint",
    "missing_triton_modules",
]

_DIAGNOSTIC = re.compile(r":\d+:\d+: error: ")


def _first_line(error: BaseException) -> str:
    stage = getattr(error, "stage", "")
    if stage:
        said = _compiler_says(str(getattr(error, "stderr", "")))
        head = f"stage {stage} failed (exit code {getattr(error, 'returncode', '?')})"
        return f"{head}: {said}" if said else head
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}".rstrip(": ")


def _compiler_says(stderr: str) -> str:
    """The compiler's own first word on the failure (shortened): its first located
    diagnostic (`file:line:col: error: ...`), else its first failed assertion or `error: ...`
    line, else ""."""
    lines = [line.strip() for line in stderr.splitlines()]
    located = [t for t in lines if _DIAGNOSTIC.search(t)]
    other = [t for t in lines if "Assertion" in t or ("error:" in t and not t.endswith("error:"))]
    text = (located or other or [""])[0]
    return text if len(text) <= 200 else text[:199] + "…"


def failures(capture: Any) -> list[str]:
    """One line per failure of a LaunchCapture: each compile error, each launch that could not
    be read, each launch the CPU interpreter could not run."""
    lines = [_first_line(error) for error in capture.errors]
    for launch in capture.launches:
        if launch.interpret_error is not None:
            lines.append(
                f"{launch.kernel}: the CPU interpreter failed: {_first_line(launch.interpret_error)}"
            )
    return lines


def kept_error(error: BaseException) -> BaseException:
    """`error` as a capture keeps it to report later: without its traceback, nor those of
    its causes. A traceback keeps every frame it ran through alive, and with them their
    locals: the launch's arguments. Kept for the whole block, a failed compile or
    interpreter run of each case of a long script would keep each case's tensors (what it
    says is its message and attributes, which stay; where in the kernel an interpreter
    failure happened is said when it is raised)."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [error]
    while todo:
        exc = todo.pop()
        if exc is None or id(exc) in seen:
            continue
        seen.add(id(exc))
        exc.__traceback__ = None
        todo += [exc.__cause__, exc.__context__]
    return error


def failure_message(lines: list[str], where: str, keep_going: str) -> str:
    """The one message that ends a failed cell or command: what failed, how to go on."""
    listed = "\n".join(f"  - {line}" for line in lines)
    noun = "failure" if len(lines) == 1 else "failures"
    return f"{len(lines)} {noun} in {where} (details above):\n{listed}\n{keep_going}"


def missing_module_hint(error: BaseException | None, seen: Sequence[str] = ()) -> str:
    """For `triton.*` modules the installed triton lacks (triton.language.extra.cann in
    triton-ascend 3.2): the one it raised for, else those `seen` missing (pytest reports a
    test file's failed import as its own error; `mock.patch` of a missing module ends in an
    AttributeError): which triton is installed and what the code needs; else ""."""
    name = (getattr(error, "name", None) or "") if isinstance(error, ModuleNotFoundError) else ""
    names = [name] if name.startswith("triton.") else list(dict.fromkeys(seen))
    if not names:
        return ""
    import triton

    listed = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    verb = "is" if len(names) == 1 else "are"
    return (
        f"{listed} {verb} not part of the installed triton ({triton.__version__}): this code "
        "needs a newer triton-ascend"
    )


class _LastResort:
    """A module finder asked only once every other finder has said no: the `triton.*`
    modules an import looked for and found nowhere."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name.startswith("triton.") and name not in self.names:
            self.names.append(name)


@contextlib.contextmanager
def missing_triton_modules() -> Iterator[list[str]]:
    """For the block: the list of `triton.*` modules imports looked for and did not find
    (whether or not the code caught the ImportError); sys.meta_path as it was afterwards."""
    finder = _LastResort()
    sys.meta_path.append(finder)
    try:
        yield finder.names
    finally:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(finder)
