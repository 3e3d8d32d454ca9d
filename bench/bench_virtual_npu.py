"""Whole-cell time of an NPU-host script as a `%%triton_npu --interpret` cell on the virtual
NPU, against the plain cell under `TRITON_INTERPRET=1` (the interpreter alone, no Runs).

Each side is a fresh Python process with a real IPython shell running the script as one
cell. The baseline still needs the virtual NPU's torch side (`import torch_npu`,
device='npu'), else the script cannot start on this host; its launches are Triton's own
interpreted ones. Ours adds the offline compile (ttir, adapter, bishengir with every pass
printed) of each kernel.

    python bench/bench_virtual_npu.py [--repeat 2] [SCRIPT.py]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

VADD = """
import torch
import torch_npu
import triton
import triton.language as tl

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)

x = torch.rand(98432, device="npu")
y = torch.rand(98432, device="npu")
out = torch.empty_like(x)
add_kernel[lambda meta: (triton.cdiv(98432, meta["BLOCK"]),)](x, y, out, 98432, BLOCK=1024)
torch.npu.synchronize()
assert torch.allclose(out, x + y)
"""

CHILD = """
import sys, time
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
mode, source, runs = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3]
shell = InteractiveShell.instance()
if mode == "ours":
    shell.run_line_magic("load_ext", "ascend_ir_lab")
    cell = f"%%triton_npu --interpret --runs-dir {runs}\\n" + source
else:
    from ascend_ir_lab.toolchains.ascend.virtual_npu import virtual_npu
    shell.run_cell("from ascend_ir_lab.toolchains.ascend.virtual_npu import virtual_npu")
    cell = "with virtual_npu():\\n" + "".join("    " + ln for ln in source.splitlines(True))
with capture_output():
    result = shell.run_cell(cell)
sys.exit(0 if result.success else 1)
"""


def _run(mode: str, script: Path, runs: Path) -> float:
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    if mode == "plain":
        env["TRITON_INTERPRET"] = "1"
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(script), str(runs)], env=env, check=False
    )
    seconds = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"{mode} cell failed (exit {done.returncode})")
    return seconds


def main() -> None:
    """Print both times and their ratio (best of --repeat)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("script", nargs="?", help="an NPU-host script (default: a vector add)")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-vnpu-") as tmp:
        script = Path(args.script) if args.script else Path(tmp) / "vadd_npu.py"
        if not args.script:
            script.write_text(VADD)
        ours = min(_run("ours", script, Path(tmp) / f"runs{k}") for k in range(args.repeat))
        plain = min(_run("plain", script, Path(tmp) / "unused") for _ in range(args.repeat))
    print(
        f"{script.name}: %%triton_npu --interpret {ours:.1f} s   plain TRITON_INTERPRET=1 "
        f"{plain:.1f} s   ratio {ours / plain:.2f}x"
    )


if __name__ == "__main__":
    main()
