"""A loop with a branch on the program id: every program but the first shifts its values.

(With the branch moving the *pointer* offset instead, as `base = base + 1`, triton-adapter-opt
of triton-ascend 3.2 aborts: "encountered AddPtrOp produced by unsupported operation".)
"""

import triton
import triton.language as tl


@triton.jit
def for_if_load(in_ptr, out_ptr, XBLOCK: tl.constexpr, XBLOCK_SUB: tl.constexpr):
    """XBLOCK elements in chunks of XBLOCK_SUB; a branch on the program id in the loop."""
    for i in range((XBLOCK + XBLOCK_SUB - 1) // XBLOCK_SUB):
        index = i * XBLOCK_SUB + tl.arange(0, XBLOCK_SUB)
        x = tl.load(in_ptr + index, index < XBLOCK, other=0.0)
        if tl.program_id(0) != 0:
            x = x + 1.0
        tl.store(out_ptr + index, x * x, index < XBLOCK)


COMPILE = {
    "kernel": "for_if_load",
    "signature": "in_ptr=*fp32,out_ptr=*fp32",
    "constexprs": {"XBLOCK": 64, "XBLOCK_SUB": 16},
}
