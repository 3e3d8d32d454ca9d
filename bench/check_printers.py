"""Every real printer in every printing mode, each log read and held against what the printer
printed: how many logs the reader misreads (a Dump's text not the body printed, a Dump lost or
made up, a message swallowed into IR or IR taken for a message, a complete Dump flagged
truncated).

    PYTHONPATH=$PWD python bench/check_printers.py [--no-triton]

The tools: LLVM's opt and llc, bishengir-compile (also against its own
--mlir-print-ir-tree-dir files), triton-adapter-opt, and upstream Triton (the `.venv-gpu`
next to this checkout, compiling for cuda:90 with no GPU) with its dump switches. Modes of a
tool that is not installed are skipped. The same modes, bar Triton's, run as tests in
tests/dumps/test_real_printers.py; the oracle is tests/dumps/printer_oracle.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import DATA, ROOT

sys.path.insert(0, str(ROOT))

from ascend_ir_lab.dumps import read_log  # noqa: E402
from ascend_ir_lab.errors import ToolNotFoundError  # noqa: E402
from ascend_ir_lab.toolchains.ascend import options  # noqa: E402
from ascend_ir_lab.toolchains.common.tools import find_tool  # noqa: E402
from tests.dumps import printer_oracle as oracle  # noqa: E402
from tests.dumps import test_real_printers as modes  # noqa: E402

TRITON_MODES = {
    "MLIR_ENABLE_DUMP=1 LLVM_IR_ENABLE_DUMP=1": {"MLIR_ENABLE_DUMP": "1", "LLVM_IR_ENABLE_DUMP": "1"},
    "MLIR_ENABLE_DUMP=1 LLVM_IR_ENABLE_DUMP=1 NVPTX_ENABLE_DUMP=1": {
        "MLIR_ENABLE_DUMP": "1", "LLVM_IR_ENABLE_DUMP": "1", "NVPTX_ENABLE_DUMP": "1"},
    "MLIR_ENABLE_DUMP=1 MLIR_ENABLE_TIMING=1 LLVM_ENABLE_TIMING=1": {
        "MLIR_ENABLE_DUMP": "1", "MLIR_ENABLE_TIMING": "1", "LLVM_ENABLE_TIMING": "1"},
    "MLIR_ENABLE_DUMP=1 MLIR_ENABLE_DIAGNOSTICS=remarks,operations": {
        "MLIR_ENABLE_DUMP": "1", "MLIR_ENABLE_DIAGNOSTICS": "remarks,operations"},
    "MLIR_ENABLE_DUMP=softmax_kernel": {"MLIR_ENABLE_DUMP": "softmax_kernel"},
    "LLVM_IR_ENABLE_DUMP=1 TRITON_ENABLE_LLVM_DEBUG=1 TRITON_LLVM_DEBUG_ONLY=...": {
        "LLVM_IR_ENABLE_DUMP": "1", "TRITON_ENABLE_LLVM_DEBUG": "1",
        "TRITON_LLVM_DEBUG_ONLY": "tritongpu-coalesce,isel"},
    "MLIR_ENABLE_DUMP=1 TRITON_LLVM_DEBUG_ONLY=dialect-conversion,greedy-rewriter": {
        "MLIR_ENABLE_DUMP": "1", "TRITON_ENABLE_LLVM_DEBUG": "1",
        "TRITON_LLVM_DEBUG_ONLY": "dialect-conversion,greedy-rewriter"},
}  # fmt: skip


def _run(command: list[str], out: Path, env: dict[str, str] | None = None) -> Path:
    with out.open("wb") as f:
        subprocess.run(command, stdout=f, stderr=subprocess.STDOUT, env=env, timeout=900,
                       check=False)  # fmt: skip
    return out


def _tool(name: str) -> str | None:
    try:
        return str(find_tool(name))
    except ToolNotFoundError:
        return shutil.which(name)


def _split_mixed(data: bytes) -> tuple[list[bytes], list[bytes]]:
    """Triton's stderr: MLIR dumps first, then LLVM's (`; *** IR Dump`)."""
    k = data.find(b"\n; *** IR Dump") + 1
    if not k:
        return oracle.split_mlir(data)
    mb, mm = oracle.split_mlir(data[:k])
    lb, lm = oracle.split_llvm(data[k:])
    return mb + lb, mm + lm


Result = list[tuple[str, list[str]]]


def llvm_cases(work: Path) -> Result:
    out: Result = []
    src = DATA / "llvm" / "loop.ll"
    for tool, table in (("opt", modes.OPT_MODES), ("llc", modes.LLC_MODES)):
        if shutil.which(tool) is None:
            continue
        for mode, flags in table.items():
            tail = ["-disable-output", str(src)] if tool == "opt" else [str(src), "-o", "/dev/null"]
            if "-o" in flags:  # the output printed into the log too
                tail = [str(src)]
            log = _run([tool, *flags, *tail], work / "llvm.log")
            bad = oracle.misreads(read_log(log), *oracle.split_llvm(log.read_bytes()))
            out.append((f"{tool} {mode}", bad))
    return out


def bishengir_cases(work: Path) -> Result:
    out: Result = []
    bisheng = _tool("bishengir-compile")
    if not bisheng:
        return out
    text, _ = options.bishengir_input((DATA / "ascend" / "vadd.ttadapter").read_text())
    (work / "vadd.mlir").write_text(text)
    for mode, flags in modes.BISHENGIR_MODES.items():
        base = [bisheng, str(work / "vadd.mlir"), "--target=Ascend910B3",
                "--enable-hfusion-compile=true", "--enable-hivm-compile=true",
                "--enable-triton-kernel-compile=true", "-o", str(work / "kernel"),
                "--mlir-disable-threading", *flags]  # fmt: skip
        log = _run(base, work / "bishengir.log")
        tree = work / f"tree-{len(out)}"
        _run([*base, f"--mlir-print-ir-tree-dir={tree}"], work / "tree.log")
        tl = read_log(log)
        bad = oracle.misreads(tl, *oracle.split_mlir(log.read_bytes()))
        if mode not in modes.NO_TREE:
            bad += oracle.tree_misreads(tl, tree)
        out.append((f"bishengir-compile {mode}", bad))
    return out


def adapter_cases(work: Path) -> Result:
    out: Result = []
    adapter = _tool("triton-adapter-opt")
    if not adapter:
        return out
    passes = ["--triton-to-annotation", "--triton-to-unstructure", "--triton-to-hivm",
              "--triton-to-hfusion", "--triton-to-llvm", "--bubble-up-operation",
              "--triton-to-linalg=global-kernel=false named-ops=True"]  # fmt: skip
    for mode, flags in modes.ADAPTER_MODES.items():
        cmd = [adapter, str(DATA / "ascend" / "matmul.ttir"), *passes, *flags]
        cmd += [] if "-o" in flags else ["-o", "/dev/null"]
        log = _run(cmd, work / "adapter.log")
        bad = oracle.misreads(read_log(log), *oracle.split_mlir(log.read_bytes()))
        out.append((f"triton-adapter-opt {mode}", bad))
    return out


def triton_cases(work: Path) -> Result:
    out: Result = []
    gpu = ROOT / ".venv-gpu" / "bin" / "python"
    if not gpu.exists():
        return out
    for mode, switches in TRITON_MODES.items():
        env = {
            k: v for k, v in os.environ.items() if not k.startswith(("TRITON_", "MLIR_", "LLVM_"))
        }
        env.update(switches, TRITON_CACHE_DIR=str(work / f"cache-{len(out)}"))
        cmd = [str(gpu), str(ROOT / "scripts" / "make_triton_fixtures.py"), "--child",
               "softmax", "cuda:90", str(work)]  # fmt: skip
        log = _run(cmd, work / "triton.log", env)
        out.append(
            (f"triton {mode}", oracle.misreads(read_log(log), *_split_mixed(log.read_bytes())))
        )
    return out


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="check-printers-") as tmp:
        work = Path(tmp)
        results = llvm_cases(work) + bishengir_cases(work) + adapter_cases(work)
        if "--no-triton" not in sys.argv:
            results += triton_cases(work)
    for name, bad in results:
        print(f"{'ok ' if not bad else 'BAD'} {name:<62} {bad[0] if bad else ''}"[:160])
    wrong = sum(1 for _, bad in results if bad)
    print(f"{wrong} of {len(results)} logs misread")


if __name__ == "__main__":
    main()
