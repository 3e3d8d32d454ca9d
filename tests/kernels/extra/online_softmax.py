"""Softmax of long rows in chunks: running max and sum carried through the loop."""

import triton
import triton.language as tl


@triton.jit
def online_softmax(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    """Two passes over one row per program: statistics, then the normalised values."""
    row = tl.program_id(0)
    m = -float("inf")
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        new_m = tl.maximum(m, tl.max(x, 0))
        s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m), 0)
        m = new_m
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        tl.store(out_ptr + row * n_cols + cols, tl.exp(x - m) / s, mask=cols < n_cols)


COMPILE = {
    "kernel": "online_softmax",
    "signature": "x_ptr=*fp32,out_ptr=*fp32,n_cols=i32",
    "constexprs": {"BLOCK": 256},
}
