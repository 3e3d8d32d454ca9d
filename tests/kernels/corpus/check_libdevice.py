"""Kernels calling triton-ascend's libdevice, imported as a module and by name.

`nextafter` builds its bit masks as integer constants past the signed range
(0x80000001 as an int32, 0x8001 as an int16), which the compiled IR wraps."""

import pytest
import torch
import triton
import triton.language as tl
import triton.language.extra.ascend.libdevice as libdevice
from npu_common import check, make
from triton.language.extra.ascend.libdevice import reciprocal


@triton.jit
def relu_residual(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + libdevice.relu(y), mask=mask)


@triton.jit
def inverse(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, reciprocal(tl.load(x_ptr + offs)))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_relu_residual(dtype):
    n = 1000
    x, y = make((n,), dtype), make((n,), dtype)
    out = torch.empty_like(x)
    relu_residual[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
    check(dtype, out, x + torch.relu(y))


def test_inverse():
    x = make((64,), "float32").abs() + 0.5
    out = torch.empty_like(x)
    inverse[(1,)](x, out, BLOCK=64)
    check("float32", out, 1.0 / x)


@triton.jit
def step_toward(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, libdevice.nextafter(x, y), mask=mask)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_step_toward(dtype):
    n = 300
    x, y = make((n,), dtype), make((n,), dtype)
    # toward an equal value, away from zero below it; not from zero itself, where
    # triton-ascend 3.2's nextafter steps the other way than torch's (its own semantics)
    x[:2] = torch.tensor([1.0, -2.0])
    y[:2] = torch.tensor([1.0, -3.0])
    x[x == 0] = 0.5
    out = torch.empty_like(x)
    step_toward[(triton.cdiv(n, 128),)](x, y, out, n, BLOCK=128)
    assert torch.equal(out.cpu(), torch.nextafter(x.cpu(), y.cpu()))


@triton.jit
def nan_flags(x_ptr, out_ptr, N: tl.constexpr):
    idx = tl.arange(0, N)
    # reached through `tl`, not imported: plain TRITON_INTERPRET=1 has no builder there
    tl.store(out_ptr + idx, tl.extra.ascend.libdevice.isnan(tl.load(x_ptr + idx)))


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_nan_flags(dtype):
    x = make((37,), dtype)
    x[1] = float("nan")
    x[5] = float("nan")
    out = torch.zeros(37, dtype=torch.bool).npu()
    nan_flags[(1,)](x, out, 37)
    assert torch.equal(out.cpu(), torch.isnan(x.cpu()))  # bf16: its values, not its bits


@triton.jit
def put_one(x_ptr, where_ptr, value_ptr, out_ptr, ROWS: tl.constexpr, COLS: tl.constexpr):
    offs = tl.arange(0, ROWS)[:, None] * COLS + tl.arange(0, COLS)[None, :]
    x = tl.load(x_ptr + offs)
    where = tl.load(where_ptr + tl.arange(0, 2))  # (row, column)
    tl.store(out_ptr + offs, libdevice.set_element(x, where, tl.load(value_ptr)))


def test_put_one():
    x = torch.arange(12, dtype=torch.float32, device="npu").reshape(3, 4)
    where = torch.tensor([1, 2], dtype=torch.int32, device="npu")
    out = torch.empty_like(x)
    put_one[(1,)](x, where, torch.tensor(99.0, device="npu"), out, 3, 4)
    expected = x.clone()
    expected[1, 2] = 99.0
    assert torch.equal(out.cpu(), expected.cpu())
