"""Sums and scans of half-precision blocks, held to an fp32 reference as NPU suites hold them
(their references sum fp16 and bf16 in fp32 and round once; so does the device)."""

import pytest
import torch
import triton
import triton.language as tl
from npu_common import make


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def column_sums(x_ptr, sum_ptr, own_ptr, M: tl.constexpr, N: tl.constexpr):
    rows, cols = tl.arange(0, M), tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    tl.store(sum_ptr + cols, tl.sum(x, 0))
    tl.store(own_ptr + cols, tl.reduce(x, 0, _add))  # a combine function of one's own


@triton.jit
def running_sums(x_ptr, y_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(y_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), 0))


def close(actual, expected):
    torch.testing.assert_close(actual.float(), expected.float(), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_column_sums(dtype):
    torch.manual_seed(0)
    x = make((13, 64), dtype)
    sums, own = torch.empty(64, dtype=x.dtype, device="npu"), torch.empty(64, dtype=x.dtype).npu()
    column_sums[(1,)](x, sums, own, M=13, N=64)
    expected = x.float().sum(0).to(x.dtype)
    close(sums, expected)
    close(own, expected)


def test_running_sums_half():
    torch.manual_seed(0)
    x = make((128,), "float16")
    y = torch.empty_like(x)
    running_sums[(1,)](x, y, N=128)
    close(y, x.float().cumsum(0).half())


@triton.jit
def plane_sums(x_ptr, y_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    a, b, c = tl.arange(0, A), tl.arange(0, B), tl.arange(0, C)
    x = tl.load(x_ptr + a[:, None, None] * B * C + b[None, :, None] * C + c[None, None, :])
    tl.store(y_ptr + c, tl.sum(tl.sum(x, 0), 0))  # one f32 sum over both axes on the device


def test_a_sum_of_sums_half():
    torch.manual_seed(0)
    x = make((37, 5, 3), "float16")
    y = torch.empty(3, dtype=torch.float16).npu()
    plane_sums[(1,)](x, y, A=37, B=5, C=3)
    close(y, x.float().sum((0, 1)).half())
