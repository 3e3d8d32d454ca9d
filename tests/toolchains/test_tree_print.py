"""bishengir-compile printing every pass into a tree-dir gives the stage log the stderr printing
gives, dump for dump; where the tree may not (a message among the passes, counts that do not
add up) the stage prints to stderr again and says why. The compiles are the real tools; the
fallback uses a stand-in bishengir-compile (the real one prints no message mid-pipeline on
demand)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from ascend_ir_lab.toolchains.ascend import compile as compile_mod
from ascend_ir_lab.toolchains.ascend.compile import compile_kernel
from ascend_ir_lab.toolchains.ascend.tree_print import prints_to_tree
from ascend_ir_lab.toolchains.common.tools import find_tool
from tests.toolchains.conftest import kernel_spec, needs_ascend


def _compile(out: Path, name: str = "vadd", **kw: object) -> object:
    info = kernel_spec(name)
    return compile_kernel(info["spec"], signature=info["signature"],
                          constexprs=info["constexprs"], out=out, **kw)  # fmt: skip


def _dumps(log: bytes) -> list[bytes]:
    """The log's dumps, sorted, without the lines bishengir prints about hivmc (printed
    outside the passes: the stderr log has them among the dumps, the tree's log after)."""
    lines = [ln for ln in log.splitlines(keepends=True) if b"hivmc" not in ln
             and b"Failed to run BiShengIR pipeline" not in ln]  # fmt: skip
    return sorted(b"".join(lines).split(b"// -----// IR Dump")[1:])


@needs_ascend
@pytest.mark.parametrize("module_scope", [True, False])
def test_the_tree_gives_the_logs_dumps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       module_scope: bool) -> None:  # fmt: skip
    tree = _compile(tmp_path / "tree", module_scope=module_scope, line_info=True)
    stage = tree.stage("bishengir")
    assert (
        stage["print_to"] == "tree-dir"
        and stage["messages"] == "hivmc check before the dumps, the rest after"
    )
    assert any(a.startswith("--mlir-print-ir-tree-dir=") for a in stage["command"])
    assert sorted(p.name for p in (tree.path / "stages").iterdir()) == [
        "1-ttir.log.zst", "2-adapter.log.zst", "3-bishengir.log.zst"]  # fmt: skip
    monkeypatch.setattr(compile_mod, "prints_to_tree", lambda command: False)
    log = _compile(tmp_path / "log", module_scope=module_scope, line_info=True)
    assert "print_to" not in log.stage("bishengir")
    # the same dumps, byte for byte (the hivmc messages apart: where they stand differs)
    assert _dumps(tree.log("bishengir")) == _dumps(log.log("bishengir"))
    ours = [(d.scope, d.arg, d.phase) for d in tree.timeline.dumps if d.stage == "bishengir"]
    theirs = [(d.scope, d.arg, d.phase) for d in log.timeline.dumps if d.stage == "bishengir"]
    if module_scope:  # one thread: the pass manager's own order
        assert ours == theirs
    else:  # functions in parallel: each scope's own sequence is the same
        assert sorted(ours, key=lambda d: d[0]) == sorted(theirs, key=lambda d: d[0])
    assert len(ours) >= 250


# A stand-in bishengir-compile: two dumps, into the tree-dir when given one, else to stderr;
# with STANDIN_SAY set it prints that line to stderr between them, as a pass's warning would.
STANDIN = """\
#!{python}
import os, sys
args = sys.argv[1:]
if "--version" in args or "--help" in args:
    print("bishengir-compile stand-in 0.0")
    sys.exit(0)
tree = next((a.split("=", 1)[1] for a in args if a.startswith("--mlir-print-ir-tree-dir=")), None)
def dump(n, arg):
    text = f"// -----// IR Dump After {{arg.title()}} ({{arg}}) //----- //\\nmodule {{{{\\n}}}}\\n\\n"
    if tree is None:
        sys.stderr.write(text)
        return
    folder = os.path.join(tree, "builtin_module_no-symbol-name")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"{{n}}_{{arg}}.mlir"), "w") as f:
        f.write(text)
dump(0, "canonicalize")
if os.environ.get("STANDIN_SAY"):
    sys.stderr.write(os.environ["STANDIN_SAY"] + "\\n")
dump(1, "cse")
sys.exit(0)
"""


@needs_ascend
@pytest.mark.parametrize(
    "say", ["", "warning: ub overflow, requires 9 bits while 8 bits available"]
)
def test_a_message_among_the_passes_prints_the_stage_to_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, say: str
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "bishengir-compile"
    tool.write_text(STANDIN.format(python=sys.executable))
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("STANDIN_SAY", say)
    find_tool.cache_clear()  # found on PATH again: the stand-in, then the real tool
    try:
        run = _compile(tmp_path / "run")
    finally:
        monkeypatch.undo()
        find_tool.cache_clear()
    stage = run.stage("bishengir")
    log = run.log("bishengir").decode()
    assert [d.arg for d in run.timeline.dumps if d.stage == "bishengir"] == ["canonicalize", "cse"]
    if not say:
        assert stage["print_to"] == "tree-dir"
        return
    assert stage["print_to"] == "log" and "ub overflow" in stage["tree_dir_not_used"]
    # the message in its place, between the two passes
    assert log.index("(canonicalize)") < log.index("ub overflow") < log.index("(cse)")
    assert not any(a.startswith("--mlir-print-ir-tree-dir") for a in stage["command"])


def test_only_printing_every_pass_goes_to_a_tree() -> None:
    assert prints_to_tree(["x.mlir", "--mlir-print-ir-after-all", "-o", "k"])
    assert prints_to_tree(["--mlir-print-ir-after-all", "--mlir-print-ir-module-scope"])
    for theirs in ("--mlir-print-ir-before-all", "--mlir-print-ir-tree-dir=/d",
                   "--mlir-print-ir-after=cse", "-mlir-print-ir-after-change"):  # fmt: skip
        assert not prints_to_tree(["--mlir-print-ir-after-all", theirs])
    assert not prints_to_tree(["x.mlir", "-o", "k"])
