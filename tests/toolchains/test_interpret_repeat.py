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


def test_a_fixed_point_is_forgotten_when_one_byte_changes_behind_torch() -> None:
    import torch

    from ascend_ir_lab.toolchains.common.interpret_repeat import Repeats

    repeats = Repeats()
    y, x = torch.zeros(1000), torch.randn(1000)
    args = (y, x, 1000)
    key = repeats.key(scale_rows, (4,), args, {"BLOCK": 256})
    assert repeats.before(key, args, {}) is None  # seen once: nothing copied yet
    y.copy_(x * 2)  # what the first launch wrote
    again = repeats.before(key, args, {})
    assert again is not None
    repeats.note(key, again, args, {})  # the second left the bytes as they were
    assert repeats.seen(key, args, {})
    kept = float(x[999])
    x.numpy()[999] = kept + 1.0  # through numpy: torch's version counter does not move
    assert not repeats.seen(key, args, {})
    x.numpy()[999] = kept
    assert repeats.seen(key, args, {})
    assert not repeats.seen(key, (y, x.clone(), 1000), {})  # other memory: another launch


def test_a_launch_larger_than_the_copies_may_be_is_never_copied(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import torch

    from ascend_ir_lab.toolchains.common import interpret_repeat
    from ascend_ir_lab.toolchains.common.interpret_repeat import Repeats

    monkeypatch.setattr(interpret_repeat, "_KEEP_BYTES", 6000)  # room for 1500 floats
    repeats = Repeats()
    small = (torch.zeros(500), torch.randn(500), 500)  # 4000 bytes
    large = (torch.zeros(1000), torch.randn(1000), 1000)  # 8000 bytes
    for args in (small, large):
        key = repeats.key(scale_rows, (4,), args, {"BLOCK": 256})
        assert repeats.before(key, args, {}) is None  # seen once
        again = repeats.before(key, args, {})
        if args is large:
            assert again is None  # a copy would hold more than the copies may in all
            continue
        assert again is not None and again.nbytes == 4000
        repeats.note(key, again, args, {})
        assert repeats.seen(key, args, {})
