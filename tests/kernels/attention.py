"""Flash-attention style forward pass: online softmax over key/value blocks."""

import triton
import triton.language as tl


@triton.jit
def attention(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    seq_len,
    sm_scale,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    HEAD_DIM: tl.constexpr,
):
    """One head, one BLOCK_M block of queries per program; q/k/v/o are [seq_len, HEAD_DIM]."""
    start_m = tl.program_id(0)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(
        q_ptr + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
        mask=offs_m[:, None] < seq_len,
        other=0.0,
    )
    m_i = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    for start_n in range(0, seq_len, BLOCK_N):
        kv_rows = start_n + offs_n
        kv_mask = kv_rows[:, None] < seq_len
        k = tl.load(k_ptr + kv_rows[:, None] * HEAD_DIM + offs_d[None, :], mask=kv_mask, other=0.0)
        v = tl.load(v_ptr + kv_rows[:, None] * HEAD_DIM + offs_d[None, :], mask=kv_mask, other=0.0)
        qk = tl.dot(q, tl.trans(k)) * sm_scale
        qk = tl.where(kv_rows[None, :] < seq_len, qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, axis=1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(
        o_ptr + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
        acc.to(tl.float16),
        mask=offs_m[:, None] < seq_len,
    )


COMPILE = {
    "kernel": "attention",
    "signature": "q_ptr=*fp16,k_ptr=*fp16,v_ptr=*fp16,o_ptr=*fp16,seq_len=i32,sm_scale=fp32",
    "constexprs": {"BLOCK_M": 64, "BLOCK_N": 64, "HEAD_DIM": 64},
}
