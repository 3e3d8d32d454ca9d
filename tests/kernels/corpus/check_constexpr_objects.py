"""Shapes kept as module-level `tl.constexpr` objects and passed to the launch as they are,
as newer triton-ascend test suites write them (triton-ascend 3.2's launch refuses them)."""

import pytest
import torch
import triton
import triton.language as tl
from npu_common import check, make

ROWS = tl.constexpr(2)
COLS = tl.constexpr(16)


@triton.jit
def repeat_rows(in_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    cols = tl.arange(0, N)
    x = tl.load(in_ptr + cols)
    for r in range(M):
        tl.store(out_ptr + r * N + cols, x)


@pytest.mark.parametrize("dtype", ["bfloat16"])
def test_repeat_rows(dtype):
    x = make((1, COLS), dtype)
    out = torch.zeros((ROWS, COLS), dtype=getattr(torch, dtype)).npu()
    repeat_rows[1, 1, 1](x, out, ROWS, COLS)
    check(dtype, out, x.repeat(ROWS, 1))
