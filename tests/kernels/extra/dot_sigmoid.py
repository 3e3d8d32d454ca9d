"""One matmul tile (no K loop) with a sigmoid epilogue and a transposed B."""

import triton
import triton.language as tl


@triton.jit
def dot_sigmoid(a_ptr, b_ptr, c_ptr, M, N, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    """c = sigmoid(a @ b.T) for one BM x BN tile; b is stored N x K."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=rm[:, None] < M, other=0.0)
    b = tl.load(b_ptr + rn[:, None] * K + rk[None, :], mask=rn[:, None] < N, other=0.0)
    acc = tl.dot(a, tl.trans(b))
    out = 1.0 / (1.0 + tl.exp(-acc))
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], out.to(tl.float16), mask=mask)


COMPILE = {
    "kernel": "dot_sigmoid",
    "signature": "a_ptr=*fp16,b_ptr=*fp16,c_ptr=*fp16,M=i32,N=i32",
    "constexprs": {"K": 64, "BM": 32, "BN": 32},
}
