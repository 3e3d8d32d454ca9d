"""`capture`'s wrap-up against the number of Runs: the parent's reading of the Runs and its
table, and the Run folders' naming during the script, per Run, at N Runs of one kernel.

A parametrised suite makes hundreds of Runs of one kernel (triton-ascend's test_trans_3d.py:
255). The wrap-up is linear when its cost per Run stays flat as N grows; the ratio printed is
the cost per Run at N against that at the smallest N, measured beside it in the same run.
The Runs are copies of one real Run compiled here first (a kernel of this file's own).

    python bench/bench_capture_wrapup.py [N ...]        # default 32 128 512
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SCRIPT = """
import torch, torch_npu, triton, triton.language as tl

@triton.jit
def axpy(x_ptr, y_ptr, n, a, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)

x = torch.randn(1000, device="npu"); y = torch.zeros_like(x)
axpy[(8,)](x, y, 1000, 2.0, BLOCK=128)
"""


def _one_run(work: Path) -> Path:
    script = work / "axpy.py"
    script.write_text(SCRIPT)
    out = work / "one"
    cmd = [sys.executable, "-m", "ascend_ir_lab", "capture", "-o", str(out), "--",
           sys.executable, str(script)]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True, cwd=work)
    return out / json.loads((out / "capture.json").read_text())["runs"][0]


def _wrapup(folder: Path) -> float:
    """Seconds of what `capture` does once the script has ended: read its Runs back, print
    each one's status and the table."""
    from ascend_ir_lab.toolchains.ascend.offline_script import _read_result
    from ascend_ir_lab.toolchains.common.collection import run_row, table_text

    start = time.perf_counter()
    result = _read_result(folder, ["python"], 0)
    lines = [f"{run.path}: {run.manifest['status']['text']}" for run in result.runs]
    lines.append(table_text(run_row(r) for r in result.runs))
    return time.perf_counter() - start


def _naming(folder: Path, n: int) -> float:
    """Seconds to make the folders of n Runs of one kernel, as the launches do."""
    from ascend_ir_lab.toolchains.common.launch import fresh_folder

    start = time.perf_counter()
    for _ in range(n):
        fresh_folder("axpy", folder)
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    sizes = [int(a) for a in argv] or [32, 128, 512]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        run = _one_run(work)
        print(f"one Run of {sum(1 for _ in run.rglob('*'))} files, copied N times")
        rows = []
        for n in sizes:
            folder = work / f"n{n}"
            names = [run.name if k == 0 else f"{run.name}-{k + 1}" for k in range(n)]
            for name in names:
                shutil.copytree(run, folder / name)
            (folder / "capture.json").write_text(json.dumps({"runs": names, "launches": n}))
            wrap = min(_wrapup(folder) for _ in range(3))
            naming = _naming(work / f"names{n}", n)
            rows.append((n, wrap, naming))
        n0, wrap0, naming0 = rows[0]
        for n, wrap, naming in rows:
            print(f"N {n:5d}  wrap-up {wrap:7.3f} s ({wrap / n * 1000:6.2f} ms/Run, "
                  f"{wrap / n / (wrap0 / n0):4.2f}x of N={n0})   naming {naming:6.3f} s "
                  f"({naming / n * 1000:6.3f} ms/Run, {naming / n / (naming0 / n0):4.2f}x)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
