"""Kernels that use a loop's counter as the compiled kernel does, as an i32 value: an
index of `tl.get_element`, an offset of `tl.insert_slice`, a number given new axes."""

import torch
import triton
import triton.language as tl
from npu_common import check, make


@triton.jit
def pick_rows(x_ptr, idx_ptr, out_ptr, ROWS: tl.constexpr, COLS: tl.constexpr):
    idx = tl.load(idx_ptr + tl.arange(0, ROWS))
    cols = tl.arange(0, COLS)
    buf = tl.zeros((ROWS, COLS), tl.float32)
    for i in range(0, ROWS):
        row = tl.load(x_ptr + tl.get_element(idx, (i,)) * COLS + cols)
        buf = tl.insert_slice(buf, row[None, :], offsets=(i, 0), sizes=(1, COLS), strides=(1, 1))
    tl.store(out_ptr + tl.arange(0, ROWS)[:, None] * COLS + cols[None, :], buf)


def test_pick_rows():
    x = make((16, 32), "float32")
    idx = torch.tensor([3, 0, 15, 7, 7, 1, 9, 2], dtype=torch.int32, device="npu")
    out = torch.empty((8, 32), dtype=torch.float32, device="npu")
    pick_rows[(1,)](x, idx, out, 8, 32)
    check("float32", out, x[idx.long()])


@triton.jit
def weighted_taps(x_ptr, w_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    table = (offs % 4)[:, None] * 16 + (offs % 4)[None, :]
    acc = tl.zeros((BLOCK, BLOCK), tl.float32)
    for ii in range(4):
        for jj in range(4):
            w = tl.load(w_ptr + table * 0 + (ii * 4 + jj)[None, None])  # one tap, broadcast
            acc += w * tl.load(x_ptr + offs[:, None] * BLOCK + offs[None, :])
    tl.store(out_ptr + offs[:, None] * BLOCK + offs[None, :], acc)


def test_weighted_taps():
    x, w = make((16, 16), "float32"), make((16,), "float32")
    out = torch.empty_like(x)
    weighted_taps[(1,)](x, w, out, 16)
    check("float32", out, x * w.sum())


@triton.jit
def strided_blocks(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    for k in range(0, n, BLOCK):
        base = k.to(tl.int64) * 2  # the counter as a tensor: an int64 offset
        offs = base + tl.arange(0, BLOCK)
        tl.store(out_ptr + k + tl.arange(0, BLOCK), tl.load(x_ptr + offs, mask=offs < 2 * n))


def test_strided_blocks():
    x = make((512,), "float32")
    out = torch.zeros(256, dtype=torch.float32, device="npu")
    strided_blocks[(1,)](x, out, 256, 64)
    expected = torch.cat([x[2 * k : 2 * k + 64] for k in range(0, 256, 64)])
    check("float32", out, expected)
