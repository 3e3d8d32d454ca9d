"""Row softmax written the way scripts for an NPU host are: torch_npu, device='npu',
torch.npu.*, triton's driver for the core count, a persistent grid, its own result check."""

import torch
import torch_npu  # noqa: F401 - NPU-host scripts import it first
import triton
import triton.language as tl
from triton.runtime import driver


@triton.jit
def _scaled(x, scale):
    return x * scale


@triton.jit
def softmax_rows(out_ptr, in_ptr, n_rows, n_cols, stride, BLOCK: tl.constexpr):
    start = tl.program_id(0)
    step = tl.num_programs(0)
    for row in tl.range(start, n_rows, step):
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * stride + cols, mask=mask, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        num = tl.exp(_scaled(x, 1.0))
        tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    device = torch.npu.current_device()
    cores = driver.active.utils.get_device_properties(device)["num_vectorcore"]
    softmax_rows[(min(cores, rows),)](
        out, x, rows, cols, x.stride(0), BLOCK=triton.next_power_of_2(cols)
    )
    return out


if __name__ == "__main__":
    target = triton.runtime.driver.active.get_current_target()
    torch.npu.set_device(0)
    stream = torch.npu.current_stream(torch.npu.current_device()).npu_stream
    torch.manual_seed(0)
    x = torch.randn(45, 100, device="npu").to("npu")
    y = softmax(x.npu())
    torch.npu.synchronize()
    assert torch.allclose(y.cpu(), torch.softmax(x, dim=1).cpu(), atol=1e-6), "softmax differs"
    print(f"softmax on {target.arch} ({torch.npu.get_device_name()}): PASSED")
