"""Cells and helpers shared by the notebook tests."""

from __future__ import annotations

from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import CapturedIO, capture_output

from ascend_ir_lab.toolchains.common.tools import triton_ascend_available

needs_ascend = pytest.mark.skipif(
    not triton_ascend_available(),
    reason="triton-ascend is not importable: pip install -e '.[ascend]' to run the real tools",
)

VADD_CELL = """
import torch, triton, triton.language as tl

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)

x = torch.rand(3000)
y = torch.rand(3000)
out = torch.zeros(3000)
add_kernel[(triton.cdiv(3000, 1024),)](x, y, out, 3000, BLOCK=1024)
"""

MATMUL_CELL = """
a = torch.randn(64, 64, dtype=torch.float16)
b = torch.randn(64, 64, dtype=torch.float16)
bias = torch.randn(64)
c = torch.empty(64, 64, dtype=torch.float16)
matmul[(2, 2)](a, b, bias, c, 64, 64, 64, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
               c.stride(0), c.stride(1), BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
"""


def run_cell(shell: InteractiveShell, code: str) -> tuple[Any, CapturedIO]:
    """Run `code` as a cell; (its result object, what it printed and displayed)."""
    with capture_output() as io:
        result = shell.run_cell(code, store_history=True)
    return result, io


def shown(io: CapturedIO) -> str:
    """Everything a plain-text frontend showed: stdout, stderr and text/plain displays."""
    texts = [o.data.get("text/plain", "") for o in io.outputs]
    return "\n".join([io.stdout, io.stderr, *texts])
