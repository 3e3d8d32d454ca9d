"""`%%triton_npu --target cuda:90|cuda:80|hip:gfx942`: the cell under upstream Triton.

Glue only: the launches are taken over by toolchains.triton.launch (launched and recorded
on this host's GPU, or cross-compiled with the launch skipped); the Runs are shown as the
Ascend ones are.
"""

from __future__ import annotations

import contextlib
from typing import Any

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.notebook.glue import cell_error, run_nested
from ascend_ir_lab.notebook.progress import CompileProgress

__all__ = ["UpstreamProgress", "run_upstream_cell"]

# Options of %%triton_npu that only mean something to the Ascend compilers.
_ASCEND_ONLY = {
    "barrier_all": "--barrier-all",
    "flag": "--flag",
    "module_scope": "--module-scope",
    "interpret": "--interpret",
}


class UpstreamProgress(CompileProgress):
    """CompileProgress with upstream Triton's stage order (ttir, ttgir, llir, ptx/amdgcn)."""

    def _on_start(self, info: dict[str, Any]) -> None:
        last = "amdgcn" if str(info.get("target", "")).startswith("hip") else "ptx"
        self._next = {"ttir": "ttgir", "ttgir": "llir", "llir": last}
        super()._on_start(info)

    def _on_stage(self, info: dict[str, Any]) -> None:
        record = info["record"]
        ok = record.get("returncode") == 0
        mark = "✓" if ok else f"⚠ exit {record.get('returncode')}"
        self._stages.append(
            f"{record.get('name')} {mark} {float(record.get('seconds') or 0):.2f} s"
        )
        following = getattr(self, "_next", {}).get(record.get("name", ""))
        self._update(" · ".join(self._stages) + (f" · {following} …" if following and ok else ""))


def run_upstream_cell(magics: Any, args: Any, cell: str) -> Any:
    """Run `cell` with its launches taken over for upstream Triton; return the last Run's view."""
    from ascend_ir_lab.errors import LaunchFailedError
    from ascend_ir_lab.toolchains.common.outcome import failure_message, failures
    from ascend_ir_lab.toolchains.triton.compile import parse_target
    from ascend_ir_lab.toolchains.triton.environment import (
        default_target,
        device_target,
        require_upstream_environment,
    )
    from ascend_ir_lab.toolchains.triton.launch import compile_defined_upstream, intercept_upstream
    from ascend_ir_lab.toolchains.triton.virtual_gpu import summary_line, virtual_gpu

    if args.target is not None:
        parse_target(args.target)
    require_upstream_environment(args.target or "cuda:90")
    given = [flag for key, flag in _ASCEND_ONLY.items() if getattr(args, key, None)]
    if given:
        raise InputError(
            f"{given[0]} is an Ascend option; it means nothing for upstream Triton "
            f"(--target {args.target or 'this GPU'}): leave it out"
        )
    progress = UpstreamProgress()
    settings: dict[str, Any] = dict(
        target=args.target,
        name=args.name,
        runs_dir=args.runs_dir,
        progress=progress,
        llvm_dumps=bool(getattr(args, "llvm", False)),
    )
    before = dict(magics.shell.user_ns)
    with contextlib.ExitStack() as stack:
        if device_target() is None and not getattr(args, "no_virtual_npu", False):
            target = args.target or default_target()
            print(summary_line(target))
            stack.enter_context(virtual_gpu(target))
        cap = stack.enter_context(
            intercept_upstream(
                kernels=args.kernel, all_passes=bool(getattr(args, "all_passes", False)), **settings
            )
        )
        outcome = run_nested(magics.shell, cell)
    runs = [(r, [ln for ln in cap.launches if ln.run is r]) for r in cap.runs]
    if args.signature:
        for fn in magics.defined_kernels(args.kernel, before):
            run = compile_defined_upstream(
                fn, signature=args.signature, constexprs=args.constexpr, **settings
            )
            runs.append((run, []))
    failed = failures(cap) + cell_error(outcome)
    if failed and not getattr(args, "keep_going", False):
        magics.show_runs(runs, cap.errors, show_last=True)
        raise LaunchFailedError(
            failure_message(failed, "this cell", "(%%triton_npu --keep-going runs on)")
        )
    return magics.show_runs(runs, cap.errors)
