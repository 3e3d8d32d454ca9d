"""Pins each test module to one NPU, as NPU test suites' conftest files do."""

import pytest


@pytest.fixture(scope="module", autouse=True)
def pin_npu():
    import torch
    import torch_npu  # noqa: F401

    torch.npu.set_device(0)
    yield
    torch.npu.synchronize()
