"""Row-wise numerically stable softmax over a 2-D fp32 tensor."""

import triton
import triton.language as tl


@triton.jit
def softmax(x_ptr, out_ptr, row_stride, n_cols, BLOCK: tl.constexpr):
    """Softmax of one row per program; BLOCK must cover n_cols."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * row_stride + cols, num / den, mask=mask)


COMPILE = {
    "kernel": "softmax",
    "signature": "x_ptr=*fp32,out_ptr=*fp32,row_stride=i32,n_cols=i32",
    "constexprs": {"BLOCK": 1024},
}
