"""Memory of a long NPU-host script under `capture`, against the same script without it.

The script (written here, in the style of triton-ascend's gather tutorial) runs CASES cases
of one gather kernel, each with tensors of its own, dropped at the end of the case; some
cases' block sizes are too large for the chip and fail to compile, as a tutorial's largest
cases do. After each case it prints its resident memory. Two ways, each a whole process:

- plain (the baseline): the virtual NPU's torch side, Triton's own interpreter
  (`TRITON_INTERPRET=1`), no Runs;
- capture: `ascend-ir-lab capture -- python SCRIPT.py` (each launch compiled into a Run and
  run in the CPU interpreter).

Prints the resident memory after the first case and after the last, the growth per case of
each way, and their ratio.

    python bench/bench_capture_memory.py [CASES]
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import gc, sys
import torch, torch_npu, triton
import triton.language as tl

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20

@triton.jit
def gather_rows(emb_ptr, idx_ptr, out_ptr, rows, cols, BLOCK_ROWS: tl.constexpr,
                BLOCK_COLS: tl.constexpr):
    r = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    c = tl.arange(0, BLOCK_COLS)
    idx = tl.load(idx_ptr + r, mask=r < rows, other=0)
    mask = (r < rows)[:, None] & (c[None, :] < cols)
    vals = tl.load(emb_ptr + idx[:, None] * cols + c[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + r[:, None] * cols + c[None, :], vals, mask=mask)

for k in range(int(sys.argv[1])):
    cols, block_rows = (33, 65, 129, 257)[k % 4], (16, 32, 64, 128, 256)[(k // 4) % 5]
    rows = 4001 + 97 * k
    emb = torch.randn(20_000, cols, device="npu")
    idx = torch.randint(0, 20_000, (rows,), device="npu")
    out = torch.empty(rows, cols, device="npu")
    grid = (triton.cdiv(rows, block_rows),)
    gather_rows[grid](emb, idx, out, rows, cols, BLOCK_ROWS=block_rows,
                      BLOCK_COLS=triton.next_power_of_2(cols))
    del emb, idx, out
    gc.collect()
    print(f"rss {k} {rss_mb():.1f}", flush=True)
"""

PLAIN = """
import runpy, sys
from ascend_ir_lab.toolchains.ascend.virtual_npu import virtual_npu
sys.argv = sys.argv[1:]
with virtual_npu():
    runpy.run_path(sys.argv[0], run_name="__main__")
"""


def _rss(command: list[str], env: dict[str, str], cwd: Path) -> list[float]:
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    found = [float(v) for v in re.findall(r"^rss \d+ ([\d.]+)$", done.stdout, re.M)]
    if not found:
        raise SystemExit(f"{command[:4]}: no memory figures\n{(done.stdout + done.stderr)[-2000:]}")
    return found


def main() -> None:
    cases = sys.argv[1] if len(sys.argv) > 1 else "40"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRITON_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
        work = Path(tmp)
        (work / "gather_cases.py").write_text(SCRIPT)
        plain = _rss([sys.executable, "-c", PLAIN, "gather_cases.py", cases],
                     {**env, "TRITON_INTERPRET": "1"}, work)  # fmt: skip
        cmd = [sys.executable, "-m", "ascend_ir_lab", "capture", "-o", str(work / "runs"), "--",
               sys.executable, "gather_cases.py", cases]  # fmt: skip
        captured = _rss(cmd, env, work)
    rows = {"plain": plain, "capture": captured}
    growth = {k: (v[-1] - v[0]) / max(len(v) - 1, 1) for k, v in rows.items()}
    for name, values in rows.items():
        print(f"{name:<8} cases {len(values):3d}  rss first {values[0]:7.1f} MB  last "
              f"{values[-1]:7.1f} MB  growth {growth[name]:5.2f} MB/case")  # fmt: skip
    ratio = captured[-1] / plain[-1] if plain[-1] else float("nan")
    print(f"capture/plain, rss after the last case: {ratio:.2f}x")


if __name__ == "__main__":
    main()
