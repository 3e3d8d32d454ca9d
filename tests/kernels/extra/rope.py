"""Rotary position embedding of one token's heads (the two halves rotated)."""

import triton
import triton.language as tl


@triton.jit
def rope(q_ptr, cos_ptr, sin_ptr, out_ptr, n_heads, HEAD: tl.constexpr, HALF: tl.constexpr):
    """out = q * cos + rotate_half(q) * sin for every head of token program_id(0)."""
    tok = tl.program_id(0)
    heads = tl.arange(0, 8)[:, None]
    offs = tl.arange(0, HALF)[None, :]
    mask = heads < n_heads
    base = q_ptr + tok * n_heads * HEAD + heads * HEAD
    x1 = tl.load(base + offs, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(base + HALF + offs, mask=mask, other=0.0).to(tl.float32)
    c = tl.load(cos_ptr + tok * HALF + offs).to(tl.float32)
    s = tl.load(sin_ptr + tok * HALF + offs).to(tl.float32)
    out = out_ptr + tok * n_heads * HEAD + heads * HEAD
    tl.store(out + offs, (x1 * c - x2 * s).to(tl.float16), mask=mask)
    tl.store(out + HALF + offs, (x2 * c + x1 * s).to(tl.float16), mask=mask)


COMPILE = {
    "kernel": "rope",
    "signature": "q_ptr=*fp16,cos_ptr=*fp16,sin_ptr=*fp16,out_ptr=*fp16,n_heads=i32",
    "constexprs": {"HEAD": 64, "HALF": 32},
}
