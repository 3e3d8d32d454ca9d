"""Tiled fp16 matmul with an fp32 accumulator and a bias + ReLU epilogue."""

import triton
import triton.language as tl


@triton.jit
def matmul(
    a_ptr,
    b_ptr,
    bias_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    """C = relu(A @ B + bias), one BLOCK_M x BLOCK_N tile of C per program."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    bias = tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0)
    acc = tl.maximum(acc + bias[None, :], 0.0)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptrs, acc.to(tl.float16), mask=c_mask)


COMPILE = {
    "kernel": "matmul",
    "signature": "a_ptr=*fp16,b_ptr=*fp16,bias_ptr=*fp32,c_ptr=*fp16,M=i32,N=i32,K=i32,"
    "stride_am=i32,stride_ak=i32,stride_bk=i32,stride_bn=i32,"
    "stride_cm=i32,stride_cn=i32",
    "constexprs": {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32},
}

# Same kernel with 64x64 output tiles: triton-ascend lowers it, but
# bishengir-compile's hivm-plan-memory pass then fails with "ub overflow"
# (the tiles do not fit the 192 KB unified buffer of Ascend910B3).
COMPILE_UB_OVERFLOW = dict(COMPILE, constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32})
