"""The options triton-ascend passes, rebuilt from its own NPUOptions."""

from __future__ import annotations

import pytest

from ascend_ir_lab.toolchains.ascend import options as o

from .conftest import needs_ascend

pytestmark = [pytest.mark.ascend, needs_ascend]


def test_bishengir_defaults_match_triton_ascend() -> None:
    args = o.bishengir_args(o.npu_options(), "Ascend910B3", {})
    assert args == [
        "--target=Ascend910B3",
        "--enable-auto-multi-buffer=True",
        "--enable-auto-bind-sub-block=True",
        "--enable-hfusion-compile=true",
        "--enable-hivm-compile=true",
        "--enable-triton-kernel-compile=true",
    ]


def test_npu_options_and_env_switches_add_flags() -> None:
    opts = o.npu_options({"sync_solver": False, "multibuffer": False, "unit_flag": True})
    env = {"TRITON_DISABLE_LINE_INFO": "0", "TRITON_ALL_BLOCKS_PARALLEL": "1"}
    args = o.bishengir_args(opts, "Ascend910B4", env, regbased=True)
    assert "--enable-auto-multi-buffer=False" in args
    assert "--enable-hivm-graph-sync-solver=False" in args
    assert "--enable-hivm-unit-flag-sync=True" in args
    assert "--enable-debug-info=true" in args and "--enable-auto-blockify-loop" in args
    assert "--reg-based=true" in args and "--enable-hivm-compile=true" not in args
    assert "--mlir-print-debuginfo" in o.adapter_args(opts, env)


def test_unknown_option_lists_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="unknown NPUOptions \\['multi_buffer'\\].*multibuffer"):
        o.npu_options({"multi_buffer": True})


def test_barrier_all_replaces_any_previous_setting() -> None:
    args = ["--target=X", "--enable-hivm-inject-barrier-all-sync=False"]
    assert o.with_barrier_all(args) == ["--target=X", "--enable-hivm-inject-barrier-all-sync=true"]


def test_bishengir_input_drops_mix_mode_like_triton_ascend() -> None:
    ir = (
        'func.func @k() attributes {global_kernel = "local", mix_mode = "aiv", '
        'parallel_mode = "simd"}'
    )
    text, mode = o.bishengir_input(ir)
    assert mode == "aiv" and "mix_mode" not in text and 'parallel_mode = "simd"' in text
