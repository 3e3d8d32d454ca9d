"""Regenerate the Ascend fixtures in tests/data/ascend/ with the real toolchain.

Every fixture is the unedited output of a real tool: triton-ascend
(``triton.compile`` for an ``npu`` target), its ``triton-adapter-opt``, and
``bishengir-compile`` / ``bishengir-opt`` from the ``ascendnpu-ir`` wheel.
No NPU and no CANN are needed: without CANN triton-ascend stops at the binary
stage (``NPUUtils().get_arch()`` needs ``ASCEND_HOME_PATH``) after it has
written ``.ttir`` and ``.ttadapter`` to its cache, and ``bishengir-compile``
runs its whole MLIR pipeline and then stops because ``hivmc`` is missing.

Usage (from the repository root, in the project's virtual environment)::

    python scripts/make_ascend_fixtures.py            # rebuild everything
    python scripts/make_ascend_fixtures.py --compile tests/kernels/vadd.py
        # one triton.compile call; used internally so that MLIR output
        # printed on file descriptor 2 can be captured by the parent

Logs larger than 600 KB are stored gzipped (``.gz``, reproducible bytes).
``tests/data/ascend/MANIFEST.md`` is rewritten with the exact commands,
tool versions, sizes and the number of ``IR Dump`` headers of each fixture.
"""

import argparse
import gzip
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "ascend"
KERNELS = ["vadd", "softmax", "layernorm", "matmul", "attention"]
TARGET_ARCH = "Ascend910B3"
TIMEOUT_S = 600
GZIP_ABOVE = 600 * 1024
DUMP_MARK = b"IR Dump"
# Fixed scratch paths: they show up in the logs, so fixed names keep reruns comparable.
SCRATCH = Path(tempfile.gettempdir()) / "make_ascend_fixtures"

# The options triton-ascend passes to triton-adapter-opt for an npu target
# with the default NPUOptions (backends/ascend/compiler.py, ttir_to_linalg,
# called with named_ops=True; --mlir-print-debuginfo is only added when
# TRITON_DISABLE_LINE_INFO=0 or the sanitizer is on).
ADAPTER_OPTIONS = [
    "--discrete-mask-access-conversion=compile-on-910-95=False force-simt-template=False",
    "--triton-to-annotation",
    "--triton-to-unstructure=compile-on-910-95=False force-simt-template=False",
    "--triton-to-hivm",
    "--triton-to-hfusion",
    "--triton-to-llvm",
    "--bubble-up-operation",
    "--triton-to-linalg=global-kernel=false named-ops=True enable-nd2nz-on-vector=False "
    "enable-select-analysis=False compile-on-910-95=False",
]

# The options triton-ascend passes to bishengir-compile for A2/A3 targets with
# the default NPUOptions (compiler.py, linalg_to_bin_enable_npu_compile_A2_A3).
BISHENGIR_OPTIONS = [
    f"--target={TARGET_ARCH}",
    "--enable-auto-multi-buffer=True",
    "--enable-auto-bind-sub-block=True",
    "--enable-hfusion-compile=true",
    "--enable-hivm-compile=true",
    "--enable-triton-kernel-compile=true",
]
AFTER_ALL = ["--mlir-print-ir-after-all"]
MODULE_SCOPE = ["--mlir-print-ir-module-scope", "--mlir-disable-threading"]


def triton_dir():
    """Directory of the installed ``triton`` package (without importing it)."""
    spec = importlib.util.find_spec("triton")
    return Path(spec.origin).parent


def tools():
    """Paths of the command-line tools, keyed by their short names."""
    npuir_bin = triton_dir().parent / "ascendnpuir" / "bin"
    return {
        "triton-adapter-opt": triton_dir() / "backends" / "ascend" / "triton-adapter-opt",
        "bishengir-compile": npuir_bin / "bishengir-compile",
        "bishengir-opt": npuir_bin / "bishengir-opt",
    }


