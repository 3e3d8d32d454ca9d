"""A kernel as a user names it: `FILE.py::KERNEL` loaded, its source and def line, and the
`--signature` / `--constexpr` text of the command line parsed."""

from __future__ import annotations

import importlib.util
import inspect
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ascend_ir_lab.errors import InputError

__all__ = ["kernel_source", "load_kernel", "parse_constexprs", "parse_signature"]


def parse_signature(text: str | Mapping[str, str]) -> dict[str, str]:
    """'x_ptr=*fp32,n=i32' (or a dict) -> {'x_ptr': '*fp32', 'n': 'i32'}."""
    if isinstance(text, Mapping):
        return {str(k): str(v) for k, v in text.items()}
    result: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, ty = item.partition("=")
        if not sep or not name.strip() or not ty.strip():
            raise InputError(f"--signature: {item!r} is not NAME=TYPE (e.g. x_ptr=*fp32,n=i32)")
        result[name.strip()] = ty.strip()
    return result


def parse_constexprs(items: Sequence[str] | Mapping[str, Any] | None) -> dict[str, Any]:
    """['BLOCK=1024', 'EVEN=True'] (or a dict) -> {'BLOCK': 1024, 'EVEN': True}."""
    if items is None:
        return {}
    if isinstance(items, Mapping):
        return dict(items)
    result: dict[str, Any] = {}
    for item in items:
        for part in filter(None, (p.strip() for p in item.split(","))):
            name, sep, raw = part.partition("=")
            if not sep or not name.strip():
                raise InputError(f"--constexpr: {part!r} is not NAME=VALUE (e.g. BLOCK=1024)")
            result[name.strip()] = _literal(raw.strip())
    return result


def _literal(raw: str) -> Any:
    try:
        return json.loads(raw.lower() if raw in ("True", "False") else raw)
    except json.JSONDecodeError:
        return raw


def load_kernel(spec: str) -> Any:
    """'path/to/file.py::kernel' -> the @triton.jit function defined in that file."""
    file_part, sep, name = spec.rpartition("::")
    if not sep or not file_part or not name:
        raise InputError(f"{spec!r}: expected FILE.py::KERNEL")
    path = Path(file_part)
    if not path.is_file():
        raise InputError(f"{path}: no such kernel file")
    module_name = f"_ascend_ir_lab_kernel_{abs(hash(path.resolve()))}"
    loader = importlib.util.spec_from_file_location(module_name, path)
    if loader is None or loader.loader is None:
        raise InputError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(loader)
    sys.path.insert(0, str(path.resolve().parent))
    try:
        loader.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.resolve().parent))
    kernel = getattr(module, name, None)
    if kernel is None:
        raise InputError(f"{path}: defines no {name!r}")
    return kernel


def kernel_source(kernel: Any) -> tuple[str, int, str]:
    """(text of the file that defines `kernel`, 1-based line of its def, file name)."""
    fn = getattr(kernel, "fn", kernel)
    try:
        lines, first = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn)
        if filename and Path(filename).is_file():
            return Path(filename).read_text(), _def_line(lines, first), Path(filename).name
        # a notebook cell: keep the name its locations carry (ipykernel's cell file)
        return "".join(lines), _def_line(lines, 1), Path(filename).name if filename else "source.py"
    except (OSError, TypeError):
        return str(getattr(kernel, "src", "")), 1, "source.py"


def _def_line(lines: Sequence[str], first: int) -> int:
    for offset, line in enumerate(lines):
        if line.lstrip().startswith("def "):
            return first + offset
    return first
