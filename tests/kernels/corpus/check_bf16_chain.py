"""bf16 elementwise chains, compared as NPU suites compare them: against the fp32 result
rounded once, with a tolerance tighter than one bf16 step per op."""

import pytest
import torch
import triton
import triton.language as tl
from npu_common import make


@triton.jit
def accumulate(out_ptr, x_ptr, y_ptr, n, ROUNDS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    acc = x + y
    for _ in tl.range(0, ROUNDS):
        acc = acc + x
    tl.store(out_ptr + offs, acc, mask=mask)


@triton.jit
def shift_clip_peak(out_ptr, peak_ptr, x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    shifted = x * 2.0 + 1.0
    tl.store(out_ptr + offs, tl.where(shifted > 0, shifted, -shifted))
    tl.store(peak_ptr, tl.max(x, 0))


@pytest.mark.parametrize("rounds", [1, 3])
def test_accumulate(rounds):
    n = 300
    x, y = make((n,), "bfloat16"), make((n,), "bfloat16")
    out = torch.empty_like(x)
    accumulate[(triton.cdiv(n, 128),)](out, x, y, n, ROUNDS=rounds, BLOCK=128)
    want = (x.float() * (rounds + 1) + y.float()).to(torch.bfloat16)
    torch.testing.assert_close(out.float(), want.float(), rtol=1e-3, atol=1e-3)


def test_shift_clip_peak():
    x = -make((64,), "bfloat16").abs() - 0.25  # all negative: the peak is the one nearest 0
    out = torch.empty_like(x)
    peak = torch.empty(1, dtype=torch.bfloat16, device="npu")
    shift_clip_peak[(1,)](out, peak, x, BLOCK=64)
    shifted = x.float() * 2.0 + 1.0
    want = torch.where(shifted > 0, shifted, -shifted).to(torch.bfloat16)
    torch.testing.assert_close(out.float(), want.float(), rtol=1e-3, atol=1e-3)
    assert peak.item() == x.max().item()
