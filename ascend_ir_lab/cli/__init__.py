"""The `ascend-ir-lab` command: the scriptable face of the same core the notebook uses."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

from ascend_ir_lab import __version__
from ascend_ir_lab.errors import IRLabError
from ascend_ir_lab.safe_text import for_terminal, one_message

# Each module adds its subcommands through `register(subparsers)`; a module whose optional
# dependencies are missing still registers, and fails with a clear message when used.
_COMMAND_MODULES = (
    "ascend_ir_lab.cli.read",
    "ascend_ir_lab.cli.ascend",
    "ascend_ir_lab.cli.npu",
    "ascend_ir_lab.cli.share",
    "ascend_ir_lab.cli.upstream",
    "ascend_ir_lab.cli.noise",
)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every subcommand; with `command`, with that one alone (the
    others cost start-up for nothing), or with every one where no module has `command`."""
    parser = argparse.ArgumentParser(
        prog="ascend-ir-lab",
        description="Read, compare and share the per-pass IR of Triton / MLIR compilations.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    target: Any = subparsers if command is None else _OnlyOne(subparsers, command)
    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.register(target)
    if command is not None and not target.found:
        return build_parser()
    return parser


class _OnlyOne:
    """Subparsers that build the parser of one subcommand; every other one is skipped."""

    def __init__(self, subparsers: Any, command: str) -> None:
        self.subparsers = subparsers
        self.command = command
        self.found = False

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        """The real parser for the one command, a stand-in that takes anything otherwise."""
        if name == self.command or self.command in kwargs.get("aliases", ()):
            self.found = True
            return self.subparsers.add_parser(name, **kwargs)
        return _SKIPPED


class _Skipped:
    """A subcommand's parser that is not built: every call is taken and ignored."""

    def __getattr__(self, name: str) -> Any:
        return self._ignore

    def _ignore(self, *args: Any, **kwargs: Any) -> _Skipped:
        return self


_SKIPPED = _Skipped()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit code (2: nothing could be read or done).

    Without `argv` (the process's own command line: the console script, `python -m`) the
    process ends here once the output is written (see `_leave`)."""
    code = _command(argv)
    if argv is None:
        _leave(code)
    return code


def _leave(code: int) -> None:
    """End the process now: output flushed and exit handlers run as at any exit, but the
    interpreter not torn down object by object (tens of ms after a large log's index). Not
    where another thread still runs (a normal exit waits for it) or a stream cannot flush
    (a normal exit reports it)."""
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    atexit._run_exitfuncs()
    os._exit(code)


def _command(argv: Sequence[str] | None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    streams = sys.stdout, sys.stderr
    # wrapped before parsing too: argparse echoes unknown arguments (a name from a log) as given
    sys.stdout, sys.stderr = TerminalText(streams[0]), TerminalText(streams[1])
    try:
        parser = build_parser(words[0] if words and not words[0].startswith("-") else None)
        args = parser.parse_args(words)
    except BaseException:
        sys.stdout, sys.stderr = streams
        raise
    if not getattr(args, "handler", None):
        parser.print_help()
        sys.stdout, sys.stderr = streams
        return 2
    from ascend_ir_lab.forked import held_until_done

    try:
        with held_until_done():  # work the output does not wait for (an index kept) after it
            return int(args.handler(args) or 0)
    except IRLabError as exc:
        return _fail(args, str(exc))
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        where = exc.filename or _input_of(args)
        return _fail(args, f"{where}: {exc.strerror or exc}")
    except Exception as exc:  # noqa: BLE001 - the boundary: one line, never a traceback
        return _last_resort(args, exc)
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        sys.stdout, sys.stderr = streams


class TerminalText:
    """A text stream that shows what it is given as text: terminal control sequences from
    compiler output or a stranger's log dropped, bidi and invisible controls made visible.
    `.trusted` is the stream itself, for colours the command adds to text already cleaned."""

    def __init__(self, stream: Any) -> None:
        self.trusted = getattr(stream, "trusted", stream)

    def write(self, text: str) -> int:
        """Write `text`, cleaned."""
        self.trusted.write(for_terminal(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.trusted, name)


def _input_of(args: argparse.Namespace) -> str:
    """The path the command was reading (for the one line of a failure)."""
    for name in ("path", "run", "kernel", "log", "script"):
        value = getattr(args, name, None)
        if isinstance(value, str):
            return value
    return "input"


def _last_resort(args: argparse.Namespace, exc: Exception) -> int:
    """One line for an error no reader turned into a reason (input it did not foresee, a bug):
    each reader names the field or file and what is wrong with it, so the attack tests fail
    where this is reached."""
    where = _input_of(args)
    if isinstance(exc, MemoryError):
        return _fail(args, f"{where}: too large to read into memory")
    if isinstance(exc, RecursionError):
        return _fail(args, f"{where}: nested too deeply to read")
    return _fail(args, f"{where}: cannot be read ({type(exc).__name__}: {exc})")


def _fail(args: argparse.Namespace, message: str) -> int:
    """Print a failure as one error (its first line and the detail lines the error carries),
    text from others shown as text, a line end of a name in it as `\\n`; exit code 2."""
    print(f"ascend-ir-lab {args.command}: error: {one_message(message)}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
