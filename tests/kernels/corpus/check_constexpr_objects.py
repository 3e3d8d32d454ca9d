"""Shapes kept as module-level `tl.constexpr` objects and passed to the launch as they are,
as newer triton-ascend test suites write them (triton-ascend 3.2's own launch path refuses
them), to constexpr parameters and to a parameter the kernel never reads."""

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


NUMEL = tl.constexpr(ROWS * COLS)


@triton.jit
def spread(out_ptr, in_ptr, length):
    offsets = tl.arange(0, NUMEL)
    x = tl.load(in_ptr + offsets % COLS)
    tl.store(out_ptr + offsets, x)


def test_spread():
    x = make((COLS,), "float32")
    out = torch.empty((ROWS, COLS), dtype=torch.float32).npu()
    spread[1, 1, 1](out, x, NUMEL, debug=True)
    assert torch.equal(out, x.repeat(ROWS, 1))
