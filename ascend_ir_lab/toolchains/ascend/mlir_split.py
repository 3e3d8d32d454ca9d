"""One function of a module-scope Dump, alone in its module: what a pass reproducer runs on.

The module's header (aliases, `module attributes {...} {`), its other top-level ops and its
trailing `#loc` lines are kept; only the other functions' definitions are left out, so a
function pass re-run on the result touches exactly the function its Dump names.
"""

from __future__ import annotations

import re

from ascend_ir_lab.analysis.canonical import inline_aliases
from ascend_ir_lab.analysis.loc_strip import strip_loc

__all__ = ["function_lines", "only_function", "scope_symbol", "comparable"]

_FUNC_HEAD = re.compile(r"^(\s*)(?:func\.func|tt\.func|llvm\.func)\s+(?:\w+\s+)*@([\w$.-]+)\s*\(")


def scope_symbol(scope: str) -> str | None:
    """`func.func @k` -> `k`; None for a module scope."""
    op, _, sym = (scope or "").partition(" @")
    return sym if op != "builtin.module" and sym else None


def _functions(lines: list[str]) -> list[tuple[str, int, int]]:
    """(symbol, first line, last line) of each function definition with a body."""
    out = []
    i = 0
    while i < len(lines):
        m = _FUNC_HEAD.match(lines[i])
        if m and strip_loc(lines[i]).rstrip().endswith("{"):
            close = m.group(1) + "}"  # `  }`, or `  } loc(#loc9)` with locations printed
            end = next(
                (j for j in range(i + 1, len(lines)) if strip_loc(lines[j]).rstrip() == close),
                len(lines) - 1,
            )
            out.append((m.group(2), i, end))
            i = end + 1
            continue
        i += 1
    return out


def only_function(text: str, symbol: str) -> str:
    """The module text with every function definition but @symbol left out."""
    lines = text.splitlines()
    spans = _functions(lines)
    if not any(name == symbol for name, _, _ in spans):
        return ""
    drop = {k for name, a, b in spans if name != symbol for k in range(a, b + 1)}
    return "\n".join(s for k, s in enumerate(lines) if k not in drop) + "\n"


def function_lines(text: str, symbol: str) -> list[str]:
    """The lines defining @symbol (header to closing brace), aliases inlined."""
    lines = inline_aliases(text.splitlines())
    for name, a, b in _functions(lines):
        if name == symbol:
            return lines[a : b + 1]
    return []


def comparable(lines: list[str]) -> list[str]:
    """Lines as the comparison sees them: locations stripped, whitespace collapsed, blanks
    dropped (aliases are inlined by function_lines / inline_aliases already)."""
    out = (" ".join(strip_loc(s).split()) for s in lines)
    return [s for s in out if s]
