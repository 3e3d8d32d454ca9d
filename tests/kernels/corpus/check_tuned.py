"""Autotuned and heuristics-driven launches; the grid comes from the driver's core count."""

import torch
import triton
import triton.language as tl
from npu_common import check, make
from triton.runtime import driver


def vector_cores():
    props = driver.active.utils.get_device_properties(torch.npu.current_device())
    return props["num_vectorcore"]


@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})], key=["n"])
@triton.jit
def tuned_relu(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    for start in range(pid * BLOCK, n, tl.num_programs(0) * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def copy_even(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out_ptr + offs, tl.load(x_ptr + offs))
    else:
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_autotuned_relu_on_every_core():
    x = make((1000,), "float32")
    out = torch.empty_like(x)
    tuned_relu[(vector_cores(),)](x, out, 1000)
    check("float32", out, torch.relu(x))


def test_heuristics_pick_the_even_path():
    for n in (512, 500):
        x = make((n,), "float16")
        out = torch.empty_like(x)
        copy_even[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128)
        check("float16", out, x)
