"""Tensor makers and comparisons shared by the checks, as NPU test suites keep them."""

import torch
import torch_npu  # noqa: F401

DEVICE = "npu"


def make(shape, dtype):
    """A random NPU tensor of `dtype` (a name: 'float32', 'uint8', ...)."""
    torch_dtype = getattr(torch, dtype)
    if torch_dtype.is_floating_point:
        return torch.randn(shape, dtype=torch_dtype).npu()
    high = 100 if torch_dtype != torch.bool else 2
    return torch.randint(0, high, shape, dtype=torch_dtype).npu()


def check(dtype, actual, expected):
    """Compare as NPU suites do: loose for half types, exact for integers."""
    torch.npu.synchronize()
    if dtype in ("float16", "bfloat16"):
        torch.testing.assert_close(actual.float(), expected.float(), rtol=1e-2, atol=1e-2)
    elif dtype.startswith("float"):
        torch.testing.assert_close(actual, expected, rtol=1e-4, atol=1e-4)
    else:
        assert torch.equal(actual.cpu(), expected.cpu())
