"""Row reductions (max, min, argmax, sum) over a 2-D tensor, one row block per program."""

import pytest
import torch
import triton
import triton.language as tl
from npu_common import check, make


@triton.jit
def row_reduce(x_ptr, out_ptr, idx_ptr, rows, cols, RBLOCK: tl.constexpr, OP: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, RBLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=-float("inf"))
    if OP == "max":
        tl.store(out_ptr + row, tl.max(x, axis=0))
        tl.store(idx_ptr + row, tl.argmax(x, axis=0))
    else:
        y = tl.where(mask, x, 0.0)
        tl.store(out_ptr + row, tl.sum(y, axis=0))


@pytest.mark.parametrize("shape", [(16, 300), (4, 1024)])
def test_row_max_and_argmax(shape):
    x = make(shape, "float32")
    out = torch.empty(shape[0], device="npu")
    idx = torch.empty(shape[0], dtype=torch.int32, device="npu")
    row_reduce[(shape[0],)](x, out, idx, *shape, RBLOCK=triton.next_power_of_2(shape[1]), OP="max")
    check("float32", out, x.max(dim=1).values)
    check("int32", idx, x.argmax(dim=1).int())


def test_row_sum():
    x = make((8, 200), "float32")
    out = torch.empty(8, device="npu")
    idx = torch.empty(8, dtype=torch.int32, device="npu")
    row_reduce[(8,)](x, out, idx, 8, 200, RBLOCK=256, OP="sum")
    check("float32", out, x.sum(dim=1))
