"""A kernel handed a table of buffer addresses (`tensor.data_ptr()`s in a uint64 tensor), as
paged KV-cache copies are: each program copies one buffer's slot `src` to slot `dst`."""

import pytest
import torch
import triton
import triton.language as tl


@triton.jit
def copy_slots(table_ptr, src_ptr, dst_ptr, WIDTH: tl.constexpr):
    buf = tl.load(table_ptr + tl.program_id(0)).to(tl.pointer_type(tl.float32))
    src, dst = tl.load(src_ptr), tl.load(dst_ptr)
    cols = tl.arange(0, WIDTH)
    row = tl.load(buf + src * WIDTH + cols)
    tl.store(buf + dst * WIDTH + cols, row * 2.0)


@pytest.mark.parametrize("layers", [1, 3])
def test_copy_slots(layers):
    caches = [torch.randn(8, 16, device="npu") for _ in range(layers)]
    want = [c.clone() for c in caches]
    table = torch.tensor([c.data_ptr() for c in caches], dtype=torch.uint64, device="npu")
    src = torch.tensor([2], dtype=torch.int32, device="npu")
    dst = torch.tensor([5], dtype=torch.int32, device="npu")
    copy_slots[(layers,)](table, src, dst, WIDTH=16)
    torch.npu.synchronize()
    for cache, ref in zip(caches, want, strict=True):
        ref[5] = ref[2] * 2.0
        torch.testing.assert_close(cache, ref)
