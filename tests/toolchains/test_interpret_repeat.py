"""Benchmark loops under the virtual NPU: a launch that left its memory unchanged is not
interpreted again, and a launch that changes memory (an accumulation) always is (real
triton-ascend, real CPU interpreter, a script in the NPU-host style)."""

from __future__ import annotations

import pytest
import triton
import triton.language as tl

from ascend_ir_lab.toolchains.ascend.launch import intercept_launches
from ascend_ir_lab.toolchains.ascend.virtual_npu import virtual_npu
from tests.toolchains.conftest import needs_ascend

pytestmark = [
    pytest.mark.ascend,
    needs_ascend,
    pytest.mark.filterwarnings("ignore:.*ccec:UserWarning"),
]

AGAIN = "left this memory unchanged before: not interpreted again"


@triton.jit
def scale_rows(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)


@triton.jit
def accumulate(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    y = tl.load(y_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, y + tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def _bench(kernel, y, x, repeat):  # as NPU benchmark scripts time a kernel
    import torch

    stream = torch.npu.current_stream()
    for _ in range(repeat):
        kernel[(4,)](y, x, 256, BLOCK=64)
    stream.synchronize()


def test_a_benchmark_loop_is_interpreted_until_it_changes_nothing() -> None:
    import torch

    with (
        virtual_npu(),
        intercept_launches(interpret=True, kernels=("compile none",)) as cap,
    ):
        x = torch.randn(256, device="npu")
        y = torch.empty_like(x)
        _bench(scale_rows, y, x, 10)
        assert torch.equal(y, x * 2)
        x.add_(1.0)  # new input bytes: interpreted again, then repeated
        _bench(scale_rows, y, x, 3)
        assert torch.equal(y, x * 2)
    notes = [ln.note for ln in cap.launches]
    assert all(ln.interpreted for ln in cap.launches)
    # run 1 writes y, run 2 finds y unchanged; runs 3..10 are not interpreted
    assert [AGAIN in n for n in notes] == [False, False] + [True] * 8 + [False, False, True]


def test_launches_that_change_memory_are_always_interpreted() -> None:
    import torch

    with virtual_npu(), intercept_launches(interpret=True, kernels=("compile none",)) as cap:
        x = torch.randn(256, device="npu")
        y = torch.zeros_like(x)
        _bench(accumulate, y, x, 5)
        assert torch.allclose(y, x * 5)
    assert not any(AGAIN in ln.note for ln in cap.launches)
    assert len(cap.launches) == 5