def scratch_dir(name):
    """An empty folder SCRATCH/name."""
    path = SCRATCH / name
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def clean_env(**extra):
    """Environment without inherited MLIR/Triton switches, with the npuir tools on PATH."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("MLIR_", "TRITON_", "LLVM_IR_"))
    }
    npuir_bin = str(tools()["bishengir-compile"].parent)
    env["PATH"] = npuir_bin + os.pathsep + env.get("PATH", "")
    env.update(extra)
    return env


# --------------------------------------------------------------------------
# triton.compile, run in a child process


def load_kernel(kernel_path, config_name):
    """Import a kernel file; return its jit function and compile description."""
    spec = importlib.util.spec_from_file_location(Path(kernel_path).stem, kernel_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    config = getattr(module, config_name)
    return getattr(module, config["kernel"]), config


def compile_kernel(kernel_path, config_name):
    """Compile one kernel for Ascend910B3; without CANN this raises at the binary stage."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.compiler import compile as triton_compile

    fn, config = load_kernel(kernel_path, config_name)
    signature = dict(item.split("=") for item in config["signature"].split(","))
    signature.update({name: "constexpr" for name in config["constexprs"]})
    source = ASTSource(fn, signature=signature, constants=dict(config["constexprs"]))
    triton_compile(source, target=GPUTarget("npu", TARGET_ARCH, 0))


def run_triton(kernel, config, stderr_path, **env):
    """Run ``--compile`` in a child with fd 2 going to ``stderr_path``.

    Returns the cache folder the child filled and the command shown in the
    manifest. The child is expected to fail at the npubin stage.
    """
    kernel_rel = f"tests/kernels/{kernel}.py"
    argv = [
        sys.executable,
        "scripts/make_ascend_fixtures.py",
        "--compile",
        kernel_rel,
        "--config",
        config,
    ]
    cache = scratch_dir("triton-cache")
    with open(stderr_path, "wb") as err:
        proc = subprocess.run(
            argv,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=clean_env(TRITON_CACHE_DIR=str(cache), **env),
            timeout=TIMEOUT_S,
            check=False,
        )
    folders = [p.parent for p in cache.glob(f"*/{kernel}.ttadapter")]
    if proc.returncode == 0 or len(folders) != 1:
        raise RuntimeError(
            f"{kernel}: expected exactly one cache folder with "
            f"{kernel}.ttadapter and a failing npubin stage; see {stderr_path}"
        )
    shown = " ".join(f"{k}={v}" for k, v in env.items())
    command = (
        f"{shown + ' ' if shown else ''}python scripts/make_ascend_fixtures.py "
        f"--compile {kernel_rel}" + (f" --config {config}" if config != "COMPILE" else "")
    )
    return folders[0], command


# --------------------------------------------------------------------------
# command-line tools


def run_tool(name, args, log_path, cwd=OUT):
    """Run a tool with stdout and stderr both into ``log_path`` (like ``2>&1``)."""
    argv = [str(tools()[name])] + [str(a) for a in args]
    with open(log_path, "wb") as log:
        proc = subprocess.run(
            argv, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, timeout=TIMEOUT_S, check=False
        )
    return proc.returncode, shlex.join([name] + [str(a) for a in args])


def version_line(name):
    """First line of ``TOOL --version`` (triton-adapter-opt: its LLVM line)."""
    out = subprocess.run(
        [str(tools()[name]), "--version"], capture_output=True, text=True, timeout=60, check=False
    ).stdout
    lines = [line.strip() for line in out.splitlines() if line.strip()]
    if name == "triton-adapter-opt":
        return next((line for line in lines if "version" in line), lines[0])
    return lines[0]


def expect_hivmc_error(rc, log_path):
    """Check that a bishengir-compile run stopped only because hivmc is missing."""
    text = Path(log_path).read_bytes()
    if rc != 1 or b"Cannot find hivmc under $PATH" not in text:
        raise RuntimeError(f"{log_path}: expected the hivmc error, got rc={rc}")


# --------------------------------------------------------------------------
# fixture bookkeeping


