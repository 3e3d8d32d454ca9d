"""Removing MLIR `loc(...)` annotations from a line of IR (balanced, strings respected)."""

from __future__ import annotations

import re

__all__ = ["strip_loc"]

# `loc(` that is no part of a longer name (`myloc(`, `@loc(`, `%loc(`), with the blanks before it
_LOC_START = re.compile(r"[ \t]*(?<![A-Za-z0-9_#$.@%^])loc\(")


def strip_loc(line: str) -> str:
    """Remove every ` loc(...)` (balanced parentheses, strings respected) from a line."""
    if "loc(" not in line:  # most lines: the search below tries every blank for nothing
        return line
    out = []
    pos = 0
    for m in _LOC_START.finditer(line):
        if m.start() < pos:
            continue  # a loc( nested inside one already removed
        close = _matching_paren(line, m.end() - 1)
        if close < 0:
            break  # unbalanced (a cut line): the rest stays as it is
        out.append(line[pos : m.start()])
        pos = close + 1
    out.append(line[pos:])
    return "".join(out)


def _matching_paren(line: str, open_at: int) -> int:
    """Index of the `)` closing the `(` at `open_at`, -1 if unbalanced."""
    depth, in_str, j = 0, False, open_at
    while j < len(line):
        c = line[j]
        if in_str:
            if c == "\\":
                j += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return -1
