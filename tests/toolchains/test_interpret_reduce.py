"""The CPU interpreter reduces with triton-ascend's `tl.max`/`tl.min`/`tl.argmax`/`tl.argmin`/
`tl.xor_sum` at numpy speed, with the results of the element-by-element walk plain
`TRITON_INTERPRET=1` takes (real triton-ascend, real interpreter)."""

from __future__ import annotations

from typing import Any

import pytest
import triton
import triton.language as tl

from ascend_ir_lab.toolchains.ascend.launch import interpret_launch
from tests.toolchains.conftest import needs_ascend

pytestmark = [pytest.mark.ascend, needs_ascend]


@triton.jit
def row_stats(x_ptr, i_ptr, f_ptr, i_out, N: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + row * N + offs)
    bits = tl.load(i_ptr + row * N + offs)
    tl.store(f_ptr + row * 2, tl.max(x, axis=0))
    tl.store(f_ptr + row * 2 + 1, tl.min(x, axis=0))
    tl.store(i_out + row * 3, tl.argmax(x, axis=0))
    tl.store(i_out + row * 3 + 1, tl.argmin(x, axis=0))
    tl.store(i_out + row * 3 + 2, tl.xor_sum(bits, axis=0))


@triton.jit
def whole_max(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr, tl.max(tl.max(x, axis=1), axis=0))
    tl.store(out_ptr + 1 + tl.arange(0, M), tl.max(x, axis=1))


def _inputs() -> tuple[Any, Any]:
    import torch

    gen = torch.Generator().manual_seed(7)
    x = torch.randn(4, 32, generator=gen)
    x[2, 5] = x[2, 9] = x[2].max() + 1  # a tie: the first index wins, as tie_break_left says
    return x, torch.randint(0, 1 << 20, (4, 32), generator=gen, dtype=torch.int32)


def _launch_row_stats() -> tuple[Any, Any]:
    import torch

    x, bits = _inputs()
    floats, ints = torch.empty(4, 2), torch.empty(4, 3, dtype=torch.int32)
    interpret_launch(row_stats, (4,), (x, bits, floats, ints), {"N": 32})
    return floats, ints


def test_patched_reductions_match_torch() -> None:
    import functools

    import torch

    x, bits = _inputs()
    floats, ints = _launch_row_stats()
    assert torch.equal(floats[:, 0], x.max(1).values)
    assert torch.equal(floats[:, 1], x.min(1).values)
    assert torch.equal(ints[:, 0], x.argmax(1).int())
    assert int(ints[2, 0]) == 5
    assert torch.equal(ints[:, 1], x.argmin(1).int())
    xor = [functools.reduce(lambda a, b: a ^ b, row.tolist()) for row in bits]
    assert ints[:, 2].tolist() == xor
    m = torch.randn(8, 16)
    out = torch.empty(9)
    interpret_launch(whole_max, (1,), (m, out), {"M": 8, "N": 16})
    assert float(out[0]) == float(m.max()) and torch.equal(out[1:], m.max(1).values)


def test_patched_reductions_skip_the_element_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    from triton.runtime import interpreter

    walked: list[Any] = []
    original = interpreter.ReduceOps.generic_reduce

    def counting(self: Any, data: Any) -> Any:
        walked.append(self.combine_fn)
        return original(self, data)

    monkeypatch.setattr(interpreter.ReduceOps, "generic_reduce", counting)
    from ascend_ir_lab.toolchains.ascend import interpret_parallel

    monkeypatch.setattr(interpret_parallel, "_cores", lambda: 1)  # counted in this process
    fast = _launch_row_stats()
    assert walked == []
    # and the walk, where the numpy reduction is not given, computes the same values
    from ascend_ir_lab.toolchains.ascend import interpret_reduce

    monkeypatch.setattr(interpret_reduce, "_numpy_reductions", dict)
    slow = _launch_row_stats()
    assert len(walked) == 4 * 5  # max, min, argmax, argmin, xor_sum on each of 4 rows
    assert all(a.equal(b) for a, b in zip(fast, slow, strict=True))


@triton.jit
def small_int_sums(x_ptr, sum_ptr, scan_ptr, M: tl.constexpr, N: tl.constexpr,
                   BM: tl.constexpr, BN: tl.constexpr):  # fmt: skip
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=0)
    tl.store(sum_ptr + rows, tl.sum(x, 1), mask=rows < M)
    tl.store(scan_ptr + rows[:, None] * N + cols[None, :], tl.cumsum(x, 1), mask=mask)


@pytest.mark.parametrize("dtype", ["int8", "int16"])
def test_small_integer_sums_store_their_own_width(dtype: str) -> None:
    # plain TRITON_INTERPRET=1 stores each int8 sum as 8 bytes: 7 past the end of the last
    import torch

    kind = getattr(torch, dtype)
    m, n = 37, 3
    x = torch.randint(-50, 50, (m, n), dtype=kind)
    sums = torch.full((m + 16,), 77, dtype=kind)  # what follows the m sums must stay 77
    scans = torch.full((m * n + 16,), 77, dtype=kind)
    interpret_launch(small_int_sums, (1,), (x, sums[:m], scans[: m * n]),
                     {"M": m, "N": n, "BM": 64, "BN": 8})  # fmt: skip
    assert torch.equal(sums[:m], x.sum(1, dtype=kind))
    assert torch.equal(scans[: m * n].view(m, n), x.cumsum(1, dtype=kind))
    assert (sums[m:] == 77).all() and (scans[m * n :] == 77).all()
