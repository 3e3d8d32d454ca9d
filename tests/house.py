"""The package's import graph, read from the source (module-level and function-level imports
alike; imports under `if TYPE_CHECKING:` are left out: they never run)."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "ascend_ir_lab"
GROUND = (
    "errors", "safe_text", "lexer", "private", "forked", "record", "package_data", "_version",
)  # fmt: skip
TOOLCHAINS = ("common", "ascend", "triton")


def _name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}

# The one import that runs up the house: `Run.capture()`, a convenience for a cheap record,
# hands the Run to the toolchain that made it. It is imported inside the method only, when
# called (test_architecture checks that), and no room gets anything else through it.
CONVENIENCE = {("ascend_ir_lab.runs.reader", "ascend_ir_lab.share.capture")}


def room(module: str) -> str:
    """The room a module lives in: `runs`, `toolchains.ascend`, `ground`, `face`..."""
    parts = module.split(".")[1:]
    if not parts or parts[0] == "__main__":
        return "face"
    if parts[0] in GROUND:
        return "ground"
    if parts[0] == "toolchains" and len(parts) > 1 and parts[1] in TOOLCHAINS:
        return f"toolchains.{parts[1]}"
    return parts[0]


@cache
def tree(module: str) -> ast.Module:
    """The parsed source of `module`."""
    path = MODULES[module]
    return ast.parse(path.read_text(), str(path))


def _type_only(module: str) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree(module)):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
            if name == "TYPE_CHECKING":
                skipped.update(id(n) for sub in node.body for n in ast.walk(sub))
    return skipped


def _targets(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level or not node.module:
        return []
    return [f"{node.module}.{alias.name}" for alias in node.names]


@cache
def imports(module: str) -> dict[str, int]:
    """The package modules `module` imports, each with the line of its first import.

    `from a.b import c` needs a.b.c where that is a module, else a.b (its face only where it
    is named: a package's `__init__` that hands names on is no edge of a deeper import).
    """
    found: dict[str, int] = {}
    skipped = _type_only(module)
    for node in ast.walk(tree(module)):
        if not isinstance(node, ast.Import | ast.ImportFrom) or id(node) in skipped:
            continue
        for target in _targets(node):
            while target not in MODULES and "." in target:
                target = target.rpartition(".")[0]
            if target in MODULES and target != module and (module, target) not in CONVENIENCE:
                found.setdefault(target, node.lineno)
    return found


def reach(module: str) -> dict[str, list[str]]:
    """Every module `module` reaches through imports, each with one path that gets there.

    The package's own face (`ascend_ir_lab/__init__.py`) is reached but not gone through:
    what it imports, it imports lazily when the package is asked for a name.
    """
    paths: dict[str, list[str]] = {module: [module]}
    todo = [module]
    while todo:
        here = todo.pop()
        if room(here) == "face" and here != module:
            continue
        for there in imports(here):
            if there not in paths:
                paths[there] = [*paths[here], there]
                todo.append(there)
    del paths[module]
    return paths


def _downstream(module: str) -> set[str]:
    """Every module reachable from `module` (itself only through a loop)."""
    seen: set[str] = set()
    todo = list(imports(module))
    while todo:
        here = todo.pop()
        if here not in seen:
            seen.add(here)
            todo.extend(imports(here))
    return seen


def cycles() -> list[list[str]]:
    """The groups of two modules or more that import each other, directly or in a loop."""
    down = {m: _downstream(m) for m in MODULES}
    groups = {
        frozenset({m} | {n for n in down[m] if m in down[n]}) for m in MODULES if m in down[m]
    }
    return sorted(sorted(g) for g in groups)


@cache
def private_defs(module: str) -> frozenset[str]:
    """Names starting with one underscore that `module` defines (functions, classes,
    methods, module-level assignments)."""
    names: set[str] = set()
    for node in ast.walk(tree(module)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return frozenset(n for n in names if n.startswith("_") and not n.startswith("__"))


@cache
def private_owners() -> dict[str, frozenset[str]]:
    """Each private name defined in the package -> the modules that define it."""
    owners: dict[str, set[str]] = {}
    for module in MODULES:
        for name in private_defs(module):
            owners.setdefault(name, set()).add(module)
    return {name: frozenset(mods) for name, mods in owners.items()}
