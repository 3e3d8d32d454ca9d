"""Atomics on narrow element types, as NPU suites test every dtype the device has."""

import pytest
import torch
import triton
import triton.language as tl
from npu_common import check, make


@triton.jit
def atomic_bits(in_ptr, acc_ptr, old_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(in_ptr + offs, mask)
    old = tl.atomic_or(acc_ptr + tl.arange(0, BLOCK), x, mask)  # every program, the same row
    tl.store(old_ptr + offs, old, mask)


@triton.jit
def atomic_peak(in_ptr, peak_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(in_ptr + offs, offs < n)
    tl.atomic_max(peak_ptr + tl.arange(0, BLOCK), x, offs < n)
    tl.atomic_add(peak_ptr + BLOCK + tl.arange(0, BLOCK), x, offs < n)


@pytest.mark.parametrize("dtype", ["int8", "int16"])
def test_atomic_or_narrow(dtype):
    block, programs = 16, 3
    x = make((programs * block,), dtype)
    acc = torch.zeros(block, dtype=getattr(torch, dtype)).npu()
    old = torch.zeros_like(x)
    atomic_bits[(programs, 1, 1)](x, acc, old, x.numel(), BLOCK=block)
    rows = x.view(programs, block)
    expected = rows[0] | rows[1] | rows[2]
    check(dtype, acc, expected)
    check(dtype, old.view(programs, block)[2], rows[0] | rows[1])  # programs in order


def test_atomic_max_and_add_half():
    block, programs = 32, 2
    x = make((programs * block,), "float16")
    peak = torch.full((2 * block,), -1000.0, dtype=torch.float16).npu()
    peak[block:] = 0
    atomic_peak[(programs,)](x, peak, x.numel(), BLOCK=block)
    rows = x.view(programs, block)
    check("float16", peak[:block], rows.max(0).values)
    check("float16", peak[block:], rows.sum(0))


def test_atomic_add_and_max_bf16():
    block, programs = 32, 4
    x = make((programs * block,), "bfloat16")
    peak = torch.full((2 * block,), -1000.0, dtype=torch.bfloat16).npu()
    peak[block:] = 2
    atomic_peak[(programs,)](x, peak, x.numel(), BLOCK=block)
    rows = x.view(programs, block).float()
    check("bfloat16", peak[:block], rows.max(0).values)
    check("bfloat16", peak[block:], 2 + rows.sum(0))
