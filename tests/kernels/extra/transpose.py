"""A 2-D tile transposed on its way from one tensor to another."""

import triton
import triton.language as tl


@triton.jit
def transpose_2d(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    """y[n, m] = x[m, n] + 1 for one BM x BN tile per program."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)[:, None]
    rn = tl.program_id(1) * BN + tl.arange(0, BN)[None, :]
    x = tl.load(x_ptr + rm * N + rn, mask=(rm < M) & (rn < N), other=0.0)
    yt = tl.trans(x + 1.0)
    tm = tl.program_id(0) * BM + tl.arange(0, BM)[None, :]
    tn = tl.program_id(1) * BN + tl.arange(0, BN)[:, None]
    tl.store(y_ptr + tn * M + tm, yt, mask=(tn < N) & (tm < M))


COMPILE = {
    "kernel": "transpose_2d",
    "signature": "x_ptr=*fp32,y_ptr=*fp32,M=i32,N=i32",
    "constexprs": {"BM": 32, "BN": 32},
}
