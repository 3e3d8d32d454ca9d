"""Inclusive prefix sum along the rows of a 2-D block."""

import triton
import triton.language as tl


@triton.jit
def cumsum_rows(x_ptr, out_ptr, n_rows, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    """One XBLOCK x RBLOCK tile per program; the scan runs along the second axis."""
    rows = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    cols = tl.arange(0, RBLOCK)[None, :]
    mask = rows < n_rows
    x = tl.load(x_ptr + rows * RBLOCK + cols, mask=mask, other=0.0)
    tl.store(out_ptr + rows * RBLOCK + cols, tl.cumsum(x, axis=1), mask=mask)


COMPILE = {
    "kernel": "cumsum_rows",
    "signature": "x_ptr=*fp32,out_ptr=*fp32,n_rows=i32",
    "constexprs": {"XBLOCK": 8, "RBLOCK": 64},
}
