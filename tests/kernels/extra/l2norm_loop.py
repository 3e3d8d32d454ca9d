"""Row-wise L2 normalisation, several chunks of rows per program."""

import triton
import triton.language as tl


@triton.jit
def l2norm_loop(x_ptr, y_ptr, eps, M, N: tl.constexpr, MBLOCK: tl.constexpr, CHUNKS: tl.constexpr):
    """y = x / sqrt(sum(x*x) + eps) along each row, CHUNKS x MBLOCK rows per program."""
    first = tl.program_id(0) * (CHUNKS * MBLOCK)
    cols = tl.arange(0, N)[None, :]
    for chunk in range(CHUNKS):
        rows = first + chunk * MBLOCK + tl.arange(0, MBLOCK)[:, None]
        mask = rows < M
        x = tl.load(x_ptr + rows * N + cols, mask=mask, other=0.0)
        inv = tl.rsqrt(tl.sum(x * x, 1)[:, None] + eps)
        tl.store(y_ptr + rows * N + cols, x * inv, mask)


COMPILE = {
    "kernel": "l2norm_loop",
    "signature": "x_ptr=*fp32,y_ptr=*fp32,eps=fp32,M=i32",
    "constexprs": {"N": 64, "MBLOCK": 8, "CHUNKS": 4},
}
