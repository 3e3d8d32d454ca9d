"""Pins each test module to one NPU, as NPU test suites' conftest files do, and seeds each
test (a sum of random halves rounded at every atomic add can miss its fp32 reference by
more than the tolerance, once in a while)."""

import pytest


@pytest.fixture(scope="module", autouse=True)
def pin_npu():
    import torch
    import torch_npu  # noqa: F401

    torch.npu.set_device(0)
    yield
    torch.npu.synchronize()


@pytest.fixture(autouse=True)
def seeded():
    import torch

    torch.manual_seed(1234)
