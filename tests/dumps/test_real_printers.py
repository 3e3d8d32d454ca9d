"""The real printers in every printing mode they have, each log read and held against what
the printer printed (tests/dumps/printer_oracle.py): LLVM's `opt` and `llc`, bishengir-compile
(checked against its own `--mlir-print-ir-tree-dir` files) and triton-adapter-opt. A tool
that is not installed skips its cases; bench/check_printers.py adds upstream Triton's dumps."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ascend_ir_lab.dumps import open_timeline, read_log
from ascend_ir_lab.errors import ToolNotFoundError
from ascend_ir_lab.toolchains.ascend import options
from ascend_ir_lab.toolchains.common.tools import find_tool
from tests.conftest import ASCEND, DATA
from tests.dumps import printer_oracle as oracle

PIPELINE = (
    "-passes=function(sroa,instsimplify),cgscc(inline),function(loop-mssa(licm),"
    "loop(loop-rotate,indvars,loop-deletion),simplifycfg),globaldce"
)
LEGACY = ["-enable-new-pm=0", "-sroa", "-instsimplify", "-inline", "-licm", "-loop-rotate"]
OPT_MODES = {
    "after-all": [PIPELINE, "-print-after-all"],
    "before-all": [PIPELINE, "-print-before-all"],
    "module-scope": [PIPELINE, "-print-after-all", "-print-module-scope"],
    "before-and-after, filtered": [PIPELINE, "-print-before-all", "-print-after-all",
                                   "-print-module-scope", "-filter-print-funcs=caller"],
    "print-after=, print-before=": [PIPELINE, "-print-after=licm,instsimplify", "-print-before=sroa"],
    "print-changed": [PIPELINE, "-print-changed"],
    "print-changed=quiet": [PIPELINE, "-print-changed=quiet"],
    "print-changed=diff": [PIPELINE, "-print-changed=diff"],
    "print-changed=diff-quiet": [PIPELINE, "-print-changed=diff-quiet"],
    "print-changed=cdiff": [PIPELINE, "-print-changed=cdiff"],
    "print-changed=cdiff-quiet": [PIPELINE, "-print-changed=cdiff-quiet"],
    "print-changed=diff, module scope": [PIPELINE, "-print-changed=diff", "-print-module-scope"],
    "print-before-changed": [PIPELINE, "-print-changed", "-print-before-changed"],
    "print-changed, filter-passes": [PIPELINE, "-print-changed", "-filter-passes=SROAPass"],
    "debug-pass-manager": [PIPELINE, "-print-after-all", "-debug-pass-manager=verbose"],
    "opt-bisect-limit": [PIPELINE, "-print-after-all", "-opt-bisect-limit=5"],
    "time-passes": [PIPELINE, "-print-after-all", "-time-passes"],
    "legacy after-all": [*LEGACY, "-indvars", "-simplifycfg", "-print-after-all"],
    "legacy before-all, module scope": [*LEGACY, "-print-before-all", "-print-module-scope"],
    "legacy debug-pass=Executions": [*LEGACY, "-print-after-all", "-debug-pass=Executions"],
    "legacy debug-pass=Details": [*LEGACY, "-print-after-all", "-debug-pass=Details"],
    "legacy opt-bisect-limit": [*LEGACY, "-print-after-all", "-opt-bisect-limit=3"],
}  # fmt: skip
LLC_MODES = {
    "llc after-all": ["-O2", "-print-after-all"],
    "llc module scope": ["-O1", "-print-after-all", "-print-module-scope"],
    "llc time-passes": ["-O1", "-time-passes", "-print-after=finalize-isel"],
    "llc debug-pass=Details": ["-O1", "-print-after-all", "-debug-pass=Details"],
    "llc assembly to stdout": ["-O1", "-print-after-all", "-o", "-"],
}


def _run(command: list[str], out: Path) -> Path:
    with out.open("wb") as f:
        subprocess.run(command, stdout=f, stderr=subprocess.STDOUT, timeout=120, check=False)
    return out


def _tool(name: str) -> str:
    try:
        return str(find_tool(name))
    except ToolNotFoundError:
        pytest.skip(f"{name} is not installed")


@pytest.mark.parametrize("mode", list(OPT_MODES) + list(LLC_MODES))
def test_llvm_printers(mode: str, tmp_path: Path) -> None:
    tool = "opt" if mode in OPT_MODES else "llc"
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")
    src = DATA / "llvm" / "loop.ll"
    flags = OPT_MODES.get(mode) or LLC_MODES[mode]
    tail = ["-disable-output", str(src)] if tool == "opt" else [str(src), "-o", "/dev/null"]
    if "-o" in flags:  # the output printed into the log too (to stdout, flushed at exit)
        tail = [str(src)]
    log = _run([tool, *flags, *tail], tmp_path / "printed.log")
    bodies, messages = oracle.split_llvm(log.read_bytes())
    assert bodies, f"{mode}: the printer printed no dump"
    assert oracle.misreads(read_log(log), bodies, messages) == []


BISHENGIR_MODES = {
    "after-all": ["--mlir-print-ir-after-all"],
    "before-all": ["--mlir-print-ir-before-all"],
    "after-change": ["--mlir-print-ir-after-all", "--mlir-print-ir-after-change"],
    "module scope": ["--mlir-print-ir-after-all", "--mlir-print-ir-module-scope"],
    "local scope": ["--mlir-print-ir-after-all", "--mlir-print-local-scope"],
    "debuginfo": ["--mlir-print-ir-after-all", "--mlir-print-debuginfo"],
    "pretty debuginfo": ["--mlir-print-ir-after-all", "--mlir-print-debuginfo",
                         "--mlir-pretty-debuginfo"],
    "generic": ["--mlir-print-ir-after-all", "--mlir-print-op-generic"],
    "elided elements": ["--mlir-print-ir-after-all", "-mlir-elide-elementsattrs-if-larger=2"],
    "value users": ["--mlir-print-ir-after-all", "--mlir-print-value-users"],
    "skip regions": ["--mlir-print-ir-after-all", "--mlir-print-skip-regions"],
    "before=, after=": ["--mlir-print-ir-before=cse", "--mlir-print-ir-after=canonicalize"],
    # bishengir's own switches (passes on a list of its own), printed as MLIR prints
    "bishengir-print-ir-before/after": ["--bishengir-print-ir-before=hivm-graph-sync-solver",
                                        "--bishengir-print-ir-after=hivm-graph-sync-solver"],
}  # fmt: skip
# Modes the tree-dir does not check: use lists in another order from run to run, or
# bishengir's own switches, which print to stderr only.
NO_TREE = ("value users", "bishengir-print-ir-before/after")


@pytest.mark.parametrize("mode", BISHENGIR_MODES)
def test_bishengir_compile_against_its_tree_dir(mode: str, tmp_path: Path) -> None:
    tool = _tool("bishengir-compile")
    text, _ = options.bishengir_input((ASCEND / "vadd.ttadapter").read_text())
    (tmp_path / "vadd.mlir").write_text(text)
    base = [tool, str(tmp_path / "vadd.mlir"), "--target=Ascend910B3",
            "--enable-hfusion-compile=true", "--enable-hivm-compile=true",
            "--enable-triton-kernel-compile=true", "-o", str(tmp_path / "kernel"),
            "--mlir-disable-threading", *BISHENGIR_MODES[mode]]  # fmt: skip
    # (threads printing at once may interleave their dumps on stderr: no printer's form)
    log = _run(base, tmp_path / "printed.log")
    tree = tmp_path / "tree"
    _run([*base, f"--mlir-print-ir-tree-dir={tree}"], tmp_path / "tree.log")
    tl = read_log(log)
    assert tl.dumps, f"{mode}: no dump read"
    bodies, messages = oracle.split_mlir(log.read_bytes())
    assert oracle.misreads(tl, bodies, messages) == []
    if mode not in NO_TREE:
        assert oracle.tree_misreads(tl, tree) == []


ADAPTER_MODES = {
    "after-all": ["--mlir-print-ir-after-all"],
    "before and after, debuginfo": ["--mlir-print-ir-before-all", "--mlir-print-ir-after-all",
                                    "--mlir-print-debuginfo", "--mlir-pretty-debuginfo"],
    "timing": ["--mlir-print-ir-after-all", "--mlir-timing"],
    "timing list": ["--mlir-print-ir-after-all", "--mlir-timing", "--mlir-timing-display=list"],
    "timing json": ["--mlir-print-ir-after-all", "--mlir-timing", "--mlir-output-format=json"],
    "statistics": ["--mlir-print-ir-after-all", "--mlir-pass-statistics"],
    "generic": ["--mlir-print-ir-after-all", "--mlir-print-op-generic"],
    "module scope, before-all, timing": ["--mlir-print-ir-before-all", "--mlir-timing",
                                         "--mlir-print-ir-module-scope", "--mlir-disable-threading"],
    # the result printed into the log too (to stdout, flushed at exit, after the last Dump)
    "result to stdout": ["--mlir-print-ir-after-all", "-o", "-"],
}  # fmt: skip


@pytest.mark.parametrize("mode", ADAPTER_MODES)
def test_triton_adapter_opt(mode: str, tmp_path: Path) -> None:
    tool = _tool("triton-adapter-opt")
    passes = ["--triton-to-annotation", "--triton-to-unstructure", "--triton-to-hivm",
              "--triton-to-hfusion", "--triton-to-llvm", "--bubble-up-operation",
              "--triton-to-linalg=global-kernel=false named-ops=True"]  # fmt: skip
    flags = ADAPTER_MODES[mode]
    command = [tool, str(ASCEND / "matmul.ttir"), *passes, *flags]
    command += [] if "-o" in flags else ["-o", "/dev/null"]
    log = _run(command, tmp_path / "printed.log")
    bodies, messages = oracle.split_mlir(log.read_bytes())
    assert bodies, f"{mode}: the printer printed no dump"
    assert oracle.misreads(read_log(log), bodies, messages) == []


NESTED = """module {
  func.func @twice(%a: i32) -> i32 {
    %0 = arith.addi %a, %a : i32
    %1 = arith.addi %a, %a : i32
    %2 = arith.muli %0, %1 : i32
    return %2 : i32
  }
  func.func @noop() {
    return
  }
}
"""


def test_tree_dir_of_a_pipeline_anchored_below_the_module(tmp_path: Path) -> None:
    """`builtin.module(func.func(cse,canonicalize))` runs no pass on the module: its folder
    in the tree holds only the functions' folders, whose files are still every Dump."""
    tool = _tool("bishengir-opt")
    (tmp_path / "k.mlir").write_text(NESTED)
    base = [tool, str(tmp_path / "k.mlir"), "--pass-pipeline=builtin.module(func.func(cse,canonicalize))",
            "--mlir-print-ir-after-all", "--mlir-disable-threading", "-o", "/dev/null"]  # fmt: skip
    log = _run(base, tmp_path / "printed.log")
    tree = tmp_path / "tree"
    _run([*base, f"--mlir-print-ir-tree-dir={tree}"], tmp_path / "tree.log")
    assert not list(tree.glob("*/*.mlir"))  # the module's folder holds no pass file
    printed = read_log(log)
    assert oracle.misreads(printed, *oracle.split_mlir(log.read_bytes())) == []
    assert oracle.tree_misreads(printed, tree) == []
    tl = open_timeline(tree)
    assert sorted((d.label, d.scope) for d in tl.dumps) == [
        ("canonicalize", "func.func @noop"), ("canonicalize", "func.func @twice"),
        ("cse", "func.func @noop"), ("cse", "func.func @twice"),
    ]  # fmt: skip


def test_a_folder_beside_a_tree_dir_is_no_tree_dir(tmp_path: Path) -> None:
    """A tree-dir one level down (a data folder with a kernel's stage files and its tree
    beside them) does not make the folder one: op folders are entered only below op folders."""
    op = tmp_path / "data" / "vadd.tree" / "builtin_module_no-symbol-name" / "func_func_vadd"
    op.mkdir(parents=True)
    (op / "0_0_cse.mlir").write_text(
        "// -----// IR Dump After CSE (cse) //----- //\nfunc.func @vadd() {\n  return\n}\n\n"
    )
    (tmp_path / "data" / "vadd.ttir").write_text("module {\n}\n")
    assert [d.phase for d in open_timeline(tmp_path / "data").dumps] == ["artifact"]
    assert [d.scope for d in open_timeline(tmp_path / "data" / "vadd.tree").dumps] == [
        "func.func @vadd"
    ]
