"""Launches taken over the way real scripts launch: the Run holds what triton itself would
compile for the call, and every launch style a user writes becomes a Run.

The reference for "what triton would compile" is triton-ascend's own launch path
(`kernel.warmup(...)`), run in the test with a driver that answers for the target instead of
an NPU (there is none here): triton specialises, writes its `.ttir` into its cache and then
stops at the binary step (no CANN).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.toolchains.common.tools import triton_ascend_available

pytestmark = [
    pytest.mark.ascend,
    pytest.mark.skipif(not triton_ascend_available(), reason="triton-ascend is not importable"),
]

torch = pytest.importorskip("torch")
triton = pytest.importorskip("triton")
tl = pytest.importorskip("triton.language")


@triton.jit(do_not_specialize=["seed"])
def scaled_copy(x_ptr, y_ptr, n, stride, seed, scale, big, flag, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * stride, mask=mask)
    if flag:
        x = x * scale + seed + big
    tl.store(y_ptr + offs, x, mask=mask)


class _DriverFor:
    """The three answers triton's launch path asks of a driver, for an Ascend target."""

    def __init__(self, arch: str) -> None:
        from triton.backends.compiler import GPUTarget

        self.target = GPUTarget("npu", arch, 0)

    def get_current_device(self) -> int:
        return 0

    def get_current_stream(self, device: Any = None) -> int:
        return 0

    def get_current_target(self) -> Any:
        return self.target


def triton_own_ttir(kernel: Any, cache: Path, *args: Any, **kwargs: Any) -> str:
    """The .ttir triton-ascend's own `kernel.warmup(...)` writes for the call."""
    from triton.runtime import driver

    saved = os.environ.get("TRITON_CACHE_DIR")
    os.environ["TRITON_CACHE_DIR"] = str(cache)
    driver.set_active(_DriverFor("Ascend910B3"))
    try:
        kernel.warmup(*args, grid=(1,), **kwargs)
    except Exception:  # noqa: BLE001 - the binary step needs CANN; the .ttir is written before
        pass
    finally:
        driver.reset_active()
        if saved is None:
            os.environ.pop("TRITON_CACHE_DIR")
        else:
            os.environ["TRITON_CACHE_DIR"] = saved
    kernel.cache.clear()
    (found,) = cache.rglob("*.ttir")
    return found.read_text()


def run_ttir(run: Any) -> str:
    stage = next(s for s in run.stages if s["name"] == "ttir")
    return (run.path / stage["artifact"]).read_text()


@pytest.mark.parametrize(
    "call",
    [
        pytest.param((4096, 1, 16, 0.5, 2**40, True), id="one-and-divisible"),
        pytest.param((4000, 3, 7, 2.0, 5, False), id="neither"),
    ],
)
def test_the_run_compiles_what_triton_would(tmp_path: Path, call: tuple[Any, ...]) -> None:
    from ascend_ir_lab.toolchains.ascend.launch import intercept_launches

    x, y = torch.randn(4096 * 3), torch.zeros(4096)
    with intercept_launches(runs_dir=tmp_path / "runs") as capture:
        scaled_copy[(4,)](x, y, *call, BLOCK=1024)
    (run,) = capture.runs
    own = triton_own_ttir(scaled_copy, tmp_path / "cache", x, y, *call, BLOCK=1024)
    assert run_ttir(run) == own
    assert ("tt.divisibility" in own) == (call[0] % 16 == 0)
    kernel = run.manifest["kernel"]
    n, stride = call[0], call[1]
    assert ("stride" in kernel["constexprs"]) == (stride == 1)  # an int equal to 1 is compiled in
    assert ("n" in kernel["attrs"]) == (n % 16 == 0)  # divisible by 16: tt.divisibility
    assert "seed" not in kernel["attrs"]  # do_not_specialize
    assert kernel["signature"]["big"] == ("i64" if call[4] >= 2**31 else "i32")
    assert kernel["signature"]["flag"] == "i1" and kernel["signature"]["scale"] == "fp32"
    # the recorded command redoes the stage with the same attributes
    command = kernel_command(run)
    assert "--attrs" in command and json.loads(command[command.index("--attrs") + 1])


def kernel_command(run: Any) -> list[str]:
    return next(s for s in run.stages if s["name"] == "ttir")["command"]


# -- every launch style, as scripts write them -------------------------------------------


@triton.jit
def bias_act(x_ptr, bias_ptr, out_ptr, n, alpha, HAS_BIAS: tl.constexpr, BLOCK: tl.constexpr = 256):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if HAS_BIAS:
        x += tl.load(bias_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * alpha, mask=mask)


