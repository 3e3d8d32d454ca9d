"""The same kernel under pytest, as NPU test suites are run (`python -m pytest ...`)."""

import pytest
import torch
import torch_npu  # noqa: F401
from softmax_rows import softmax


@pytest.mark.parametrize("cols", [64])
def test_softmax_matches_torch(cols):
    x = torch.randn(8, cols, device=torch.device("npu:0"))
    assert torch.allclose(softmax(x), torch.softmax(x, dim=1), atol=1e-6)
