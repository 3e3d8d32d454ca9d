"""Upstream Triton launches taken over (no GPU here: cross-compiled for cuda:90): the Run
holds what triton itself compiles for the call, and the launch returns what triton returns.

The reference is triton's own launch path, `kernel.warmup(...)`, run in the test with a
driver that answers for cuda:90 instead of a GPU: upstream triton compiles every stage on
the CPU (ptxas included), so its compiled kernel's `asm["ttir"]` is there to compare.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from upstream_skips import needs_upstream

pytestmark = [pytest.mark.gpu, needs_upstream]

triton = pytest.importorskip("triton")
tl = pytest.importorskip("triton.language")
np = pytest.importorskip("numpy")


@triton.jit(do_not_specialize=["seed"])
def scaled_copy(x_ptr, y_ptr, n, stride, seed, scale, big, flag, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * stride, mask=mask)
    if flag:
        x = x * scale + seed + big
    tl.store(y_ptr + offs, x, mask=mask)


@triton.jit
def softmax_rows(out_ptr, in_ptr, n_rows, n_cols, BLOCK: tl.constexpr, num_stages: tl.constexpr):
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=num_stages):
        cols = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        num = tl.exp(x - tl.max(x, axis=0))
        tl.store(out_ptr + row * n_cols + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


@triton.jit
def tile_copy(src_ptr, dst_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(src_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(dst_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    tile = src.load([tl.program_id(0) * BM, 0])
    dst.store([tl.program_id(0) * BM, 0], tile)


@triton.jit
def add_maybe(x_ptr, bias_ptr, out_ptr, n, HAS_BIAS: tl.constexpr, BLOCK: tl.constexpr = 128):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if HAS_BIAS:
        x += tl.load(bias_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, x, mask=offs < n)


class _Cuda90:
    """The three answers triton's launch path asks of a driver, for cuda:90."""

    def get_current_device(self) -> int:
        return 0

    def get_current_stream(self, device: Any = None) -> int:
        return 0

    def get_current_target(self) -> Any:
        from triton.backends.compiler import GPUTarget

        return GPUTarget("cuda", 90, 32)


def triton_own_kernel(kernel: Any, *args: Any, **kwargs: Any) -> Any:
    """What triton's own `kernel.warmup(...)` compiles for the call, for cuda:90."""
    from triton.runtime import driver

    saved = dict(vars(driver))
    driver.set_active(_Cuda90())
    try:
        return kernel.warmup(*args, grid=(1,), **kwargs)
    finally:
        vars(driver).clear()
        vars(driver).update(saved)


def _ttir(run: Any) -> str:
    stage = next(s for s in run.stages if s["name"] == "ttir")
    return (run.path / stage["artifact"]).read_text()


@pytest.mark.parametrize(
    "call",
    [
        pytest.param((4096, 1, 16, 0.5, 2**40, True), id="one-and-divisible"),
        pytest.param((4000, 3, 7, 2.0, 5, False), id="neither"),
    ],
)
def test_the_run_compiles_what_triton_would(
    tmp_path: Path, call: tuple[Any, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    from triton.runtime.jit import MockTensor

    # triton's own compile must not come from a cache filled by an older checkout: its
    # locations would name that checkout's files
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton-cache"))

    from ascend_ir_lab.toolchains.triton.launch import intercept_upstream

    x, y = MockTensor(tl.float32), MockTensor(tl.float32)
    with intercept_upstream(runs_dir=tmp_path, llvm_dumps=False, timings=False) as capture:
        scaled_copy[(4,)](x, y, *call, BLOCK=1024)
    (run,) = capture.runs
    own = triton_own_kernel(scaled_copy, x, y, *call, BLOCK=1024)
    assert _ttir(run) == own.asm["ttir"]
    kernel = run.manifest["kernel"]
    assert ("stride" in kernel["constexprs"]) == (call[1] == 1)  # an int equal to 1
    assert ("n" in kernel["attrs"]) == (call[0] % 16 == 0)  # divisible by 16
    assert "seed" not in kernel["attrs"] and "seed" in kernel["signature"]  # do_not_specialize
    assert kernel["signature"]["big"] == ("i64" if call[4] >= 2**31 else "i32")


def test_warmup_with_an_option_named_parameter_returns_the_compiled_kernel(tmp_path: Path) -> None:
    from ascend_ir_lab.toolchains.triton.launch import intercept_upstream

    x = np.random.rand(64, 100).astype(np.float32)
    y = np.empty_like(x)
    with intercept_upstream(runs_dir=tmp_path, llvm_dumps=False, timings=False) as capture:
        kernel = softmax_rows.warmup(y, x, 64, 100, BLOCK=128, num_stages=2, num_warps=8,
                                     grid=(1,))  # fmt: skip
    (run,) = capture.runs
    assert run.manifest["kernel"]["constexprs"] == {"BLOCK": 128, "num_stages": 2}
    assert kernel.metadata.num_stages == 2 and kernel.metadata.num_warps == 8
    assert "ptx" in kernel.asm and kernel.asm["ttir"] == _ttir(run)
    assert capture.launches[0].note == "warmup: cross-compiled for cuda:90, nothing launched"


def test_device_side_descriptors_and_optional_arguments(tmp_path: Path) -> None:
    from ascend_ir_lab.toolchains.triton.launch import intercept_upstream

    a, b = np.ones((128, 64), np.float16), np.zeros((128, 64), np.float16)
    x, out = np.ones(1000, np.float32), np.zeros(1000, np.float32)
    with intercept_upstream(runs_dir=tmp_path, llvm_dumps=False, timings=False) as capture:
        tile_copy[(2,)](a, b, 128, 64, BM=64, BN=64)
        add_maybe[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)](x, None, out, 1000,
                                                                          HAS_BIAS=False)  # fmt: skip
    assert not capture.errors, capture.errors
    names = [r.manifest["kernel"]["name"] for r in capture.runs]
    assert names == ["tile_copy", "add_maybe"]
    assert all(r.status == "ok" for r in capture.runs)
    maybe = capture.runs[1].manifest["kernel"]
    assert maybe["constexprs"]["bias_ptr"] is None and maybe["constexprs"]["BLOCK"] == 128
    assert capture.launches[1].grid == (8,)  # the grid read the defaulted BLOCK


def test_an_unknown_keyword_is_reported_and_leaves_no_run_folder(tmp_path: Path) -> None:
    from ascend_ir_lab.toolchains.triton.launch import intercept_upstream

    x, out = np.ones(1000, np.float32), np.zeros(1000, np.float32)
    with intercept_upstream(runs_dir=tmp_path, llvm_dumps=False, timings=False) as capture:
        result = add_maybe[(8,)](x, x, out, 1000, HAS_BIAS=True, bogus=1)
    assert result is None and not capture.runs
    assert "bogus" in str(capture.errors[0]) and "unrecognised" in str(capture.errors[0])
    assert not list(tmp_path.iterdir())
