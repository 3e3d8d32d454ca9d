"""A linear-style kernel whose bias is optional: `None` when the caller has none."""

import pytest
import torch
import triton
import triton.language as tl
from npu_common import check, make


@triton.jit
def scale_bias(x_ptr, bias_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask) * scale
    if bias_ptr is not None:
        x += tl.load(bias_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x, mask=mask)


@pytest.mark.parametrize("with_bias", [False, True])
def test_scale_bias(with_bias):
    n = 500
    x = make((n,), "float32")
    bias = make((n,), "float32") if with_bias else None
    out = torch.empty_like(x)
    scale_bias[(triton.cdiv(n, 128),)](x, bias, out, n, 0.5, BLOCK=128)
    check("float32", out, x * 0.5 + (bias if with_bias else 0))
