"""A 2-D tile kernel compiled ahead with `warmup`, then launched on a 2-D grid."""

import torch
import triton
import triton.language as tl
from npu_common import check, make


@triton.jit
def transpose_tile(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask)
    tl.store(out_ptr + rn[None, :] * M + rm[:, None], tile, mask=mask)


def test_warmup_then_launch():
    x = make((48, 80), "float32")
    out = torch.empty(80, 48, device="npu")
    grid = (triton.cdiv(48, 16), triton.cdiv(80, 32))
    transpose_tile.warmup(x, out, 48, 80, BM=16, BN=32, grid=grid)
    transpose_tile[grid](x, out, 48, 80, BM=16, BN=32)
    check("float32", out, x.t().contiguous())