@triton.jit
def fold_rows(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr, num_stages: tl.constexpr):
    """out[row, :BLOCK] = the row's two BLOCK-wide halves added."""
    row = tl.program_id(0)
    acc = tl.load(x_ptr + row * n_cols + tl.arange(0, BLOCK))
    for start in tl.range(BLOCK, 2 * BLOCK, BLOCK, num_stages=num_stages):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
    tl.store(out_ptr + row * BLOCK + tl.arange(0, BLOCK), acc)


@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def copy_words(src_ptr, dst_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(dst_ptr + offs, tl.load(src_ptr + offs))
    else:
        tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=offs < n), mask=offs < n)


def _keep_small(configs: list[Any], named_args: dict[str, Any], **kwargs: Any) -> list[Any]:
    return [c for c in configs if c.kwargs["BLOCK"] <= named_args["n"] // 4]


def define_tuned_scale() -> Any:
    """An autotuned kernel; defined inside the capture, as a notebook cell defines it (with
    no NPU, triton asks its driver for a benchmarker when an autotuned kernel is defined)."""

    @triton.autotune(
        configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 8192})],
        key=["n"],
        prune_configs_by={"early_config_prune": _keep_small},
    )
    @triton.jit
    def tuned_scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)

    return tuned_scale


def define_auto_tiled() -> Any:
    """triton-ascend's own tiling autotuner (`hints={"enable_ascend_autotune": True}`, no
    configs of one's own): it makes the configs, and passes every argument to the base
    Autotuner by position."""

    @triton.autotune(configs=[], hints={"enable_ascend_autotune": True}, key=["n_elements"])
    @triton.jit
    def tiled_add(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
        offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < n_elements
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, x + tl.load(y_ptr + offs, mask=mask), mask=mask)

    return tiled_add


class LibEntry(triton.KernelInterface):
    """A wrapper in the style of triton-ascend's and FlagGems' `libentry`: the first call
    keeps the compiled kernel, later calls launch it directly with the runtime arguments."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.cache: dict[Any, Any] = {}

    def run(self, *args: Any, grid: Any, warmup: bool = False, **kwargs: Any) -> Any:
        key = tuple(str(getattr(a, "dtype", type(a))) for a in args)
        if key not in self.cache:
            self.cache[key] = self.fn.run(*args, grid=grid, warmup=warmup, **kwargs)
            return self.cache[key]
        runtime = [a for p, a in zip(self.fn.params, args, strict=False) if not p.is_constexpr]
        self.cache[key][grid](*runtime)
        return self.cache[key]


@triton.jit
def negate(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, -tl.load(x_ptr + offs, mask=mask), mask=mask)


negate_entry = LibEntry(negate)


@pytest.fixture(scope="module")
def styles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One block with every launch style, interpreted so that results can be checked, under
    the virtual NPU (triton-ascend's tiling autotuner asks the driver for its target)."""
    from ascend_ir_lab.toolchains.ascend.launch import intercept_launches
    from ascend_ir_lab.toolchains.ascend.virtual_npu import virtual_npu

    root = tmp_path_factory.mktemp("styles")
    x, bias, out = torch.randn(1000), torch.randn(1000), torch.zeros(1000)
    out_nb = torch.zeros(1000)
    m = torch.randn(8, 128)
    sums = torch.zeros(8, 64)
    words = {dt: torch.arange(300).to(dt) for dt in (torch.uint16, torch.uint32, torch.uint64)}
    copies = {dt: torch.zeros_like(w) for dt, w in words.items()}
    tx, tout = torch.randn(4096), torch.zeros(4096)
    nx, nout = torch.randn(512), torch.zeros(512)
    ay, aout = torch.randn(4096), torch.zeros(4096)
    seen: dict[str, Any] = {}
    with virtual_npu(), intercept_launches(runs_dir=root, interpret=True) as capture:
        grid = lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)  # noqa: E731
        bias_act[grid](x, bias, out, 1000, 0.5, HAS_BIAS=True)
        bias_act[grid](x, None, out_nb, 1000, 2.0, HAS_BIAS=False)  # an optional bias left out
        handle = fold_rows.warmup(m, sums, 128, BLOCK=64, num_stages=2, grid=(1,))
        seen["asm"] = sorted(handle.asm)
        handle[(8, 1, 1)](m, sums, 128)
        for dt, w in words.items():
            copy_words[(triton.cdiv(300, 128),)](w, copies[dt], 300, BLOCK=128)
        tuned_scale = define_tuned_scale()
        tuned_scale[lambda meta: (triton.cdiv(4096, meta["BLOCK"]),)](tx, tout, 4096, 3.0)
        negate_entry[(2,)](nx, nout, 512, BLOCK=256)
        negate_entry[(2,)](nx, nout, 512, BLOCK=256)  # the kept handle, launched
        tiled_add = define_auto_tiled()
        tiled_add[lambda meta: (triton.cdiv(3000, meta["BLOCK_SIZE"]),)](tx, ay, aout, 3000)
        seen["unknown"] = bias_act[(4,)](x, bias, out, 1000, 0.5, HAS_BIAS=True, bogus=1)
    seen.update(capture=capture, root=root, x=x, bias=bias, out=out, out_nb=out_nb, m=m,
                sums=sums, words=words, copies=copies, tx=tx, tout=tout, nx=nx, nout=nout,
                ay=ay, aout=aout)  # fmt: skip
    return seen


