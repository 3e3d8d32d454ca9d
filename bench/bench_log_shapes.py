"""Reading logs as CI and launchers keep them, against reading the same log plain.

The log is bench_cli's real logs concatenated to about SIZE MB; each shape is that log with
every line prefixed (a GitHub Actions timestamp; two ranks whose lines take turns, as
torchrun writes `[rank0]:` and `[rank1]:`) or with every header glued after progress text.
CPU time of `read_log` in this process, best of N; no index is kept, so each read reads
(as a first open does).

    python bench/bench_log_shapes.py [SIZE_MB] [--repeat N]     (default: 50 MB, 3)

Goal: a prefixed log reads in at most 20x the plain log's time (the plain read is a few
byte searches; a prefixed one touches every line once), a glued one in at most 2x.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _common import ROOT, best_of

sys.path.insert(0, str(ROOT))

from bench_cli import big_log  # noqa: E402


def _cpu(fn: Callable[[], object], repeat: int) -> float:
    return best_of(fn, repeat, clock=time.process_time)


def _shapes(plain: bytes) -> dict[str, bytes]:
    lines = plain.splitlines(keepends=True)
    stamped = b"".join(
        b"2026-12-01T10:%02d:%02d.%07dZ " % (k // 60 % 60, k % 60, k % 9999999) + line
        for k, line in enumerate(lines)
    )
    half = len(lines) // 2
    ranks = b"".join(
        b"[rank%d]:" % r + line
        for pair in zip(lines[:half], lines[half : 2 * half], strict=True)
        for r, line in enumerate(pair)
    )
    glued = plain.replace(b"// -----// IR Dump", b"[1/2] compiling // -----// IR Dump")
    return {"GitHub Actions timestamps": stamped, "two ranks interleaved": ranks, "glued": glued}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("size", nargs="?", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    src = big_log(200).read_bytes()[: args.size << 20]
    plain = src[: src.rfind(b"\n") + 1]
    with tempfile.TemporaryDirectory() as tmp:
        from ascend_ir_lab.dumps import builder, read_log

        builder.index_file = lambda *_args: None  # type: ignore[assignment]  # nothing kept

        def reader(data: bytes, name: str) -> Callable[[], object]:
            path = Path(tmp) / name
            path.write_bytes(data)
            return lambda: read_log(path)

        base = _cpu(reader(plain, "plain.log"), args.repeat)
        print(f"{'plain':<28} {base:7.3f} s CPU  ({len(plain) >> 20} MB)")
        for name, data in _shapes(plain).items():
            ours = _cpu(reader(data, "shape.log"), args.repeat)
            goal = "2x" if name == "glued" else "20x"
            print(f"{name:<28} {ours:7.3f} s CPU  ratio {ours / base:5.1f}x  goal {goal}")
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
