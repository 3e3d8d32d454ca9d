"""triton-ascend's own ops (tl.gather, tl.flip, tl.sort, tl.extract_slice, tl.insert_slice,
tl.get_element, tanh, float %, compile hints) run in the CPU interpreter, where plain
`TRITON_INTERPRET=1` lacks them (real triton-ascend, real interpreter)."""

from __future__ import annotations

from pathlib import Path

import pytest
import triton
import triton.language as tl

from ascend_ir_lab.toolchains.ascend.launch import interpret_launch
from tests.toolchains.conftest import needs_ascend

pytestmark = [pytest.mark.ascend, needs_ascend]


@triton.jit
def npu_ops_kernel(x_ptr, idx_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.compile_hint(x, "hint_name")
    idx = tl.load(idx_ptr + offs)
    tl.store(out_ptr + offs, tl.gather(x, idx, 0))
    tl.store(out_ptr + N + offs, tl.flip(x, 0))
    tl.store(out_ptr + 2 * N + offs, tl.sort(x, 0))
    tl.store(out_ptr + 3 * N + offs, tl.math.tanh(x))
    tl.store(out_ptr + 4 * N + offs, x % 0.75)
    at = tl.program_id(0)  # slice offsets are tensors, as kernels compute them
    head = tl.extract_slice(x, [at + 2], [4], [1])
    tl.store(out_ptr + 5 * N + tl.arange(0, 4), head)
    tl.store(out_ptr + 6 * N + offs, tl.insert_slice(x, head * 0.0, [at], [4], [1]))
    tl.store(out_ptr + 7 * N, tl.get_element(x, (at + 3,)))


def test_npu_language_ops_run_interpreted() -> None:
    import torch

    n = 16
    x = torch.randn(n) * 3
    idx = torch.randperm(n).int()
    out = torch.zeros(8 * n)
    interpret_launch(npu_ops_kernel, (1,), (x, idx, out), {"N": n})
    rows = out.view(8, n)
    assert torch.equal(rows[0], x[idx.long()])
    assert torch.equal(rows[1], x.flip(0))
    assert torch.equal(rows[2], x.sort().values)
    assert torch.allclose(rows[3], torch.tanh(x))
    assert torch.allclose(rows[4], torch.fmod(x, 0.75))
    assert torch.equal(rows[5, :4], x[2:6])
    assert torch.equal(rows[6], torch.cat([torch.zeros(4), x[4:]]))
    assert float(rows[7, 0]) == float(x[3])


@triton.jit
def bad_index(x_ptr, N: tl.constexpr):
    a = (1, 2)[N]  # past the tuple's end: Python refuses
    tl.store(x_ptr + tl.arange(0, N), tl.zeros((N,), tl.float32) + a)


def test_an_interpreter_failure_names_the_kernel_line() -> None:
    import torch
    from triton.runtime.errors import InterpreterError

    with pytest.raises(InterpreterError) as caught:
        interpret_launch(bad_index, (1,), (torch.zeros(4),), {"N": 4})
    text = str(caught.value)
    assert "tuple index out of range" in text
    line = bad_index.fn.__code__.co_firstlineno + 2  # @triton.jit, def, the indexing
    assert text.endswith(
        f"at test_interpret_ops.py:{line}: a = (1, 2)[N]  # past the tuple's end: Python refuses"
    )


@triton.jit
def top_values(x_ptr, out_ptr, N: tl.constexpr, K: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * N + tl.arange(0, N))
    tl.store(out_ptr + row * K + tl.arange(0, K), tl.topk(x, K))


def test_topk_runs_interpreted() -> None:
    # plain TRITON_INTERPRET=1 fails here: "'int' object has no attribute 'value'"
    import torch

    x = torch.randn(3, 32)
    out = torch.zeros(3, 8)
    interpret_launch(top_values, (3,), (x, out), {"N": 32, "K": 8})
    assert torch.equal(out, torch.topk(x, 8, dim=1).values)


@triton.jit
def spread_first_column(in_ptr, out_ptr, N: tl.constexpr, M: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    rows = (pid * BLOCK + tl.arange(0, BLOCK)) // N
    data = tl.load(in_ptr + rows * N, mask=rows < M, other=0)
    tl.store(out_ptr + pid * BLOCK + tl.arange(0, BLOCK), data)  # no mask: the grid overshoots


def test_a_store_past_every_tensor_is_dropped_and_named() -> None:
    # plain TRITON_INTERPRET=1 writes the tail over the host's heap (and aborts)
    import torch

    m, n, block = 127, 16, 128
    x = torch.randn(2 * m, n)
    out = torch.zeros_like(x)
    grid = (triton.cdiv(2 * m * n, block),)  # 32 programs: 4096 elements stored, 4064 exist
    with pytest.warns(RuntimeWarning, match="the kernel stored 32 element") as said:
        interpret_launch(spread_first_column, grid, (x, out), {"N": n, "M": m, "BLOCK": block})
    (warning,) = said.list
    lines = Path(__file__).read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "tl.store(out_ptr + pid" in text)
    assert (warning.filename, warning.lineno) == (__file__, line)
    expect = torch.zeros_like(x)
    expect[:m] = x[:m, :1].expand(-1, n)
    assert torch.equal(out, expect)
