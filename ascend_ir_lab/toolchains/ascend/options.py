"""The exact options triton-ascend passes to triton-adapter-opt and bishengir-compile.

Mirrors `ttir_to_linalg` and `linalg_to_bin_enable_npu_compile_A2_A3` of triton-ascend 3.2
(triton/backends/ascend/compiler.py), reading triton-ascend's own `NPUOptions` so that the
defaults follow the installed version. `env` stands for the process environment those
functions consult (TRITON_DISABLE_LINE_INFO, TRITON_ENABLE_SANITIZER, ...).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# Optional NPUOptions fields -> bishengir-compile flag, added when the field is not None, in
# triton-ascend's order: the leading two, then sanitizer/debug-info flags, then the rest.
_LEADING_FLAGS = (
    ("multibuffer", "enable-auto-multi-buffer"),
    ("enable_auto_bind_sub_block", "enable-auto-bind-sub-block"),
)
_TRAILING_FLAGS = (
    ("enable_hivm_auto_cv_balance", "enable-hivm-auto-cv-balance"),
    ("sync_solver", "enable-hivm-graph-sync-solver"),
    ("unit_flag", "enable-hivm-unit-flag-sync"),
    ("inject_barrier_all", "enable-hivm-inject-barrier-all-sync"),
    ("inject_block_all", "enable-hivm-inject-block-all-sync"),
    (
        "limit_auto_multi_buffer_only_for_local_buffer",
        "limit-auto-multi-buffer-only-for-local-buffer",
    ),
    ("set_workspace_multibuffer", "set-workspace-multibuffer"),
    ("tile_mix_vector_loop", "tile-mix-vector-loop"),
    ("tile_mix_cube_loop", "tile-mix-cube-loop"),
    ("limit_auto_multi_buffer_of_local_buffer", "limit-auto-multi-buffer-of-local-buffer"),
    ("disable_auto_inject_block_sync", "disable-auto-inject-block-sync"),
)

BARRIER_ALL_FLAG = "--enable-hivm-inject-barrier-all-sync=true"
PRINT_AFTER_ALL = "--mlir-print-ir-after-all"
MODULE_SCOPE_FLAGS = ("--mlir-print-ir-module-scope", "--mlir-disable-threading")


def npu_options(overrides: Mapping[str, Any] | None = None) -> Any:
    """triton-ascend's NPUOptions with `overrides` (unknown names raise with the valid ones)."""
    from triton.backends.ascend.compiler import NPUOptions

    fields = NPUOptions.__dataclass_fields__
    unknown = sorted(set(overrides or {}) - set(fields))
    if unknown:
        raise ValueError(f"unknown NPUOptions {unknown}; valid: {', '.join(sorted(fields))}")
    return NPUOptions(**dict(overrides or {}))


def _is_on(env: Mapping[str, str], name: str, default: str) -> bool:
    return env.get(name, default).lower() in ("true", "1")


def adapter_args(opts: Any, env: Mapping[str, str]) -> list[str]:
    """triton-adapter-opt pass options (without input/output) for the NPU target."""
    c910 = opts.compile_on_910_95
    simt = opts.force_simt_template
    args = ["--triton-linearize"] if opts.enable_linearize else []
    args += [
        f"--discrete-mask-access-conversion=compile-on-910-95={c910} force-simt-template={simt}",
        "--triton-to-annotation",
        f"--triton-to-unstructure=compile-on-910-95={c910} force-simt-template={simt}",
        "--triton-to-hivm",
        "--triton-to-hfusion",
        "--triton-to-llvm",
        "--bubble-up-operation",
        "--triton-to-linalg=global-kernel=false named-ops=True "
        f"enable-nd2nz-on-vector={opts.enable_nd2nz_on_vector} "
        f"enable-select-analysis={opts.enable_select_analysis} compile-on-910-95={c910}",
    ]
    if _is_on(env, "TRITON_ENABLE_SANITIZER", "false") or not _line_info_disabled(env):
        args.append("--mlir-print-debuginfo")
    return args


def _line_info_disabled(env: Mapping[str, str]) -> bool:
    return _is_on(env, "TRITON_DISABLE_LINE_INFO", "true")


def _optional_flags(opts: Any, table: tuple[tuple[str, str], ...]) -> list[str]:
    return [
        f"--{flag}={getattr(opts, field)}"
        for field, flag in table
        if getattr(opts, field, None) is not None
    ]


def bishengir_args(
    opts: Any, target: str, env: Mapping[str, str], *, regbased: bool = False
) -> list[str]:
    """bishengir-compile options (without input/output) for an A2/A3 target such as 910B3."""
    args = [f"--target={target}", *_optional_flags(opts, _LEADING_FLAGS)]
    if _is_on(env, "TRITON_ENABLE_SANITIZER", "false"):
        args.append("--enable-sanitizer=true")
    if not _line_info_disabled(env):
        args.append("--enable-debug-info=true")
    if _is_on(env, "ENABLE_PRINT_UB_BITS", "false"):
        args.append("--enable-print-memory-allocated-size")
    args += _optional_flags(opts, _TRAILING_FLAGS)
    if _is_on(env, "TRITON_ALL_BLOCKS_PARALLEL", "false"):
        args.append("--enable-auto-blockify-loop")
    hivm = "--reg-based=true" if regbased else "--enable-hivm-compile=true"
    args += ["--enable-hfusion-compile=true", hivm, "--enable-triton-kernel-compile=true"]
    return args


_MIX_MODE = re.compile(r', mix_mode\s*=\s*"[^"]*"')
_MIX_MODE_VALUE = re.compile(r'mix_mode\s*=\s*"([^"]+)"')


def bishengir_input(adapter_ir: str) -> tuple[str, str | None]:
    """The adapter IR as triton-ascend hands it to bishengir-compile (the `mix_mode`
    attribute removed), and the mix mode it had ("aiv", "aic", "mix")."""
    found = _MIX_MODE_VALUE.search(adapter_ir)
    return _MIX_MODE.sub("", adapter_ir), (found.group(1) if found else None)


def with_barrier_all(args: list[str]) -> list[str]:
    """`args` with fine-grained sync replaced by barrier-all (any previous setting dropped)."""
    kept = [a for a in args if not a.startswith("--enable-hivm-inject-barrier-all-sync")]
    return [*kept, BARRIER_ALL_FLAG]
