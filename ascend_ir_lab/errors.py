"""Errors that reach users: each says what failed, where, and how to fix it."""

from __future__ import annotations

from collections.abc import Sequence


class IRLabError(Exception):
    """Base of every error ascend-ir-lab raises on purpose."""


class InputError(IRLabError):
    """A path or argument could not be read or understood."""


class NoDumpsError(InputError):
    """The input holds no IR at all."""


class ToolNotFoundError(IRLabError):
    """A compiler is missing; the message names the package that provides it."""

    def __init__(self, tool: str, package: str) -> None:
        super().__init__(f"{tool} not found: install it with `pip install {package}`")
        self.tool = tool
        self.package = package


class CompilerError(IRLabError):
    """A compiler exited with an error; carries its command, exit code and stderr tail."""

    def __init__(
        self, command: Sequence[str], returncode: int, stderr: str, *, stage: str = ""
    ) -> None:
        tail = "\n".join(stderr.rstrip().splitlines()[-20:])
        where = f"stage {stage}: " if stage else ""
        super().__init__(
            f"{where}compiler exited with code {returncode}\n"
            f"  command: {' '.join(command)}\n"
            f"  stderr (last lines):\n{_indent(tail)}"
        )
        self.command = list(command)
        self.returncode = returncode
        self.stderr = stderr
        self.stage = stage


class LaunchFailedError(IRLabError):
    """Launches of a cell or script failed (compile, bad launch, CPU interpreter); raised
    after their panels are shown, so that "Run All" stops there."""

    def _render_traceback_(self) -> list[str]:
        # IPython shows this instead of a traceback: the panels above already say where
        return [f"{type(self).__name__}: {self}"]


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines()) or "    (empty)"
