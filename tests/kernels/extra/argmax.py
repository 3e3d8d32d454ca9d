"""Index of the largest element of each row."""

import triton
import triton.language as tl


@triton.jit
def argmax_rows(x_ptr, idx_ptr, n_cols, BLOCK: tl.constexpr):
    """One row per program; BLOCK must cover n_cols."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(idx_ptr + row, tl.argmax(x, axis=0))


COMPILE = {
    "kernel": "argmax_rows",
    "signature": "x_ptr=*fp32,idx_ptr=*i32,n_cols=i32",
    "constexprs": {"BLOCK": 256},
}
