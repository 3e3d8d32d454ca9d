"""`triton-compile` (upstream Triton, cuda/hip) and `opt` (any MLIR opt tool) from the shell.

Only argument parsing and printing here; the work is in toolchains/triton/compile.py and
toolchains/common/opt.py.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from ascend_ir_lab.safe_text import one_line

GPU_PYTHON_ENV = "ASCEND_IR_LAB_GPU_PYTHON"


def register(subparsers: Any) -> None:
    """Add `triton-compile` and `opt`."""
    _register_triton(subparsers)
    _register_opt(subparsers)


def _register_triton(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "triton-compile",
        help="cross-compile a kernel with upstream Triton (cuda/hip) into a Run",
        description="Stages ttir, ttgir, llir, ptx (amdgcn for hip), each with its per-pass "
        "dumps and timings. No GPU needed. Upstream Triton lives in its own venv "
        f"(extra 'gpu'); --python (or ${GPU_PYTHON_ENV}) runs the compile there.",
    )
    p.add_argument(
        "kernel",
        metavar="FILE.py[::KERNEL]",
        help="without ::KERNEL the file's COMPILE dict names kernel and signature",
    )
    p.add_argument("--signature", help="x_ptr=*fp32,n=i32,... (default: the file's COMPILE)")
    p.add_argument("--constexpr", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--target", default="cuda:90", help="cuda:90 (default), cuda:80, hip:gfx942")
    p.add_argument("--num-warps", type=int)
    p.add_argument("--num-stages", type=int)
    p.add_argument("--llvm", action="store_true", help="also LLVM's pass dumps (slow)")
    p.add_argument("--no-llvm-dumps", action="store_true", help=argparse.SUPPRESS)  # the default
    p.add_argument("--no-timings", action="store_true", help="no MLIR/LLVM timing reports")
    p.add_argument("--python", metavar="PY", help="interpreter with upstream triton installed")
    p.add_argument("--name")
    p.add_argument("-o", "--out", metavar="DIR", help="the Run folder")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds (with --python)")
    p.add_argument("--json", action="store_true", help="print run.json")
    p.set_defaults(handler=triton_compile)


def _register_opt(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "opt",
        help="run an MLIR opt tool with --mlir-print-ir-after-all into a Run",
        description="TOOL is a name on $PATH (or shipped by a pip package, e.g. bishengir-opt) "
        "or a path: bishengir-opt, triton-opt, mlir-opt, iree-opt...",
    )
    p.add_argument("tool", metavar="TOOL")
    p.add_argument("input", metavar="INPUT.mlir")
    p.add_argument("--pass-pipeline", help="e.g. 'builtin.module(canonicalize,cse)'")
    p.add_argument(
        "--tool-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="extra argument for the tool (repeatable), e.g. --tool-arg=-cse",
    )
    p.add_argument("--no-timing", action="store_true", help="do not pass --mlir-timing")
    p.add_argument("--name")
    p.add_argument("-o", "--out", metavar="DIR", help="the Run folder")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds (default 600)")
    p.add_argument("--json", action="store_true", help="print run.json")
    p.set_defaults(handler=opt)


def triton_compile(args: argparse.Namespace) -> int:
    """Handler of `triton-compile` (also fit for `compile --target cuda:90` namespaces)."""
    from ascend_ir_lab.toolchains.common.kernels import parse_constexprs
    from ascend_ir_lab.toolchains.triton import compile as tu

    python = getattr(args, "python", None) or _gpu_python()
    if python:
        return _compile_elsewhere(python, args)
    consts: dict[str, Any] = {}
    kernel, signature = args.kernel, args.signature
    if "::" not in kernel:
        kernel, file_sig, consts = tu.compile_spec(kernel)
        signature = signature or file_sig
    if not signature:
        from ascend_ir_lab.errors import InputError

        raise InputError(f"{args.kernel}: --signature is needed (e.g. x_ptr=*fp32,n=i32)")
    consts.update(parse_constexprs(args.constexpr))
    options = {
        k: v
        for k, v in (
            ("num_warps", getattr(args, "num_warps", None)),
            ("num_stages", getattr(args, "num_stages", None)),
        )
        if v
    }
    run = tu.compile_kernel(
        kernel,
        signature=signature,
        constexprs=consts,
        target=args.target,
        options=options,
        name=args.name,
        out=args.out,
        llvm_dumps=bool(getattr(args, "llvm", False)),
        timings=not getattr(args, "no_timings", False),
    )
    return _report(run, args.json)


def opt(args: argparse.Namespace) -> int:
    """Handler of `opt`."""
    from ascend_ir_lab.toolchains.common.opt import run_opt

    run = run_opt(
        args.tool,
        args.input,
        args.pass_pipeline,
        extra_args=args.tool_arg,
        timing=not args.no_timing,
        name=args.name,
        out=args.out,
        timeout=args.timeout,
    )
    return _report(run, args.json)


def _gpu_python() -> str | None:
    """$ASCEND_IR_LAB_GPU_PYTHON, when this interpreter has no upstream Triton."""
    from ascend_ir_lab.errors import IRLabError
    from ascend_ir_lab.toolchains.triton.compile import require_upstream_triton

    try:
        require_upstream_triton()
    except IRLabError:
        if os.environ.get(GPU_PYTHON_ENV):
            return os.environ[GPU_PYTHON_ENV]
        # the project's own layout: .venv-gpu beside the working directory (scripts/setup --all)
        local = os.path.join(os.getcwd(), ".venv-gpu", "bin", "python")
        return local if os.path.exists(local) else None
    return None


def _compile_elsewhere(python: str, args: argparse.Namespace) -> int:
    from pathlib import Path

    from ascend_ir_lab.toolchains.common.run import Run, prepare_folder
    from ascend_ir_lab.toolchains.triton.compile import compile_in

    out = prepare_folder(args.name or Path(args.kernel.split("::")[0]).stem, args.out)
    argv = ["triton-compile", args.kernel, "--target", args.target, "-o", str(out)]
    argv += [f"--signature={args.signature}"] if args.signature else []
    argv += [f"--constexpr={c}" for c in args.constexpr]
    argv += [f"--name={args.name}"] if args.name else []
    for flag in ("num_warps", "num_stages"):
        if getattr(args, flag, None):
            argv.append(f"--{flag.replace('_', '-')}={getattr(args, flag)}")
    argv += [f"--{f.replace('_', '-')}" for f in ("llvm", "no_timings") if getattr(args, f, False)]
    import tempfile

    with tempfile.TemporaryDirectory(prefix="ascend-ir-lab-") as tmp:
        compile_in(python, argv, log=Path(tmp) / "compile.log", timeout=args.timeout)
    return _report(Run(out), args.json)


def _report(run: Any, as_json: bool) -> int:
    if as_json:
        print(json.dumps(run.manifest, indent=2))
        return 0
    print(f"{one_line(str(run.path))}: {run.manifest['status']['text']}")
    for stage in run.stages:
        timed = len(stage.get("timings") or {})
        print(
            f"  {stage['name']:<14} exit {stage['returncode']:>3}  {stage['seconds']:7.2f} s  "
            f"{stage['log']}" + (f"  ({timed} timed passes)" if timed else "")
        )
    return 0 if run.status in ("ok", "ir-complete-no-binary") else 1
