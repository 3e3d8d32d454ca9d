"""Where tensors live: NPU tensors go to kernels, host tensors are refused by the launcher."""

import pytest
import torch
import triton
import triton.language as tl
from npu_common import check, make


@triton.jit
def add_into(acc_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.load(acc_ptr + offs, mask=mask)
    tl.store(acc_ptr + offs, acc + tl.load(x_ptr + offs, mask=mask), mask=mask)


def accumulate(acc, x):
    assert acc.is_npu and x.device.type == "npu", "both operands must live on the NPU"
    n = acc.numel()
    add_into[(triton.cdiv(n, 256),)](acc, x, n, BLOCK=256)
    return acc


def test_in_place_kernel_against_a_host_copy():
    acc, x = make((1000,), "float32"), make((1000,), "float32")
    before = acc.cpu()  # a copy on the host, taken before the kernel writes acc
    accumulate(acc, x)
    assert before.device == torch.device("cpu") and acc.device == torch.device("npu", 0)
    check("float32", acc.cpu(), before + x.cpu())


def test_buffers_made_beside_an_npu_tensor():
    x = make((300,), "float32")
    acc = torch.zeros(300, dtype=torch.float32, device=x.device)
    layer = torch.nn.Linear(10, 30).npu()
    weight = layer.weight.detach().reshape(-1)
    accumulate(acc, weight)
    accumulate(acc, x)
    check("float32", acc, weight + x)


def test_host_tensor_is_refused():
    acc = torch.zeros(64, device="npu")
    host = torch.ones(64)
    with pytest.raises(ValueError, match=r"cannot be accessed from Triton \(cpu tensor\?\)"):
        add_into[(1,)](acc, host, 64, BLOCK=64)
    assert torch.count_nonzero(acc).item() == 0  # nothing ran
