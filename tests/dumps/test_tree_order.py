"""An --mlir-print-ir-tree-dir folder read in the order MLIR printed it, and told apart from one
that lost prints. The trees are written as MLIR names them (IRPrinting.cpp: per op, the counts
of its ancestors then its own, `{counts}_{pass-argument}.mlir` in one folder per op)."""

from __future__ import annotations

from pathlib import Path

from ascend_ir_lab.dumps import open_timeline
from ascend_ir_lab.dumps.walk import tree_inconsistency, tree_order, walk_tree

MODULE = "builtin_module_no-symbol-name"


def _module_text(*funcs: str) -> str:
    body = "".join(f"  func.func @{f}() {{\n    return\n  }}\n" for f in funcs)
    return f"module {{\n{body}}}\n"


def _write(root: Path, rel: str, arg: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    name = arg.title().replace("-", "")
    path.write_text(f"// -----// IR Dump After {name} ({arg}) //----- //\n{text}\n\n")


def _tree(root: Path, order: tuple[str, str]) -> list[str]:
    """A module whose two functions (in `order` in its IR) run a nested pipeline between two
    module passes; the names in the order one thread prints them."""
    module = _module_text(*order)
    printed = [f"{MODULE}/0_canonicalize.mlir"]
    _write(root, printed[0], "canonicalize", module)
    for fn in order:  # the pass manager runs the whole nested pipeline on one op, then the next
        for n, arg in enumerate(("cse", "sccp")):
            rel = f"{MODULE}/func_func_{fn}/0_{n}_{arg}.mlir"
            _write(root, rel, arg, f"func.func @{fn}() {{\n  return\n}}")
            printed.append(rel)
    printed.append(f"{MODULE}/1_symbol-dce.mlir")
    _write(root, printed[-1], "symbol-dce", module)
    return printed


def _names(root: Path) -> list[str]:
    files, _ = walk_tree(root)
    return [f.relative_to(root).as_posix() for f in tree_order(root, files)]


def test_nested_prints_sit_between_their_parents_prints_in_the_ops_order(tmp_path: Path) -> None:
    # the function printed second in the module's IR has the name that sorts first
    printed = _tree(tmp_path / "a", ("zeta", "alpha"))
    assert _names(tmp_path / "a") == printed
    printed = _tree(tmp_path / "b", ("alpha", "zeta"))
    assert _names(tmp_path / "b") == printed


def test_a_nested_op_that_prints_before_its_parent_comes_first(tmp_path: Path) -> None:
    # MLIR's map gives the module count 0 when the function asks first; its own print is 1
    _write(tmp_path, f"{MODULE}/func_func_f/0_0_cse.mlir", "cse", "func.func @f() {\n}")
    _write(tmp_path, f"{MODULE}/1_symbol-dce.mlir", "symbol-dce", _module_text("f"))
    _write(tmp_path, f"{MODULE}/func_func_f/1_1_sccp.mlir", "sccp", "func.func @f() {\n}")
    assert _names(tmp_path) == [f"{MODULE}/func_func_f/0_0_cse.mlir",
                                f"{MODULE}/1_symbol-dce.mlir",
                                f"{MODULE}/func_func_f/1_1_sccp.mlir"]  # fmt: skip
    files, _ = walk_tree(tmp_path)
    assert tree_inconsistency(tmp_path, files) is None


def test_counts_that_repeat_skip_or_go_back_are_told(tmp_path: Path) -> None:
    _tree(tmp_path, ("f", "g"))
    files, _ = walk_tree(tmp_path)
    assert tree_inconsistency(tmp_path, files) is None
    # a second pass manager restarting the counters: a print of count 0 again
    _write(tmp_path, f"{MODULE}/func_func_f/0_0_canonicalize.mlir", "canonicalize", "x")
    files, _ = walk_tree(tmp_path)
    said = tree_inconsistency(tmp_path, files)
    assert said and "func_func_f" in said and "repeat" in said
    (tmp_path / f"{MODULE}/func_func_f/0_0_canonicalize.mlir").unlink()
    (tmp_path / f"{MODULE}/func_func_g/0_0_cse.mlir").unlink()  # g's counts now start at 1: fine
    files, _ = walk_tree(tmp_path)
    assert tree_inconsistency(tmp_path, files) is None
    _write(tmp_path, f"{MODULE}/3_cse.mlir", "cse", _module_text("f"))  # the module skips 2
    files, _ = walk_tree(tmp_path)
    assert "builtin_module" in (tree_inconsistency(tmp_path, files) or "")


def test_a_tree_that_lost_prints_reads_with_a_warning(tmp_path: Path) -> None:
    _tree(tmp_path, ("f", "g"))
    tl = open_timeline(tmp_path)
    assert not [w for w in tl.warnings if "repeat" in w]
    assert [d.arg for d in tl.dumps] == ["canonicalize", "cse", "sccp", "cse", "sccp",
                                         "symbol-dce"]  # fmt: skip
    _write(tmp_path, f"{MODULE}/5_cse.mlir", "cse", _module_text("f", "g"))
    tl = open_timeline(tmp_path)
    assert any("some may be missing" in w for w in tl.warnings)
    assert len(tl.dumps) == 7  # every file is still read
