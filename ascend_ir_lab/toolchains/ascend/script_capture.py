"""A user's script run under the tool, with no NPU: every kernel launch becomes a Run.

`python -m ascend_ir_lab.toolchains.ascend.script_capture --out DIR -- script.py args` runs
the script as `__main__` inside `intercept_launches`: launches are
compiled offline (autotune sweeps as cheap records, the config that runs with every pass),
progress goes to stderr one line per compile, and `collection.json` in `folder` lists the
Runs made. Dump text never reaches the terminal: it goes to the Runs.
"""

from __future__ import annotations

import argparse
import json
import runpy
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

INDEX = "collection.json"
NPU_HERE = 75  # the child's exit code when this host has an NPU: the script was not run


class TerminalProgress:
    """One line per compile on stderr: count, kernel (and sweep config), time, status."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream or sys.stderr
        self.count = 0
        self._start = 0.0
        self._what = ""
        self._later: dict[tuple[Any, Any], tuple[str, float]] = {}  # finishing in background

    def __call__(self, event: str, info: dict[str, Any]) -> None:
        if event == "start":
            self.count += 1
            self._start = time.perf_counter()
            step = f" {info['sweep']}" if info.get("sweep") else ""
            self._what = f"[{self.count}] {info['kernel']}{step}"
            self._say(f"{self._what} -> {info['target']} ...")
        elif event == "background":
            self._later[(info.get("kernel"), info.get("sweep"))] = (self._what, self._start)
            self._say(f"{self._what}: bishengir-compile goes on in the background")
        elif event == "done":
            what, start = self._later.pop(
                (info.get("kernel"), info.get("sweep")), (self._what, self._start)
            )
            self._say(f"{what}: {info['run'].status} in {time.perf_counter() - start:.1f} s")
        elif event == "capture":
            self._say(f"capturing the passes of {info.get('kernel')} ...")
        elif event in ("failed", "error"):
            what, _ = self._later.pop((info.get("kernel"), info.get("sweep")), (self._what, 0))
            self._say(f"{what}: failed: {info.get('error')}")

    def _say(self, text: str) -> None:
        print(f"ascend-ir-lab: {text}", file=self.stream, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m ascend_ir_lab.toolchains.ascend.script_capture --out DIR -- script.py args`."""
    from ascend_ir_lab.toolchains.ascend.launch import intercept_launches, npu_available

    parser = argparse.ArgumentParser(prog=f"python -m {__name__}")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--configs", default=None)
    parser.add_argument("script", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if npu_available():
        return NPU_HERE
    script = args.script[1:] if args.script[:1] == ["--"] else args.script
    configs = [int(c) for c in args.configs.split(",")] if args.configs else None
    sys.argv = list(script)
    sys.path.insert(0, str(Path(script[0]).resolve().parent))
    code = 0
    with intercept_launches(runs_dir=args.out, progress=TerminalProgress(), configs=configs) as cap:
        try:
            runpy.run_path(script[0], run_name="__main__")
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        finally:
            names = [r.path.name for r in cap.runs]
            (args.out / INDEX).write_text(json.dumps({"runs": names}, indent=2) + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
