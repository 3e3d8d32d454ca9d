"""Layer normalisation of each row of a 2-D fp32 tensor, with weight and bias."""

import triton
import triton.language as tl


@triton.jit
def layernorm(x_ptr, w_ptr, b_ptr, out_ptr, row_stride, n_cols, eps, BLOCK: tl.constexpr):
    """Normalise one row per program: (x - mean) / sqrt(var + eps) * w + b."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    diff = tl.where(mask, x - mean, 0.0)
    var = tl.sum(diff * diff, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * row_stride + cols, diff * rstd * w + b, mask=mask)


COMPILE = {
    "kernel": "layernorm",
    "signature": "x_ptr=*fp32,w_ptr=*fp32,b_ptr=*fp32,out_ptr=*fp32,"
    "row_stride=i32,n_cols=i32,eps=fp32",
    "constexprs": {"BLOCK": 1024},
}
