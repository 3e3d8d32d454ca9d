"""Element-wise vector addition: out = x + y."""

import triton
import triton.language as tl


@triton.jit
def vadd(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Add two 1-D fp32 vectors, one BLOCK of elements per program."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


COMPILE = {
    "kernel": "vadd",
    "signature": "x_ptr=*fp32,y_ptr=*fp32,out_ptr=*fp32,n=i32",
    "constexprs": {"BLOCK": 1024},
}
