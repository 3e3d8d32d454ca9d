"""The house rules of ARCHITECTURE.md, checked on the source: core rooms stay pure."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from tests import house

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


# Which rooms each room may reach, through any chain of imports (docs/architecture.md).
BASE = {"ground", "runs", "dumps"}
ALLOWED = {
    "ground": {"ground"},
    # the Run reads its own Timeline and logs through dumps/ (Run.timeline, Run.log)
    "runs": BASE,
    "dumps": BASE,
    "analysis": BASE | {"analysis"},
    "export": BASE | {"analysis", "export"},
    "toolchains": {"toolchains"},
    "toolchains.common": BASE | {"analysis", "toolchains", "toolchains.common"},
    "toolchains.ascend": BASE
    | {"analysis", "toolchains", "toolchains.common", "toolchains.ascend"},
    "toolchains.triton": BASE
    | {"analysis", "toolchains", "toolchains.common", "toolchains.triton"},
}
ALLOWED["share"] = set().union(*ALLOWED.values()) | {"share"}
ALLOWED["notebook"] = ALLOWED["share"] | {"notebook"}
ALLOWED["cli"] = ALLOWED["share"] | {"cli"}


@pytest.mark.parametrize("module", [m for m in house.MODULES if house.room(m) != "face"])
def test_rooms_reach_only_the_rooms_below_them(module: str) -> None:
    allowed = ALLOWED[house.room(module)] | {"face"}
    wrong = {m: p for m, p in house.reach(module).items() if house.room(m) not in allowed}
    assert not wrong, "\n".join(
        f"{house.room(module)} reaches {house.room(m)}: {' -> '.join(p)}" for m, p in wrong.items()
    )


def test_no_import_cycle_between_modules() -> None:
    assert not house.cycles(), house.cycles()


def _reach_ins(module: str) -> list[str]:
    """Private names of other modules that `module` imports or calls."""
    mine = house.private_defs(module)
    theirs = {n for n, owners in house.private_owners().items() if owners - {module}}
    found = []
    for node in ast.walk(house.tree(module)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ascend_ir_lab"):
            found += [f"{node.lineno}: from {node.module} import {a.name}" for a in node.names
                      if a.name.startswith("_") and not a.name.startswith("__")]  # fmt: skip
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id not in ("self", "cls")
            and node.attr in theirs - mine
        ):
            found.append(f"{node.lineno}: {node.value.id}.{node.attr}")
    return found


@pytest.mark.parametrize("module", list(house.MODULES))
def test_no_module_reaches_into_another_modules_private_names(module: str) -> None:
    found = _reach_ins(module)
    assert not found, f"{module} uses private names of other modules: {found}"


def _guards_import_error(node: ast.AST) -> bool:
    if isinstance(node, ast.Try):
        caught = [h.type for h in node.handlers if h.type is not None]
        names = [n for t in caught for n in ast.walk(t) if isinstance(n, ast.Name)]
        return any(n.id in ("ImportError", "ModuleNotFoundError") for n in names)
    if isinstance(node, ast.With):
        calls = [i.context_expr for i in node.items if isinstance(i.context_expr, ast.Call)]
        return any(
            getattr(c.func, "attr", getattr(c.func, "id", None)) == "suppress"
            and any(getattr(a, "id", None) == "ImportError" for a in c.args)
            for c in calls
        )
    return False


@pytest.mark.parametrize("module", list(house.MODULES))
def test_own_modules_are_never_optional(module: str) -> None:
    for node in ast.walk(house.tree(module)):
        if not _guards_import_error(node):
            continue
        for sub in (n for stmt in node.body for n in ast.walk(stmt)):
            if isinstance(sub, ast.ImportFrom) and (sub.module or "").startswith("ascend_ir_lab"):
                assert sub.module == "ascend_ir_lab._version", (
                    f"{module}:{sub.lineno} imports {sub.module} as if it could be missing"
                )


@pytest.mark.parametrize(
    "path", [p for room in ("runs", "dumps", "analysis") for p in _modules(room)], ids=str
)
def test_core_answers_in_data_and_renders_no_html(path: Path) -> None:
    tree = ast.parse(path.read_text(), str(path))
    views = {"_repr_html_", "_repr_mimebundle_", "_repr_markdown_"}
    shown = [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name in views]
    assert not shown, f"{path.relative_to(PACKAGE)} renders {shown}: that is the notebook's job"
    assert "html" not in _imports(path), f"{path.relative_to(PACKAGE)} imports html"


def test_the_one_convenience_import_up_the_house_stays_inside_its_method() -> None:
    for module, target in house.CONVENIENCE:
        tree = house.tree(module)
        top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
        assert all(getattr(n, "module", None) != target for n in top), f"{module} imports {target}"
        inside = [
            n for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == "capture"
            for n in ast.walk(f) if isinstance(n, ast.ImportFrom) and n.module == target
        ]  # fmt: skip
        assert inside, f"{module}: {target} is imported outside Run.capture"