def _runs(seen: dict[str, Any], kernel: str) -> list[Any]:
    return [r for r in seen["capture"].runs if r.manifest["kernel"]["name"] == kernel]


def test_optional_arguments_left_out_still_make_a_run(styles: dict[str, Any]) -> None:
    runs = _runs(styles, "bias_act")
    assert len(runs) == 2 and all(r.status == "ir-complete-no-binary" for r in runs)
    without = next(r for r in runs if not r.manifest["kernel"]["constexprs"]["HAS_BIAS"])
    assert without.manifest["kernel"]["constexprs"]["bias_ptr"] is None
    assert without.manifest["kernel"]["constexprs"]["BLOCK"] == 256  # the default
    x, bias = styles["x"], styles["bias"]
    torch.testing.assert_close(styles["out"], (x + bias) * 0.5)
    torch.testing.assert_close(styles["out_nb"], x * 2.0)
    grids = [ln.grid for ln in styles["capture"].launches if ln.kernel == "bias_act"]
    assert grids[:2] == [(4,), (4,)]  # the grid read the defaulted BLOCK


def test_warmup_returns_a_handle_that_launches(styles: dict[str, Any]) -> None:
    (run,) = _runs(styles, "fold_rows")
    assert run.manifest["kernel"]["constexprs"] == {"BLOCK": 64, "num_stages": 2}
    assert {"ttir", "ttadapter"} <= set(styles["asm"])
    m = styles["m"]
    torch.testing.assert_close(styles["sums"], m[:, :64] + m[:, 64:])
    notes = [ln.note for ln in styles["capture"].launches if ln.kernel == "fold_rows"]
    assert notes[0].startswith("warmup") and "launch of fold_rows[(8, 1, 1)] skipped" in notes[1]


def test_unsigned_tensors_and_heuristics(styles: dict[str, Any]) -> None:
    runs = _runs(styles, "copy_words")
    assert sorted(r.manifest["kernel"]["signature"]["src_ptr"] for r in runs) == [
        "*u16", "*u32", "*u64"
    ]  # fmt: skip
    assert {r.manifest["kernel"]["constexprs"]["EVEN"] for r in runs} == {False}
    for dt, copy in styles["copies"].items():
        assert torch.equal(copy, styles["words"][dt])


def test_autotune_with_key_and_pruning(styles: dict[str, Any]) -> None:
    runs = _runs(styles, "tuned_scale")
    assert [r.manifest["kernel"]["constexprs"]["BLOCK"] for r in runs] == [128]  # 8192 pruned
    torch.testing.assert_close(styles["tout"], styles["tx"] * 3.0)


def test_triton_ascends_tiling_autotuner(styles: dict[str, Any]) -> None:
    runs = _runs(styles, "tiled_add")
    assert runs and all(r.status == "ir-complete-no-binary" for r in runs)
    blocks = {r.manifest["kernel"]["constexprs"]["BLOCK_SIZE"] for r in runs}
    assert len(blocks) == len(runs) >= 1  # one Run per config it made
    torch.testing.assert_close(styles["aout"][:3000], (styles["tx"] + styles["ay"])[:3000])


def test_libentry_wrapper_launches_the_handle_it_kept(styles: dict[str, Any]) -> None:
    assert len(_runs(styles, "negate")) == 1
    launches = [ln for ln in styles["capture"].launches if ln.kernel == "negate"]
    assert len(launches) == 2 and all(ln.interpreted for ln in launches)
    torch.testing.assert_close(styles["nout"], -styles["nx"])


def test_an_unknown_keyword_leaves_no_run_folder(styles: dict[str, Any]) -> None:
    assert styles["unknown"] is None
    errors = [str(e) for e in styles["capture"].errors]
    assert any("bogus" in e and "unrecognised" in e for e in errors), errors
    folders = sorted(p.name for p in styles["root"].iterdir())
    assert folders == sorted(r.path.name for r in styles["capture"].runs)
