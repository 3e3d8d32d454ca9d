"""Rows of a table picked by an index vector (an embedding lookup)."""

import triton
import triton.language as tl


@triton.jit
def index_select_rows(table_ptr, idx_ptr, out_ptr, n_idx, DIM: tl.constexpr, BLOCK: tl.constexpr):
    """out[i, :] = table[idx[i], :] for BLOCK indices per program, one row at a time."""
    first = tl.program_id(0) * BLOCK
    cols = tl.arange(0, DIM)
    for i in range(BLOCK):
        if first + i < n_idx:
            row = tl.load(idx_ptr + first + i)
            v = tl.load(table_ptr + row * DIM + cols)
            tl.store(out_ptr + (first + i) * DIM + cols, v)


COMPILE = {
    "kernel": "index_select_rows",
    "signature": "table_ptr=*fp16,idx_ptr=*i32,out_ptr=*fp16,n_idx=i32",
    "constexprs": {"DIM": 128, "BLOCK": 4},
}
