"""The NPU-host workflow for a user's own script: capture its real compiles, sync-check it.

The script is run as given (a subprocess with an explicit environment). For the sync check it
saves its results where `$ASCEND_IR_LAB_OUTPUT` says, e.g.
`numpy.savez(os.environ["ASCEND_IR_LAB_OUTPUT"], out=out.cpu().numpy())`.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ascend_ir_lab.errors import CompilerError, InputError
from ascend_ir_lab.toolchains.ascend.npu_host import (
    invocation_run,
    invocations,
    wrapper_env,
    write_wrapper,
)
from ascend_ir_lab.toolchains.common.env import tool_env
from ascend_ir_lab.toolchains.common.run import Run

OUTPUT_VAR = "ASCEND_IR_LAB_OUTPUT"


def capture_script(
    command: Sequence[str], folder: str | os.PathLike[str], *, timeout: float | None = None
) -> list[Run]:
    """Run `command` with every bishengir-compile call of triton-ascend recorded (exactly as
    triton-ascend ran it, plus --mlir-print-ir-after-all); one Run per call, in `folder`.
    With `timeout` (seconds) the script is stopped after that long; by default it is not."""
    folder = Path(folder)
    bin_dir = write_wrapper(folder / "capture")
    result = _run(command, tool_env(wrapper_env(bin_dir)), timeout)
    calls = invocations(folder / "capture")
    if result.returncode != 0 and not calls:
        raise CompilerError(command, result.returncode, result.stderr, stage="script")
    return [
        invocation_run(inv, name=f"npu-compile-{k + 1}", out=folder / f"compile-{k + 1}")
        for k, inv in enumerate(calls)
    ]


def script_launch(command: Sequence[str], *, timeout: float | None = None) -> Any:
    """A `Launch` for npu_host.sync_check: run the script with the environment it is given,
    and read the arrays it saved to $ASCEND_IR_LAB_OUTPUT (an .npz), in name order."""

    def launch(env: Mapping[str, str]) -> list[Any]:
        import numpy as np

        with tempfile.TemporaryDirectory(prefix="ascend-ir-lab-out-") as tmp:
            out = Path(tmp) / "outputs.npz"
            result = _run(command, {**env, OUTPUT_VAR: str(out)}, timeout)
            if result.returncode != 0:
                raise CompilerError(command, result.returncode, result.stderr, stage="launch")
            if not out.is_file():
                raise InputError(
                    f"{' '.join(command)} saved no outputs: write them with "
                    f'numpy.savez(os.environ["{OUTPUT_VAR}"], out=...)'
                )
            with np.load(out) as data:
                return [data[k] for k in sorted(data.files)]

    return launch


def _run(
    command: Sequence[str], env: Mapping[str, str], timeout: float | None
) -> subprocess.CompletedProcess[str]:
    if not command:
        raise InputError("no command given: ascend-ir-lab capture -- python your_script.py")
    try:
        return subprocess.run(
            list(command),
            env=dict(env),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError:
        raise InputError(f"{command[0]}: no such program") from None
    except subprocess.TimeoutExpired as exc:
        raise CompilerError(
            command, -1, f"timed out after {exc.timeout:.0f} s", stage="script"
        ) from None
