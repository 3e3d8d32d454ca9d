"""The `ascend-ir-lab` command: the scriptable face of the same core the notebook uses."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from ascend_ir_lab import __version__
from ascend_ir_lab.errors import IRLabError

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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="ascend-ir-lab",
        description="Read, compare and share the per-pass IR of Triton / MLIR compilations.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit code (2: nothing could be read or done)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except IRLabError as exc:
        print(f"ascend-ir-lab {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
