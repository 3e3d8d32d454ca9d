"""Real launches on a CUDA GPU (skipped without one): results against torch, Runs recorded."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from upstream_skips import KERNELS, needs_cuda

pytestmark = [pytest.mark.gpu, needs_cuda]


def _kernel(name: str):  # type: ignore[no-untyped-def]
    from ascend_ir_lab.toolchains.common.kernels import load_kernel

    return load_kernel(f"{KERNELS / name}.py::{name}")


def test_softmax_launch_matches_torch(tmp_path: Path) -> None:
    import torch

    from ascend_ir_lab.toolchains.triton.records import capture

    x = torch.randn(256, 1000, device="cuda")
    y = torch.empty_like(x)
    run = capture(
        _kernel("softmax"),
        (x.shape[0],),
        y,
        x,
        x.stride(0),
        y.stride(0),
        x.shape[1],
        BLOCK=1024,
        out=tmp_path / "run",
        llvm_dumps=False,
    )
    torch.testing.assert_close(y, torch.softmax(x, dim=-1))
    launch = run.manifest["extra"]["launch"]
    assert launch["launched"] is True and launch["grid"] == [256]
    assert launch["args"][1]["shape"] == [256, 1000] and launch["args"][1]["dtype"] == "float32"
    assert [s["name"] for s in run.stages] == ["ttir", "ttgir", "llir", "ptx"]


def test_attention_launch_matches_torch(tmp_path: Path) -> None:
    import torch

    from ascend_ir_lab.toolchains.triton.records import capture

    bh, n, d = 8, 1000, 64
    q, k, v = (torch.randn(bh, n, d, device="cuda", dtype=torch.float16) for _ in range(3))
    o = torch.empty_like(q)
    scale = 1 / math.sqrt(d)
    run = capture(
        _kernel("attention"),
        (triton_cdiv(n, 64), bh),
        q,
        k,
        v,
        o,
        scale,
        n,
        BLOCK_M=64,
        BLOCK_N=64,
        HEAD_DIM=d,
        out=tmp_path / "run",
        llvm_dumps=False,
    )
    ref = torch.softmax((q.float() @ k.float().transpose(-1, -2)) * scale, -1) @ v.float()
    torch.testing.assert_close(o.float(), ref, atol=2e-2, rtol=2e-2)
    assert run.manifest["extra"]["launch"]["launched"] is True


def triton_cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b
