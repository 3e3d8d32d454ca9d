"""Elementwise kernels over dtypes, signed and unsigned, launched with plain ints."""

import pytest
import torch
import triton
import triton.language as tl
from npu_common import check, make


@triton.jit
def add_scaled(x_ptr, y_ptr, out_ptr, n, XBLOCK: tl.constexpr, XBLOCK_SUB: tl.constexpr):
    base = tl.program_id(0) * XBLOCK
    for sub in range(0, XBLOCK, XBLOCK_SUB):
        offs = base + sub + tl.arange(0, XBLOCK_SUB)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, x + y, mask=mask)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int8", "uint8", "int32"])
@pytest.mark.parametrize("n", [1, 300])
def test_add(dtype, n):
    x, y = make((n,), dtype), make((n,), dtype)
    out = torch.empty_like(x)
    add_scaled[(triton.cdiv(n, 256),)](x, y, out, n, 256, 64)
    check(dtype, out, x + y)