class Manifest:
    """Collects one row per fixture and writes MANIFEST.md."""

    def __init__(self):
        self.rows = []
        self.kernels = []

    def add(self, path, command, tool, note=""):
        """Gzip ``path`` if large, then record it; returns the final path."""
        path = finish(path)
        self.rows.append((path, command, tool, note))
        return path

    def write(self, versions):
        """Write tests/data/ascend/MANIFEST.md."""
        lines = [
            "# Ascend fixtures",
            "",
            "Regenerate with `python scripts/make_ascend_fixtures.py` (from the repository "
            "root, project venv). Every file is unedited output of the tool named; "
            "`.gz` files are gzip of the log (uncompressed size and dump count are of "
            "the content). Tool commands run in `tests/data/ascend/`; `-o` goes to a "
            "temporary folder. `dumps` = `grep -c 'IR Dump'`.",
            "",
            "Tool versions:",
            "",
        ]
        lines += [f"- {name}: `{line}`" for name, line in versions.items()]
        lines += [
            "",
            "| fixture | bytes (content) | dumps | tool | command | note |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for path, command, tool, note in self.rows:
            lines.append(
                f"| `{path.relative_to(OUT)}` | {describe_size(path)} | "
                f"{count_dumps(path)} | {tool} | `{command}` | {note} |"
            )
        lines += [
            "",
            "Kernels (tests/kernels/): each one compiled by triton-ascend to .ttir and "
            ".ttadapter, then by bishengir-compile with triton-ascend's options "
            "(no dump flags):",
            "",
            "| kernel | config | constexprs | .ttir bytes | .ttadapter bytes | mix_mode | "
            "bishengir-compile result |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        lines += [f"| {' | '.join(str(c) for c in row)} |" for row in self.kernels]
        (OUT / "MANIFEST.md").write_text("\n".join(lines) + "\n")


def finish(path):
    """Gzip ``path`` reproducibly when it is larger than GZIP_ABOVE."""
    path = Path(path)
    if path.is_dir() or path.stat().st_size <= GZIP_ABOVE:
        return path
    gz_path = path.with_name(path.name + ".gz")
    with open(path, "rb") as src, open(gz_path, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as dst:
            shutil.copyfileobj(src, dst)
    path.unlink()
    return gz_path


def read_content(path):
    """Bytes of a fixture file, decompressed when gzipped."""
    data = Path(path).read_bytes()
    return gzip.decompress(data) if str(path).endswith(".gz") else data


def count_dumps(path):
    """Number of lines containing ``IR Dump`` in a file or folder of files."""
    path = Path(path)
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    return sum(sum(DUMP_MARK in line for line in read_content(f).splitlines()) for f in files)


def describe_size(path):
    """Human-readable size: bytes on disk, plus content size for .gz and folders."""
    path = Path(path)
    if path.is_dir():
        files = [p for p in path.rglob("*") if p.is_file()]
        return f"{sum(p.stat().st_size for p in files)} in {len(files)} files"
    if path.suffix == ".gz":
        return f"{path.stat().st_size} gz ({len(read_content(path))})"
    return str(path.stat().st_size)


def fresh(name):
    """Remove an old fixture (plain or gzipped) and return its plain path."""
    path = OUT / name
    for old in (path, path.with_name(path.name + ".gz")):
        if old.is_dir():
            shutil.rmtree(old)
        elif old.exists():
            old.unlink()
    return path


# --------------------------------------------------------------------------
# the fixtures


def make_triton_stage(manifest):
    """vadd.ttir/.ttadapter, the cache folder, MLIR_ENABLE_DUMP/TIMING logs, all kernels' IR."""
    scratch = scratch_dir("work")
    for kernel in KERNELS:
        folder, command = run_triton(kernel, "COMPILE", scratch / f"{kernel}.stderr")
        for ext in ("ttir", "ttadapter"):
            dst = fresh(f"{kernel}.{ext}")
            shutil.copyfile(folder / f"{kernel}.{ext}", dst)
            manifest.add(dst, command, "triton-ascend", f"copied from the triton cache {ext} stage")
        if kernel == "vadd":
            cache_dst = fresh("cache")
            shutil.copytree(folder, cache_dst / folder.name)
            manifest.add(
                cache_dst / folder.name,
                f"TRITON_CACHE_DIR=DIR {command}",
                "triton-ascend",
                "whole cache folder; no .json metadata or binary because "
                "compilation stops at the npubin stage before they are written",
            )

    folder, command = run_triton("matmul", "COMPILE_UB_OVERFLOW", scratch / "mm.stderr")
    dst = fresh("matmul.ub-overflow.ttadapter")
    shutil.copyfile(folder / "matmul.ttadapter", dst)
    manifest.add(dst, command, "triton-ascend", "matmul with 64x64x32 tiles (input of failed.log)")

    log = fresh("vadd.ttir-passes.log")
    _, command = run_triton("vadd", "COMPILE", log, MLIR_ENABLE_DUMP="1")
    manifest.add(
        log,
        f"{command} 2> {log.name}",
        "triton-ascend",
        "fd 2 of the compiling process: module-scope IR Dump Before of the TTIR "
        "passes, then the Python traceback of the expected npubin failure",
    )

    log = fresh("vadd.ttir-timing.log")
    _, command = run_triton("vadd", "COMPILE", log, MLIR_ENABLE_TIMING="1")
    manifest.add(
        log,
        f"{command} 2> {log.name}",
        "triton-ascend",
        "fd 2: MLIR execution time report of the TTIR passes, then the traceback",
    )


def make_tool_logs(manifest):
    """Logs of triton-adapter-opt, bishengir-compile and bishengir-opt."""
    scratch = scratch_dir("work")
    out_file = scratch / "kernel"

    log = fresh("vadd.adapter.log")
    rc, command = run_tool(
        "triton-adapter-opt",
        ["vadd.ttir"] + ADAPTER_OPTIONS + ["-o", scratch / "vadd.ttadapter"] + AFTER_ALL,
        log,
    )
    same = (scratch / "vadd.ttadapter").read_bytes() == (OUT / "vadd.ttadapter").read_bytes()
    manifest.add(
        log,
        f"{command} > {log.name} 2>&1",
        "triton-adapter-opt",
        f"rc={rc}; its -o output {'equals' if same else 'DIFFERS from'} vadd.ttadapter",
    )

    def bishengir(name, source, extra, note, check=True):
        log = fresh(name)
        rc, command = run_tool(
            "bishengir-compile", [source] + BISHENGIR_OPTIONS + ["-o", out_file] + extra, log
        )
        if check:
            expect_hivmc_error(rc, log)
        elif rc == 0 or b"ub overflow" not in log.read_bytes():
            raise RuntimeError(f"{log}: expected the ub overflow failure, got rc={rc}")
        manifest.add(log, f"{command} > {name} 2>&1", "bishengir-compile", f"rc={rc}; {note}")

    bishengir("vadd.bishengir.log", "vadd.ttadapter", AFTER_ALL, "ends with the hivmc error")
    bishengir(
        "vadd.bishengir.module-scope.log",
        "vadd.ttadapter",
        AFTER_ALL + MODULE_SCOPE,
        "module-scope headers carry an ('op' operation) suffix",
    )
    bishengir(
        "matmul.bishengir.log",
        "matmul.ttadapter",
        AFTER_ALL + MODULE_SCOPE,
        "module scope; fine-grained sync (set_flag/wait_flag)",
    )
    bishengir(
        "matmul.bishengir.barrier-all.log",
        "matmul.ttadapter",
        AFTER_ALL + MODULE_SCOPE + ["--enable-hivm-inject-barrier-all-sync=true"],
        "module scope; pipe_barrier[<PIPE_ALL>] instead of set_flag/wait_flag",
    )
    bishengir(
        "softmax.bishengir.before-all.log",
        "softmax.ttadapter",
        ["--mlir-print-ir-before-all"],
        "IR Dump Before of every pass",
    )
    bishengir(
        "failed.log",
        "matmul.ub-overflow.ttadapter",
        ["--mlir-print-ir-after-failure"],
        "hivm-plan-memory fails with 'ub overflow' three times (bishengir-compile "
        "retries without multi-buffer and code motion); no hivmc error",
        check=False,
    )
    bishengir(
        "matmul.ub-overflow.bishengir.log",
        "matmul.ub-overflow.ttadapter",
        AFTER_ALL + ["--mlir-disable-threading"],
        "after-all of the failing compile: the HIVM passes run three times",
        check=False,
    )

    tree = fresh("vadd.bishengir.tree")
    log = fresh("vadd.bishengir.tree.stderr.log")
    rc, command = run_tool(
        "bishengir-compile",
        ["vadd.ttadapter"]
        + BISHENGIR_OPTIONS
        + ["-o", out_file]
        + AFTER_ALL
        + [f"--mlir-print-ir-tree-dir={tree.name}"],
        log,
    )
    expect_hivmc_error(rc, log)
    manifest.add(tree, command, "bishengir-compile", "one file per dump")
    manifest.add(
        log,
        f"{command} > {log.name} 2>&1",
        "bishengir-compile",
        f"rc={rc}; what the tree-dir run prints",
    )

    log = fresh("vadd.bishengir-opt.timing.log")
    rc, command = run_tool(
        "bishengir-opt",
        [
            "vadd.ttadapter",
            "--lower-hfusion-pipeline",
            "--mlir-timing",
            "-o",
            scratch / "vadd.hfusion.mlir",
        ],
        log,
    )
    manifest.add(log, f"{command} > {log.name} 2>&1", "bishengir-opt", f"rc={rc}")

    def printed_to_stdout(name: str, args: list[str | Path], note: str) -> None:
        """bishengir-opt with every pass printed and no -o: its result goes to stdout."""
        log = fresh(name)
        flags = ["--mlir-print-ir-after-all", "--mlir-disable-threading"]
        rc, command = run_tool("bishengir-opt", [*args, *flags], log)
        manifest.add(log, f"{command} > {log.name} 2>&1", "bishengir-opt", f"rc={rc}; {note}")

    printed_to_stdout(
        "vadd.bishengir-opt.stdout.log",
        ["vadd.ttadapter", "--pass-pipeline=builtin.module(cse,func.func(cse,canonicalize))"],
        "no -o: the result follows the last dump (a function's, one blank line after it)",
    )

    # four chunks, no -o: stdout (results) flushed in blocks between the dumps on stderr
    chunks = scratch / "split4.mlir"
    chunks.write_text(
        "".join(
            (OUT / f"{k}.ttadapter").read_text() + "// -----\n"
            for k in ("vadd", "softmax", "vadd", "softmax")
        )
    )
    printed_to_stdout(
        "split4.bishengir-opt.stdout.log",
        [chunks, "--split-input-file", "--pass-pipeline=builtin.module(func.func(canonicalize))"],
        f"{chunks.name} = vadd, softmax, vadd, softmax .ttadapter, each followed by "
        "`// -----`; no -o: the results, flushed in 4 KiB blocks, glued to dump headers",
    )


def check_kernels(manifest):
    """Run bishengir-compile (no dumps) on every kernel and record how it ends."""
    scratch = scratch_dir("work")
    for kernel in KERNELS:
        log = scratch / f"{kernel}.log"
        rc, _ = run_tool(
            "bishengir-compile",
            [f"{kernel}.ttadapter"] + BISHENGIR_OPTIONS + ["-o", scratch / "k"],
            log,
        )
        expect_hivmc_error(rc, log)
        _, config = load_kernel(ROOT / "tests" / "kernels" / f"{kernel}.py", "COMPILE")
        adapter = (OUT / f"{kernel}.ttadapter").read_text()
        mix_mode = adapter.split('mix_mode = "', 1)[1].split('"', 1)[0]
        manifest.kernels.append(
            (
                kernel,
                "COMPILE",
                config["constexprs"],
                (OUT / f"{kernel}.ttir").stat().st_size,
                len(adapter),
                mix_mode,
                f"rc={rc}, hivmc error",
            )
        )


def main():
    """Parse arguments; either compile one kernel or rebuild all fixtures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--compile", metavar="KERNEL_PY", help="only run triton.compile on this kernel file"
    )
    parser.add_argument(
        "--config",
        default="COMPILE",
        help="name of the kernel file's compile dict (default COMPILE)",
    )
    args = parser.parse_args()
    if args.compile:
        compile_kernel(args.compile, args.config)
        return
    OUT.mkdir(parents=True, exist_ok=True)
    manifest = Manifest()
    make_triton_stage(manifest)
    make_tool_logs(manifest)
    check_kernels(manifest)
    import triton

    versions = {"triton-ascend (import triton)": triton.__version__}
    versions.update({name: version_line(name) for name in tools()})
    manifest.write(versions)
    shutil.rmtree(SCRATCH)
    for path, *_ in manifest.rows:
        print(f"{describe_size(path):>28}  {count_dumps(path):>5} dumps  {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
