"""`capture`, `sync-check`: the NPU-host workflow of a user's own script from the shell."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ascend_ir_lab.safe_text import one_line


def register(subparsers: Any) -> None:
    """Add the NPU-host subcommands."""
    p = subparsers.add_parser(
        "capture",
        help="run your script; record every bishengir-compile triton-ascend runs into Runs",
        description="On an NPU host: run COMMAND with a recording bishengir-compile first on "
        "PATH; each compile becomes a Run with every IR of every pass. With no NPU, a Python "
        "COMMAND runs under a virtual NPU (tensors on the CPU): each launch is compiled "
        "offline into a Run and run in Triton's CPU interpreter, so the script's own checks "
        "see real results. Exit status: the script's own, else 1 when a launch failed.",
    )
    p.add_argument("-o", "--out", default=".ascend_ir_lab/capture", help="folder for the Runs")
    p.add_argument("--target", default="Ascend910B3", help="the virtual NPU's target")
    p.add_argument(
        "--no-virtual-npu",
        action="store_true",
        help="with no NPU, run COMMAND as is (only bishengir-compile calls it makes are recorded)",
    )
    p.add_argument(
        "--no-interpret",
        action="store_true",
        help="under the virtual NPU, compile launches only (results not computed)",
    )
    p.add_argument(
        "--keep-going",
        action="store_true",
        help="exit 0 even when a launch failed to compile or interpret (the script's own exit "
        "status still counts)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop the script after this long (default: no limit, as when it runs alone)",
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
    command: list[str] = args.command
    return command[1:] if command[:1] == ["--"] else command


def _capture(args: argparse.Namespace) -> int:
    from ascend_ir_lab.toolchains.ascend.npu_script import capture_script
    from ascend_ir_lab.toolchains.common.collection import run_row, table_text
    from ascend_ir_lab.toolchains.common.tools import npu_available

    if not args.no_virtual_npu and not npu_available():
        return _capture_offline(args)
    runs = capture_script(_command(args), args.out, timeout=args.timeout)
    if not runs:
        print("no bishengir-compile call was recorded: the script compiled nothing (cached "
              "kernels are recompiled: TRITON_ALWAYS_COMPILE=1 is set)")  # fmt: skip
        return 1
    for run in runs:
        print(f"{one_line(str(run.path))}: {run.manifest['status']['text']}")
    print(table_text(run_row(r) for r in runs))
    return 0


def _capture_passes(args: argparse.Namespace) -> int:
    from ascend_ir_lab.share.capture import capture_passes
    from ascend_ir_lab.toolchains.ascend.script_capture import TerminalProgress
    from ascend_ir_lab.toolchains.common.collection import run_row, table_text

    done = [capture_passes(path, progress=TerminalProgress()) for path in args.runs]
    print(table_text(run_row(r) for r in done))
    return 0 if all(r.passes_captured for r in done) else 1


def with_passes(path: str) -> None:
    """Before a command reads `path`: a Run folder that is a cheap record (no per-pass dumps)
    is recompiled with every pass, progress on stderr, when its kernel is at hand; else a
    line on stderr says why not and how."""
    from pathlib import Path

    from ascend_ir_lab.errors import IRLabError
    from ascend_ir_lab.runs import MANIFEST, Run

    if not (Path(path) / MANIFEST).is_file():
        return
    try:
        run = Run(path)
    except IRLabError:
        return  # the command itself says what is wrong with the folder
    if run.passes_captured:
        return
    from ascend_ir_lab.share.capture import capture_on_open
    from ascend_ir_lab.toolchains.ascend.script_capture import TerminalProgress

    _, note = capture_on_open(run, progress=TerminalProgress())
    if note:
        print(note, file=sys.stderr)


def _capture_offline(args: argparse.Namespace) -> int:
    from ascend_ir_lab.toolchains.ascend.offline_script import capture_offline
    from ascend_ir_lab.toolchains.common.outcome import failure_message

    result = capture_offline(
        _command(args),
        args.out,
        target=args.target,
        interpret=not args.no_interpret,
        timeout=args.timeout,
    )
    for run in result.runs:
        print(f"{one_line(str(run.path))}: {run.manifest['status']['text']}")
    if result.runs:
        from ascend_ir_lab.toolchains.common.collection import run_row, table_text

        print(table_text(run_row(r) for r in result.runs))
    if result.summary:
        print(result.summary)
    code = 130 if result.stopped.startswith("interrupted") else 124
    if result.failures:
        going = (
            f"(the script was stopped: exit {code})"
            if result.stopped
            else "(--keep-going: exit 0 all the same)"
            if args.keep_going
            else "(exit 1; with --keep-going, 0 all the same)"
        )
        message = failure_message(result.failures, "the launches", going)
        print(message, file=sys.stderr)
    if result.stopped:
        made = "the Runs above are those it made" if result.runs else "no Run was listed"
        print(f"the script was {result.stopped}: {made} (in {args.out})", file=sys.stderr)
        return code
    if result.returncode:
        return result.returncode
    if not result.runs:
        if result.failures:
            print("no Run was made: every launch failed (see above)")
        else:
            print("no bishengir-compile call was recorded and no Triton launch was made: the "
                  "script compiled nothing")  # fmt: skip
        return 1
    return 1 if result.failures and not args.keep_going else 0


def _sync_check(args: argparse.Namespace) -> int:
    from ascend_ir_lab.toolchains.ascend.npu_host import sync_check
    from ascend_ir_lab.toolchains.ascend.npu_script import script_launch

    result = sync_check(script_launch(_command(args)), args.out)
    print(json.dumps(result, indent=2))
    return 0
