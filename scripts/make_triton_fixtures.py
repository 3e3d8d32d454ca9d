#!/usr/bin/env python3
"""Regenerate tests/data/triton: real upstream-Triton and bishengir-opt outputs.

    .venv-gpu/bin/python scripts/make_triton_fixtures.py --part triton   # upstream triton venv
    .venv/bin/python scripts/make_triton_fixtures.py --part opt          # bishengir-opt venv

Raw files come from child processes with an explicit environment (MLIR_DUMP_PATH is opened
once per process, so each raw run gets a fresh one); Runs come from ascend_ir_lab's own
toolchains. Files over GZIP_OVER bytes are gzipped. MANIFEST.md is rewritten at the end
from what is on disk (sizes, `IR Dump` counts, versions, commands).
"""

from __future__ import annotations

import argparse
import gzip
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "tests" / "kernels" / "upstream"
GZIP_OVER = 600 * 1024
OPT_INPUT = "opt/softmax_linalg.mlir"
OPT_PIPELINE = (
    "builtin.module(convert-arith-to-hfusion,convert-math-to-hfusion,"
    "convert-linalg-to-hfusion,canonicalize,cse,convert-hfusion-to-hivm,canonicalize)"
)
OPT_FAILING = "builtin.module(func.func(convert-elementwise-to-linalg),convert-linalg-to-hfusion)"
# (kernel, target, env of the raw run, what its stderr is called or None)
DUMP = {"MLIR_ENABLE_DUMP": "1"}
RAW_RUNS = [
    ("softmax", "cuda:90", {**DUMP, "LLVM_IR_ENABLE_DUMP": "1"}, "llvm-dump"),
    ("attention", "cuda:90", DUMP, None),
    ("softmax", "hip:gfx942", DUMP, None),
    ("attention", "hip:gfx942", DUMP, None),
    ("attention", "cuda:90", {"MLIR_ENABLE_TIMING": "1", "LLVM_ENABLE_TIMING": "1"}, "timing"),
]
COMMANDS: list[str] = []


def clean_env(extra: dict[str, str]) -> dict[str, str]:
    """This environment without any Triton/MLIR/LLVM switch, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRITON_", "MLIR_", "LLVM_"))}
    return {**env, **extra}


def tag(kernel: str, target: str) -> str:
    return f"{kernel}.{target.replace(':', '')}"


def raw_run(
    out: Path,
    kernel: str,
    target: str,
    switches: dict[str, str],
    stderr_name: str | None,
) -> None:
    """One compile in a child process with exactly `switches` set."""
    with tempfile.TemporaryDirectory(prefix="triton-fixture-") as tmp:
        env = clean_env({**switches, "TRITON_CACHE_DIR": tmp})
        dump_file = out / f"{tag(kernel, target)}.mlir-dump.txt"
        if "MLIR_ENABLE_DUMP" in switches:
            env["MLIR_DUMP_PATH"] = str(dump_file)
        command = [sys.executable, __file__, "--child", kernel, target, str(out)]
        result = subprocess.run(command, env=env, capture_output=True, timeout=900, check=False)
        if result.returncode != 0:
            sys.exit(f"{command}: exit {result.returncode}\n{result.stderr.decode()[-3000:]}")
        named = {**switches}
        if "MLIR_ENABLE_DUMP" in switches:
            named["MLIR_DUMP_PATH"] = dump_file.name
        shown = " ".join(f"{k}={v}" for k, v in sorted(named.items()))
        line = f"{shown} python scripts/make_triton_fixtures.py --child {kernel} {target} OUT"
        if stderr_name:
            (out / f"{tag(kernel, target)}.{stderr_name}.txt").write_bytes(result.stderr)
            line += f" 2> {tag(kernel, target)}.{stderr_name}.txt"
        COMMANDS.append(line)


def child(kernel: str, target: str, out: Path) -> None:
    """Compile tests/kernels/upstream/<kernel>.py for `target`; write its stage files."""
    sys.path.insert(0, str(ROOT))
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from ascend_ir_lab.toolchains.common.kernels import load_kernel
    from ascend_ir_lab.toolchains.triton.compile import compile_spec, parse_target

    spec, sig, consts = compile_spec(str(KERNELS / f"{kernel}.py"))
    fn = load_kernel(spec)
    full = {**sig, **{k: "constexpr" for k in consts}}
    attrs = {(i,): [["tt.divisibility", 16]] for i, t in enumerate(full.values()) if t[0] == "*"}
    backend, arch, warp = parse_target(target)
    compiled = triton.compile(
        ASTSource(fn, full, constexprs=consts, attrs=attrs), target=GPUTarget(backend, arch, warp)
    )
    for ext in ("ttir", "ttgir", "llir", "ptx", "amdgcn"):
        if ext in compiled.asm:
            (out / f"{tag(kernel, target)}.{ext}").write_text(compiled.asm[ext])


def make_runs(out: Path) -> None:
    """Runs written by ascend_ir_lab's toolchain (the Run folder format)."""
    from ascend_ir_lab.toolchains.triton.compile import compile_kernel, compile_spec

    for kernel, target, llvm in (("softmax", "cuda:90", True), ("attention", "cuda:90", False)):
        spec, sig, consts = compile_spec(str(KERNELS / f"{kernel}.py"))
        name = f"{tag(kernel, target)}" + ("" if llvm else ".mlir-only")
        folder = out / "runs" / name
        compile_kernel(
            spec,
            signature=sig,
            constexprs=consts,
            target=target,
            llvm_dumps=llvm,
            out=folder,
            name=name,
        )
        tidy_run(folder)
        COMMANDS.append(
            f"compile_kernel({spec!r}, target={target!r}, llvm_dumps={llvm}) -> runs/{name}"
        )


