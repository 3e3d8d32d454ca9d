"""`capture`, `sync-check`: the NPU-host workflow of a user's own script from the shell."""

from __future__ import annotations

import argparse
import json
from typing import Any


def register(subparsers: Any) -> None:
    """Add the NPU-host subcommands."""
    p = subparsers.add_parser(
        "capture",
        help="run your script; record every bishengir-compile triton-ascend runs into Runs",
        description="On an NPU host: run COMMAND with a recording bishengir-compile first on "
        "PATH; each compile becomes a Run with every IR of every pass.",
    )
    p.add_argument("-o", "--out", default=".ascend_ir_lab/capture", help="folder for the Runs")
    p.add_argument(
        "--configs",
        default=None,
        help="autotune configs (0-based, comma-separated) to capture every pass of; "
        "default: the one that runs (with no NPU: the first)",
    )
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- python your_script.py ...")
    p.set_defaults(handler=_capture)

    p = subparsers.add_parser(
        "capture-passes",
        help="recompile cheap records (autotune configs) with every pass printed",
        description="A Run recorded without per-pass dumps (an autotune config that did not "
        "run) is compiled again with every MLIR pass printed, into the same folder.",
    )
    p.add_argument("runs", nargs="+", help="Run folders")
    p.set_defaults(handler=_capture_passes)

    p = subparsers.add_parser(
        "sync-check",
        help="is it a sync bug? fine vs barrier-all vs CPU interpreter (needs an NPU)",
        description="The debugging guide's sync check in one call: run the script as is, "
        "under TRITON_INTERPRET=1 as a reference, and with barrier-all binaries swapped into "
        "the cache (restored after); the script saves its results with "
        'numpy.savez(os.environ["ASCEND_IR_LAB_OUTPUT"], out=...).',
    )
    p.add_argument("-o", "--out", default=".ascend_ir_lab/sync-check", help="working folder")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- python your_script.py ...")
    p.set_defaults(handler=_sync_check)


def _command(args: argparse.Namespace) -> list[str]:
    return args.command[1:] if args.command[:1] == ["--"] else args.command


def _capture(args: argparse.Namespace) -> int:
    from ascend_ir_lab.toolchains.collection import run_row, table_text
    from ascend_ir_lab.toolchains.script_capture import capture_offline

    command = _command(args)
    configs = [int(c) for c in args.configs.split(",")] if args.configs else None
    script = len(command) > 1 and command[1].endswith(".py")  # `python -c ...`: its tool calls
    offline = capture_offline(command, args.out, configs=configs) if script else None
    if offline is not None:  # no NPU here: the launches were compiled offline
        if not offline:
            print("the script launched no @triton.jit kernel")
            return 1
        print(table_text(run_row(r) for r in offline))
        return 0
    from ascend_ir_lab.toolchains.npu_script import capture_script

    runs = capture_script(command, args.out)
    if not runs:
        print("no bishengir-compile call was recorded: the script compiled nothing (cached "
              "kernels are recompiled: TRITON_ALWAYS_COMPILE=1 is set)")  # fmt: skip
        return 1
    for run in runs:
        print(f"{run.path}: {run.manifest['status']['text']}")
    print(table_text(run_row(r) for r in runs))
    return 0


def _capture_passes(args: argparse.Namespace) -> int:
    from ascend_ir_lab.toolchains.collection import run_row, table_text
    from ascend_ir_lab.toolchains.run import Run
    from ascend_ir_lab.toolchains.script_capture import TerminalProgress

    done = [Run(path).capture(progress=TerminalProgress()) for path in args.runs]
    print(table_text(run_row(r) for r in done))
    return 0 if all(r.passes_captured for r in done) else 1


def _sync_check(args: argparse.Namespace) -> int:
    from ascend_ir_lab.toolchains.npu_host import sync_check
    from ascend_ir_lab.toolchains.npu_script import script_launch

    result = sync_check(script_launch(_command(args)), args.out)
    print(json.dumps(result, indent=2))
    return 0
