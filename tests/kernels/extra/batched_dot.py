"""Batched matmul with a K loop, a scale and a residual add in the epilogue."""

import triton
import triton.language as tl


@triton.jit
def batched_dot(
    a_ptr, b_ptr, r_ptr, c_ptr, M, N, K, scale, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    """c[b] = scale * a[b] @ b[b] + r[b], batch program_id(2)."""
    bid = tl.program_id(2)
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    a_base = a_ptr + bid * M * K
    b_base = b_ptr + bid * K * N
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        a = tl.load(
            a_base + rm[:, None] * K + rk[None, :],
            mask=(rm[:, None] < M) & (rk[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            b_base + rk[:, None] * N + rn[None, :],
            mask=(rk[:, None] < K) & (rn[None, :] < N),
            other=0.0,
        )
        acc = tl.dot(a, b, acc)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    offs = bid * M * N + rm[:, None] * N + rn[None, :]
    r = tl.load(r_ptr + offs, mask=mask, other=0.0)
    tl.store(c_ptr + offs, (acc * scale + r).to(tl.float16), mask=mask)


COMPILE = {
    "kernel": "batched_dot",
    "signature": "a_ptr=*fp16,b_ptr=*fp16,r_ptr=*fp32,c_ptr=*fp16,M=i32,N=i32,K=i32,scale=fp32",
    "constexprs": {"BM": 32, "BN": 32, "BK": 32},
}
