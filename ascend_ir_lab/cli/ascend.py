"""`compile`, `repro`, `cache`: the Ascend toolchain from the shell (logic in toolchains/)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.safe_text import for_terminal, one_line


def register(subparsers: Any) -> None:
    """Add the Ascend subcommands."""
    _register_compile(subparsers)
    _register_repro(subparsers)
    _register_cache(subparsers)


def _register_compile(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "compile",
        help="compile a Triton kernel for Ascend into a Run (every IR of every pass)",
        description="Offline Ascend compile (no NPU, no CANN): stages ttir, adapter, bishengir.",
    )
    p.add_argument(
        "kernel",
        metavar="FILE.py[::KERNEL]",
        help="the kernel; FILE.py alone uses the file's COMPILE dict (kernel, signature, constexprs)",
    )
    p.add_argument("--signature", help="x_ptr=*fp32,n=i32,... (default: the file's COMPILE dict)")
    p.add_argument("--constexpr", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument(
        "--target",
        default="Ascend910B3",
        help="an Ascend NPU (default Ascend910B3), or cuda:90 / cuda:80 / hip:gfx942 for upstream "
        "Triton (its own environment, see README)",
    )
    p.add_argument(
        "--barrier-all",
        action="store_true",
        help="--enable-hivm-inject-barrier-all-sync=true (global barriers)",
    )
    p.add_argument(
        "--bishengir-flag",
        action="append",
        default=[],
        metavar="FLAG",
        help="extra bishengir-compile flag (repeatable), e.g. --bishengir-flag=--x=y",
    )
    p.add_argument(
        "--module-scope",
        action="store_true",
        help="every bishengir Dump a complete module (needed by `repro`)",
    )
    p.add_argument(
        "--line-info",
        action="store_true",
        help="compile with line info (TRITON_DISABLE_LINE_INFO=0) and print locations in every "
        "bishengir Dump, so ops map back to Python lines",
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="triton-ascend NPUOptions field, e.g. multibuffer=false",
    )
    p.add_argument("--name")
    p.add_argument(
        "-o", "--out", metavar="DIR", help="the Run folder (default .ascend_ir_lab/runs/NAME)"
    )
    p.add_argument("--timeout", type=float, default=600.0, help="seconds per tool (default 600)")
    p.add_argument(
        "--python",
        metavar="PY",
        help="cuda/hip targets: the interpreter with upstream Triton (default: "
        "$ASCEND_IR_LAB_GPU_PYTHON, then ./.venv-gpu/bin/python)",
    )
    p.add_argument("--json", action="store_true", help="print run.json")
    p.set_defaults(handler=_compile)


def _compile(args: argparse.Namespace) -> int:
    from ascend_ir_lab.toolchains.common.kernels import parse_constexprs
    from ascend_ir_lab.toolchains.common.targets import toolchain_for

    constexprs: dict[str, Any] = {}
    kernel, signature = args.kernel, args.signature
    upstream = toolchain_for(args.target) == "triton"
    if not signature and "::" in kernel and upstream:
        args.kernel = kernel.split("::")[0]  # the upstream driver reads the COMPILE dict itself
    if upstream:
        from ascend_ir_lab.cli.upstream import triton_compile

        return triton_compile(args)
    from ascend_ir_lab.toolchains.ascend.compile import (
        RunInterrupted,
        StageFailedError,
        compile_kernel,
    )

    if not signature:
        from ascend_ir_lab.toolchains.triton.compile import compile_spec

        named, signature, constexprs = compile_spec(kernel.split("::")[0])
        if "::" in kernel and named.split("::")[1] != kernel.split("::")[1]:
            raise InputError(
                f"{kernel}: --signature is needed (the file's COMPILE dict is for {named})"
            )
        kernel = named
    constexprs.update(parse_constexprs(args.constexpr))
    try:
        run = compile_kernel(
            kernel,
            signature=signature,
            constexprs=constexprs,
            target=args.target,
            barrier_all=args.barrier_all,
            bishengir_flags=args.bishengir_flag,
            module_scope=args.module_scope,
            line_info=args.line_info,
            options=parse_constexprs(args.option),
            name=args.name,
            out=args.out,
            timeout=args.timeout,
        )
    except StageFailedError as exc:
        print(f"ascend-ir-lab compile: error: {for_terminal(str(exc))}", file=sys.stderr)
        return 1
    except RunInterrupted as exc:
        print(f"ascend-ir-lab compile: {for_terminal(str(exc))}", file=sys.stderr)
        return 130
    if args.json:
        print(json.dumps(run.manifest, indent=2))
        return 0
    print(f"{one_line(str(run.path))}: {run.manifest['status']['text']}")
    for stage in run.stages:
        print(
            f"  {stage['name']:<10} exit {stage['returncode']:>3}  {stage['seconds']:7.2f} s  "
            f"{stage['log']}"
        )
    return 0


def _register_repro(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "repro",
        help="re-run one pass of a module-scope Run with bishengir-opt and compare",
        description="Write before.mlir and the one-command reproducer for a Dump; run it.",
    )
    p.add_argument("run", metavar="RUN", help="a Run folder (compiled with --module-scope)")
    p.add_argument("which", metavar="WHICH", help="index, last, or [stage:]pass-arg[#k]")
    p.add_argument("-o", "--out", metavar="DIR", help="where to write the reproducer files")
    p.add_argument(
        "--no-run", action="store_true", help="only write the files and print the command"
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_repro)


def _repro(args: argparse.Namespace) -> int:
    from ascend_ir_lab.toolchains.ascend.repro import make_reproducer, run_reproducer

    repro = make_reproducer(args.run, args.which, args.out)
    if repro.note:
        print(f"# {repro.note}", file=sys.stderr)
    if args.no_run:
        print(repro.shell())
        return 0
    result = run_reproducer(repro)
    if args.json:
        print(
            json.dumps(
                {
                    "index": repro.dump.index,
                    "stage": repro.dump.stage,
                    "pass": repro.dump.pass_name,
                    "arg": repro.dump.arg,
                    "scope": repro.dump.scope,
                    "function": repro.symbol,
                    "script": str(repro.script),
                    "command": repro.command,
                    "before": str(repro.before),
                    "returncode": result.returncode,
                    "match": result.match,
                    "summary": result.summary(),
                    "diff": result.diff,
                },
                indent=2,
            )
        )
    else:
        print(repro.shell())
        print(result.summary())
        if result.diff:
            print("\n".join(result.diff[:200]))
    return 0 if result.match else 1


def _register_cache(subparsers: Any) -> None:
    p = subparsers.add_parser("cache", help="kernels in the Triton cache and dump folders")
    sub = p.add_subparsers(dest="cache_command", metavar="ACTION")
    ls = sub.add_parser("list", help="entries, newest first")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(handler=_cache_list)
    show = sub.add_parser("show", help="one entry's files")
    show.add_argument("key", help="hash prefix, kernel name, or 'latest'")
    show.add_argument("--json", action="store_true")
    show.set_defaults(handler=_cache_show)
    find = sub.add_parser("search", help="kernels whose IR contains a text or an op")
    find.add_argument("text", help="an op (hivm.hir.vadd, tt.dot) or any text")
    find.add_argument("--jobs", type=int, default=None, help="processes (default: CPUs, max 8)")
    find.add_argument("--json", action="store_true")
    find.set_defaults(handler=_cache_search)
    opn = sub.add_parser("open", help="one entry as a Timeline (its stage files)")
    opn.add_argument("key")
    opn.set_defaults(handler=_cache_open)
    p.set_defaults(handler=_cache_list, json=False)


def _entry_dict(e: Any) -> dict[str, Any]:
    return {
        "key": e.key,
        "kind": e.kind,
        "name": e.name,
        "stages": list(e.stages),
        "size": e.size,
        "modified": _when(e.mtime),
        "path": str(e.path),
    }


def _when(mtime: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(mtime))


def _cache_list(args: argparse.Namespace) -> int:
    from ascend_ir_lab.toolchains.common.cache import cache_root, dump_root, list_entries

    entries = list_entries()
    if args.json:
        print(json.dumps([_entry_dict(e) for e in entries], indent=2))
        return 0
    if not entries:
        print(f"no kernels in {cache_root()} or {dump_root()}")
        return 0
    lines = (
        f"{_when(e.mtime)}  {e.kind:<5} {e.key[:16]:<16}  {e.name:<24} "
        f"{','.join(e.stages):<24} {e.size:>9}"
        for e in entries
    )
    sys.stdout.write(for_terminal("".join(line + "\n" for line in lines)))
    return 0


def _cache_search(args: argparse.Namespace) -> int:
    from ascend_ir_lab.toolchains.common.cache import search_entries

    hits = search_entries(args.text, jobs=args.jobs)
    if args.json:
        rows = [
            {**_entry_dict(h.entry), "file": h.file, "stage": h.stage, "count": h.count,
             "line": h.line}
            for h in hits
        ]  # fmt: skip
        print(json.dumps(rows, indent=2))
        return 0
    if not hits:
        print(f"no kernel's IR contains {args.text!r}")
        return 1
    for h in hits:
        line = for_terminal(h.line).replace("\n", " ")
        print(
            for_terminal(
                f"{h.entry.key[:16]:<16}  {h.entry.name:<24} {h.stage:<10} {h.count:>5}x  "
            )
            + line
        )
    return 0


def _cache_show(args: argparse.Namespace) -> int:
    from ascend_ir_lab.toolchains.common.cache import find_entry, stage_of

    e = find_entry(args.key)
    files = [
        {"file": p.name, "stage": stage_of(p.name), "size": p.stat().st_size} for p in e.files()
    ]
    if args.json:
        print(json.dumps({**_entry_dict(e), "files": files}, indent=2))
        return 0
    print(for_terminal(f"{one_line(str(e.path))}  ({e.kind}, kernel {e.name}, {_when(e.mtime)})"))
    for f in files:
        print(for_terminal(f"  {f['file']:<40} {f['stage'] or '':<10} {f['size']:>9}"))
    return 0


def _cache_open(args: argparse.Namespace) -> int:
    from ascend_ir_lab.dumps import open_timeline
    from ascend_ir_lab.toolchains.common.cache import find_entry

    e = find_entry(args.key)
    tl = open_timeline(str(e.path))
    print(for_terminal(f"{one_line(str(e.path))}: {tl!r}"))
    for d in tl.dumps:
        print(for_terminal(f"  {d.index:>4}  {d.stage:<10} {d.label:<32} {d.scope}"))
    return 0
