"""Attention forward, flash style: two tl.dot per K/V block and an online softmax.

Q, K, V and Out are contiguous [BH, N_CTX, HEAD_DIM] fp16 tensors; one program computes
BLOCK_M rows of one (batch * head) slice.
"""

import triton
import triton.language as tl


@triton.jit
def attention(
    Q,
    K,
    V,
    Out,
    sm_scale,
    N_CTX,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    HEAD_DIM: tl.constexpr,
):
    """Out = softmax(Q @ K^T * sm_scale) @ V for one BLOCK_M x HEAD_DIM tile."""
    start_m = tl.program_id(0)
    bh = tl.program_id(1)
    base = bh.to(tl.int64) * N_CTX * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(
        Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
        mask=offs_m[:, None] < N_CTX,
        other=0.0,
    )
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # exp2 instead of exp: fold in 1/ln(2)
    for start_n in range(0, N_CTX, BLOCK_N):
        cols = start_n + offs_n
        kv_mask = cols[:, None] < N_CTX
        k = tl.load(K + base + cols[:, None] * HEAD_DIM + offs_d[None, :], mask=kv_mask, other=0.0)
        v = tl.load(V + base + cols[:, None] * HEAD_DIM + offs_d[None, :], mask=kv_mask, other=0.0)
        qk = tl.dot(q, tl.trans(k)) * qk_scale
        qk = tl.where(cols[None, :] < N_CTX, qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(
        Out + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
        acc.to(tl.float16),
        mask=offs_m[:, None] < N_CTX,
    )


COMPILE = {
    "kernel": "attention",
    "signature": "Q=*fp16,K=*fp16,V=*fp16,Out=*fp16,sm_scale=fp32,N_CTX=i32",
    "constexprs": {"BLOCK_M": 64, "BLOCK_N": 64, "HEAD_DIM": 64},
}


def reference(q, k, v, sm_scale):
    """The same attention in torch, computed in fp32."""
    import torch

    s = (q.float() @ k.float().transpose(-1, -2)) * sm_scale
    return (torch.softmax(s, dim=-1) @ v.float()).to(q.dtype)
