"""An autotuned element-wise kernel, launched the way a user's script launches it."""

import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 256}),
        triton.Config({"BLOCK": 512}),
        triton.Config({"BLOCK": 1024}),
    ],
    key=["n"],
)
@triton.jit
def scale_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """out = 2 * x + y, BLOCK elements per program."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, 2.0 * x + y, mask=mask)


if __name__ == "__main__":
    n = 4096
    x, y = torch.rand(n), torch.rand(n)
    out = torch.empty(n)
    scale_add[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, out, n)
    print("script done")
