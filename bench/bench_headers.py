"""A log whose header lines are 512 KB long vs the same log with short headers (the same
bytes moved into the IR), read as `ascend-ir-lab inspect` reads it, in whole processes.

Goal: reading stays linear in the line length (ratio near 1; a quadratic header regex made
one 512 KB LLVM header take 47 s).
"""

from __future__ import annotations

import subprocess
import sys

from _common import WORK, best_of, report

LONG = 512 << 10


def _log(kind: str) -> str:
    WORK.mkdir(exist_ok=True)
    path = WORK / f"headers-{kind}.log"
    body = "define void @f() {\n  ret void\n}\n"
    if kind == "long":
        # LLVM: a pass name full of " on " and "(" (what made the old pattern backtrack)
        head = "; *** IR Dump After " + "P on (" * (LONG // 6) + " on f ***\n"
        mlir = "// -----// IR Dump After " + "x: {" * (LONG // 4) + " //----- //\n"
        sym = "// -----// IR Dump After " + " ('a' operation: @" * (LONG // 17) + " //----- //\n"
        internal = "// -----// tt internal IR Dump After: a" + " " * LONG + "x\n"
        text = head + body + mlir + "module {\n}\n" + sym + "module {\n}\n" + internal + "x\n"
    else:
        pad = "; " + "x" * LONG + "\n"
        text = "; *** IR Dump After P on f ***\n" + pad + body
        for _ in range(3):
            text += (
                "// -----// IR Dump After C (c) //----- //\n// " + "x" * LONG + "\nmodule {\n}\n"
            )
    path.write_text(text)
    return str(path)


def _inspect(path: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "ascend_ir_lab", "inspect", path, "--json"],
        capture_output=True, check=True, timeout=600,
    )  # fmt: skip


def main() -> None:
    long_log, short_log = _log("long"), _log("short")
    baseline = best_of(lambda: _inspect(short_log), repeat=3)
    ours = best_of(lambda: _inspect(long_log), repeat=3)
    report("inspect, 512 KB header lines", ours, baseline, "short headers", "<= 2x")


if __name__ == "__main__":
    main()
