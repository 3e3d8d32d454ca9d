"""An Ascend autotune sweep cross-compiled under the tool vs bare `triton.compile`.

Goals, whole processes, interleaved in one run (best of N and median, wall and CPU of the
process tree):
- sweep: `ascend-ir-lab capture --no-interpret -- python script.py` (8 configs of an
  autotuned matmul cross-compiled, each a cheap record, the chosen one with every pass)
  <= 1.5x a bare script calling `triton.compile` on the same 8 configs;
- script: `ascend-ir-lab capture -- python script.py` (the same, and the chosen config run
  in Triton's CPU interpreter) <= 1.3x the bare compiles plus the capture of the kernel whose
  dumps are taken (`ascend-ir-lab compile` of that config alone).
With no NPU the user's own script cannot launch, so the bare compiles stand in for it.
Both sides import from cached bytecode (PYTHONPYCACHEPREFIX under bench/.work), as a
user's Python does; the load (`uptime`) is printed before and after. The chosen config's
bishengir-compile runs beside the other configs' compiles: the wall ratio gains from a free
second core, the CPU ratio does not (on a loaded machine, read the CPU lines).
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, WORK, report

CONFIGS = [(m, n, k) for m in (16, 32) for n in (16, 32) for k in (16, 32)]
KERNEL = ROOT / "tests" / "kernels" / "matmul.py"

SCRIPT = f"""
import sys
import torch
import triton
sys.path.insert(0, {str(KERNEL.parent)!r})
from matmul import matmul

tuned = triton.autotune(
    configs=[triton.Config({{"BLOCK_M": m, "BLOCK_N": n, "BLOCK_K": k}}) for m, n, k in {CONFIGS}],
    key=["M", "N", "K"],
)(matmul)
M = N = K = 128
a, b = torch.rand(M, K, dtype=torch.float16), torch.rand(K, N, dtype=torch.float16)
bias, c = torch.rand(N), torch.empty(M, N, dtype=torch.float16)
grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))
tuned[grid](a, b, bias, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
            c.stride(0), c.stride(1))
"""

BARE = f"""
import sys
import torch  # the user's script makes its tensors with torch
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
sys.path.insert(0, {str(KERNEL.parent)!r})
from matmul import matmul, COMPILE

sig = dict(p.split("=") for p in COMPILE["signature"].split(","))
for m, n, k in {CONFIGS}:
    src = ASTSource(matmul, sig, constants={{"BLOCK_M": m, "BLOCK_N": n, "BLOCK_K": k}})
    try:
        triton.compile(src, target=GPUTarget("npu", "Ascend910B3", 0))
    except Exception:
        pass  # no CANN: the binary step fails after bishengir-compile, as for the tool
"""


def once(argv: list[str], env: dict[str, str], fresh: Path | None = None) -> tuple[float, float]:
    """(wall time, CPU time of the whole process tree) of one run, with a fresh Triton cache."""
    if fresh is not None:
        shutil.rmtree(fresh, ignore_errors=True)
    with tempfile.TemporaryDirectory() as cache:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(
            argv, env={**env, "TRITON_CACHE_DIR": cache}, check=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def uptime() -> str:
    """The machine's load, as `uptime` says it (timings on a loaded machine are noisy)."""
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def main(repeat: int = 5) -> None:
    WORK.mkdir(exist_ok=True)
    script, bare = WORK / "sweep_script.py", WORK / "sweep_bare.py"
    script.write_text(SCRIPT)
    bare.write_text(BARE)
    # both sides import their modules as a user's Python does: from cached bytecode
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(TRITON_ALWAYS_COMPILE="1", PYTHONPYCACHEPREFIX=str(WORK / "pycache"))
    py = sys.executable
    out, one = WORK / "sweep-runs", WORK / "sweep-one"
    # the config the script captures: the one with the fewest programs (the quickest to
    # interpret), with locations in every Dump, as `capture` compiles it
    m, n, k = max(CONFIGS, key=lambda c: c[0] * c[1])
    commands = {
        "bare": ([py, str(bare)], None),
        # the sweep cross-compiled: every config a record, the chosen one with every pass
        "sweep": ([py, "-m", "ascend_ir_lab", "capture", "--no-interpret", "-o", str(out), "--",
                   py, str(script)], out),
        # the script as `capture` runs it by default: also interpreted on the CPU
        "script": ([py, "-m", "ascend_ir_lab", "capture", "-o", str(out), "--", py, str(script)],
                   out),
        "capture": ([py, "-m", "ascend_ir_lab", "compile", str(KERNEL), "-o", str(one),
                     f"--constexpr=BLOCK_M={m}", f"--constexpr=BLOCK_N={n}",
                     f"--constexpr=BLOCK_K={k}", "--line-info"], one),
    }  # fmt: skip
    print(f"load before: {uptime()}")
    for argv, fresh in commands.values():  # warm: bytecode cached, files in the page cache
        once(argv, env, fresh)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(repeat):  # interleaved, so that a change of load hits every side alike
        for name, (argv, fresh) in commands.items():
            times[name].append(once(argv, env, fresh))
    print(f"load after:  {uptime()}")
    for how, pick in (("best", min), ("median", statistics.median)):
        got = {
            name: tuple(pick(t[i] for t in runs) for i in (0, 1)) for name, runs in times.items()
        }
        base, cap = got["bare"], got["capture"]
        for what, i in (("wall", 0), ("CPU", 1)):
            report(f"sweep of {len(CONFIGS)} configs ({what}, {how})", got["sweep"][i], base[i],
                   "bare", "<= 1.5x")  # fmt: skip
            report(f"script + capture ({what}, {how})", got["script"][i], base[i] + cap[i],
                   "bare+cap", "<= 1.3x")  # fmt: skip
            report(f"script vs bare ({what}, {how})", got["script"][i], base[i], "bare",
                   "(no goal)")  # fmt: skip


if __name__ == "__main__":
    main()
