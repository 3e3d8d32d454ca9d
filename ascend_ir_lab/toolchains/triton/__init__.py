"""Upstream Triton (NVIDIA cuda, AMD hip) into Runs: stages ttir, ttgir, llir, ptx or amdgcn.

`compile` compiles a kernel for a target, `capture` records each stage through triton's own
stage hook, `launch` takes `kernel[grid](...)` launches over in a cell.
"""
