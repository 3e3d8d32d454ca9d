"""Every program adds its block into one shared accumulator row."""

import triton
import triton.language as tl


@triton.jit
def atomic_accumulate(x_ptr, acc_ptr, n, BLOCK: tl.constexpr):
    """acc[i] += x[pid * BLOCK + i] for every program, with atomics."""
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + tl.program_id(0) * BLOCK + offs, mask=offs < n, other=0.0)
    tl.atomic_add(acc_ptr + offs, x * 2.0, mask=offs < n)


COMPILE = {
    "kernel": "atomic_accumulate",
    "signature": "x_ptr=*fp32,acc_ptr=*fp32,n=i32",
    "constexprs": {"BLOCK": 128},
}
