"""The house rules of ARCHITECTURE.md, checked on the source: core rooms stay pure."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "ascend_ir_lab"
CORE = ("runs", "dumps", "analysis", "export")
FRONTENDS = ("IPython", "ipywidgets", "anywidget", "traitlets")
PROCESSES = ("subprocess", "multiprocessing", "pty")


def _modules(room: str) -> list[Path]:
    return sorted((PACKAGE / room).rglob("*.py"))


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", [p for room in CORE for p in _modules(room)], ids=str)
def test_core_imports_no_frontend_and_starts_no_process(path: Path) -> None:
    bad = _imports(path) & set(FRONTENDS + PROCESSES)
    assert not bad, f"{path.relative_to(PACKAGE)} imports {sorted(bad)}"


@pytest.mark.parametrize("path", [p for room in CORE for p in _modules(room)], ids=str)
def test_core_leaves_the_environment_alone(path: Path) -> None:
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "putenv", "unsetenv"):
            pytest.fail(f"{path.relative_to(PACKAGE)}:{node.lineno} touches os.{node.attr}")


def test_modules_stay_small() -> None:
    big = {
        str(p.relative_to(PACKAGE)): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 700
    }
    assert not big, f"split these modules (over 700 lines): {big}"


def _module_names() -> list[str]:
    names = []
    for p in sorted(PACKAGE.rglob("*.py")):
        parts = p.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__main__":
            continue
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


@pytest.mark.parametrize("name", _module_names())
def test_every_module_imports(name: str) -> None:
    importlib.import_module(name)


@pytest.mark.parametrize("room", ["toolchains", "toolchains/common", "toolchains/ascend",
                                  "toolchains/triton", "notebook", "share"])  # fmt: skip
def test_every_room_says_what_it_is_for(room: str) -> None:
    init = PACKAGE / room / "__init__.py"
    assert init.is_file(), f"{room}/ has no __init__.py"
    doc = ast.get_docstring(ast.parse(init.read_text(), str(init)))
    assert doc and len(doc.split()) >= 8, f"{room}/__init__.py says too little: {doc!r}"
