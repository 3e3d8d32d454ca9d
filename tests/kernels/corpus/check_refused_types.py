"""A kernel triton's frontend refuses for one input type: the suite expects the launch to
raise, as NPU test suites check their kernels' type checks."""

import pytest
import torch
import triton
import triton.language as tl
from npu_common import make


@triton.jit
def nan_mask(x_ptr, out_ptr, N: tl.constexpr):
    idx = tl.arange(0, N)
    tl.store(out_ptr + idx, tl.extra.ascend.libdevice.isnan(tl.load(x_ptr + idx)))


def test_int_input_is_refused_at_launch():
    x = make((37,), "int32")
    out = torch.zeros(37, dtype=torch.bool).npu()
    with pytest.raises(
        triton.compiler.errors.CompilationError, match="input arg type does not match"
    ):
        nan_mask[(1,)](x, out, 37)
    assert not out.cpu().any()  # nothing launched


def test_float_input_still_runs():
    x = make((37,), "float32")
    x[3] = float("nan")
    out = torch.zeros(37, dtype=torch.bool).npu()
    nan_mask[(1,)](x, out, 37)
    assert torch.equal(out.cpu(), torch.isnan(x.cpu()))
