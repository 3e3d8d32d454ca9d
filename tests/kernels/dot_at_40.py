"""A tile matmul whose kernel sits at line 40 of its file, below helpers and blank lines.

Views number this file from its line 1: the ops of the `tl.dot` line map to that line and to
no other, and blank lines map to nothing.
"""

import triton
import triton.language as tl

TILE = 16


def tile_count(n: int) -> int:
    """Programs needed for n rows (host side, never compiled)."""
    return (n + TILE - 1) // TILE


def describe(n: int) -> str:
    """A line for the log (host side)."""
    return f"{tile_count(n)} tiles of {TILE}"


# Host code above, kernel below. The lines in between keep the kernel's
# `def` at line 40 of this file, which the line-mapping tests rely on:
# a view that numbers from the `def` instead of from line 1 is off by 39.
#
#
#
#
#
#
#
#
#
#
#


@triton.jit
def dot_tile(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    """C = A @ B for one N x N tile."""
    rows = tl.arange(0, N)
    cols = tl.arange(0, N)
    a = tl.load(a_ptr + rows[:, None] * N + cols[None, :])

    b = tl.load(b_ptr + rows[:, None] * N + cols[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], c)


COMPILE = {
    "kernel": "dot_tile",
    "signature": "a_ptr=*fp16,b_ptr=*fp16,c_ptr=*fp32",
    "constexprs": {"N": 16},
}
DEF_LINE = 40
BLANK_LINE = 45
DOT_LINE = 47
