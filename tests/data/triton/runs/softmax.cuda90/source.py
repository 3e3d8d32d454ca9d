"""Row-wise softmax over a 2-D fp32 matrix, one row per program."""

import triton
import triton.language as tl


@triton.jit
def softmax(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    """out[r, :] = softmax(in[r, :]); BLOCK is the next power of two >= n_cols."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, num / den, mask=mask)


COMPILE = {
    "kernel": "softmax",
    "signature": "out_ptr=*fp32,in_ptr=*fp32,in_row_stride=i32,out_row_stride=i32,n_cols=i32",
    "constexprs": {"BLOCK": 1024},
}


def reference(x):
    """The same softmax in torch (rows of x)."""
    import torch

    return torch.softmax(x, dim=-1)