def tidy_run(folder: Path) -> None:
    """Gzip big logs (run.json follows) and drop the machine-specific cache path."""
    manifest = json.loads((folder / "run.json").read_text())
    for stage in manifest["stages"]:
        log = folder / stage["log"]
        if log.stat().st_size > GZIP_OVER:
            stage["log"] = gzip_file(log).relative_to(folder).as_posix()
    manifest.get("env", {}).pop("TRITON_CACHE_DIR", None)
    (folder / "run.json").write_text(json.dumps(manifest, indent=2) + "\n")


def make_opt(out: Path, tool: str) -> None:
    """bishengir-opt logs (raw) and an opt Run."""
    from ascend_ir_lab.toolchains.common.opt import find_opt_tool, run_opt

    exe = find_opt_tool(tool)
    source = out / OPT_INPUT
    for name, pipeline in (("after-all", OPT_PIPELINE), ("failed", OPT_FAILING)):
        log = out / "opt" / f"bishengir-opt.{name}.log"
        argv = [
            str(exe),
            str(source),
            f"--pass-pipeline={pipeline}",
            "--mlir-print-ir-after-all",
            "--mlir-timing",
            "-o",
            os.devnull,
        ]
        with open(log, "wb") as fh:
            subprocess.run(
                argv,
                stdout=fh,
                stderr=subprocess.STDOUT,
                env=clean_env({}),
                cwd=source.parent,
                timeout=300,
                check=False,
            )
        COMMANDS.append(
            f"bishengir-opt {OPT_INPUT} '--pass-pipeline={pipeline}' "
            f"--mlir-print-ir-after-all --mlir-timing -o /dev/null > {log.name} 2>&1"
        )
    run_opt(
        exe,
        source,
        OPT_PIPELINE,
        out=out / "runs" / "softmax_linalg.bishengir-opt",
        name="softmax_linalg.bishengir-opt",
    )
    COMMANDS.append(
        f"run_opt('bishengir-opt', {OPT_INPUT!r}, OPT_PIPELINE) "
        "-> runs/softmax_linalg.bishengir-opt"
    )


def gzip_file(path: Path) -> Path:
    target = path.with_name(path.name + ".gz")
    with (
        open(path, "rb") as src,
        open(target, "wb") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as dst,
    ):
        shutil.copyfileobj(src, dst)
    path.unlink()
    return target


def count_dumps(path: Path) -> int:
    data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return data.count(b"IR Dump")


def version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed here"


def write_manifest(out: Path, part: str) -> None:
    manifest = out / "MANIFEST.md"
    old = manifest.read_text() if manifest.is_file() else ""
    keep = (
        old.split("<!-- commands -->")[1].split("<!-- /commands -->")[0]
        if "<!-- commands -->" in old
        else ""
    )
    sections = {p: s for p, s in _sections(keep).items() if p != part}
    sections[part] = "\n".join(f"    {c}" for c in COMMANDS)
    rows = []
    for f in sorted(p for p in out.rglob("*") if p.is_file() and p.name != "MANIFEST.md"):
        rel = f.relative_to(out).as_posix()
        rows.append(f"| {rel} | {f.stat().st_size} | {count_dumps(f)} |")
    text = [
        "# tests/data/triton: real upstream-Triton and bishengir-opt outputs",
        "",
        "Regenerate: `.venv-gpu/bin/python scripts/make_triton_fixtures.py --part triton` "
        "and `.venv/bin/python scripts/make_triton_fixtures.py --part opt` "
        "(see scripts/make_triton_fixtures.py; files over 600 KB are gzipped).",
        "",
        f"Versions (last part written, `{part}`): triton {version('triton')}, "
        f"ascendnpu-ir {version('ascendnpu-ir')}, python {sys.version.split()[0]}.",
        "Kernels: tests/kernels/upstream/softmax.py, attention.py (their COMPILE dicts).",
        "Cross-compiled on a CPU-only machine (`GPUTarget('cuda', 90, 32)`, "
        "`GPUTarget('hip', 'gfx942', 64)`).",
        "",
        "## Commands",
        "<!-- commands -->",
        *[f"### {p}\n{s}\n" for p, s in sorted(sections.items())],
        "<!-- /commands -->",
        "",
        "## Files (bytes; `IR Dump` = `grep -c 'IR Dump'` on the decompressed text, "
        "counted as occurrences)",
        "",
        "| file | bytes | IR Dump |",
        "| --- | ---: | ---: |",
        *rows,
        "",
        f"Total: {sum(p.stat().st_size for p in out.rglob('*') if p.is_file())} bytes.",
        "",
    ]
    manifest.write_text("\n".join(text))


def _sections(block: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for chunk in block.split("### ")[1:]:
        head, _, body = chunk.partition("\n")
        found[head.strip()] = body.rstrip("\n")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "data" / "triton")
    parser.add_argument("--part", choices=("triton", "opt"), default="triton")
    parser.add_argument("--bishengir-opt", default="bishengir-opt")
    parser.add_argument("--child", nargs=3, metavar=("KERNEL", "TARGET", "OUT"))
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], Path(args.child[2]))
        return 0
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT))
    if args.part == "triton":
        for kernel, target, switches, stderr_name in RAW_RUNS:
            raw_run(out, kernel, target, switches, stderr_name)
        for f in list(out.glob("*.txt")):
            if f.stat().st_size > GZIP_OVER:
                gzip_file(f)
        make_runs(out)
    else:
        make_opt(out, args.bishengir_opt)
    write_manifest(out, args.part)
    return 0


if __name__ == "__main__":
    sys.exit(main())
