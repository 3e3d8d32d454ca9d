"""Bool tensors through elementwise kernels, checked against torch as NPU suites do: the
reference is torch's own op on the device (`//` on bools, which CPU torch lacks)."""

import pytest
import torch
import triton
import triton.language as tl
from npu_common import check, make


@triton.jit
def invert_mask(in_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    x = tl.load(in_ptr + offs, keep)
    tl.store(out_ptr + offs, ~x, keep)


@triton.jit
def floor_div(out_ptr, a_ptr, b_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.load(a_ptr + offs) // tl.load(b_ptr + offs))


@pytest.mark.parametrize("dtype", ["bool", "int8"])
def test_invert(dtype):
    x = make((300,), dtype)
    out = torch.empty_like(x)
    invert_mask[(3, 1, 1)](x, out, x.numel(), BLOCK=128)
    check(dtype, out, ~x)


@pytest.mark.parametrize("dtype", ["bool", "int32"])
def test_floor_div(dtype):
    a, b = make((64,), dtype), make((64,), dtype)
    b = b.masked_fill(b == 0, 1)
    out = torch.empty_like(a)
    floor_div[1, 1, 1](out, a, b, 64)
    check(dtype, out, a // b)


@triton.jit
def not_and_or(in_ptr, out_ptr, flags_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    x = tl.load(in_ptr + offs, keep)
    flipped = not (x)
    tl.store(out_ptr + offs, flipped, keep)
    even_low = (offs % 2 == 0) and (offs < n // 2) or (offs == n - 1)
    tl.store(flags_ptr + offs, even_low.to(tl.int8), keep)


@pytest.mark.parametrize("dtype", ["int8", "int32", "bool"])
def test_not_and_or(dtype):
    x = make((300,), dtype)
    out, flags = torch.empty_like(x), torch.zeros(300, dtype=torch.int8).npu()
    not_and_or[(3, 1, 1)](x, out, flags, x.numel(), BLOCK=128)
    check(dtype, out, torch.bitwise_not(x))
    offs = torch.arange(300).npu()
    expected = ((offs % 2 == 0) & (offs < 150)) | (offs == 299)
    check("int8", flags, expected.to(torch.int8))
