"""Results cross to the host as on the NPU: compared on one device, converted after .cpu()."""

import numpy as np
import pytest
import torch
import torch_npu  # noqa: F401
import triton
import triton.language as tl


@triton.jit
def scale_shift(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * scale + 1.0, mask=mask)


def run_kernel(x, scale=2.0):
    out = torch.empty_like(x)
    scale_shift[(triton.cdiv(x.numel(), 128),)](x, out, x.numel(), scale, BLOCK=128)
    return out


def test_result_checked_on_the_host():
    x = torch.randn(300, dtype=torch.float32).npu()
    out = run_kernel(x)
    ref = x.cpu() * 2.0 + 1.0
    np.testing.assert_allclose(out.cpu().numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)
    assert torch.allclose(out, ref.npu(), rtol=1e-5, atol=1e-5)
    assert "device='npu:0'" in repr(out) and "device=" not in repr(ref)


def test_a_reference_left_on_the_host_is_refused():
    x = torch.randn(300, dtype=torch.float32, device="npu")
    out = run_kernel(x)
    ref = x.cpu() * 2.0 + 1.0
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.allclose(out, ref)
    with pytest.raises(TypeError, match="Use Tensor.cpu"):
        out.numpy()
    assert ((out - ref.npu()).abs().max() < torch.tensor(1e-5)).item()  # a host scalar is fine
