"""Removing MLIR `loc(...)` annotations from a line of IR (balanced, strings respected)."""

from __future__ import annotations

from collections.abc import Iterator

__all__ = ["strip_loc"]

# what may not come right before a `loc(` that starts a location (`myloc(`, `@loc(`, `%loc(`)
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_#$.@%^")


def _loc_starts(line: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each `loc(` no part of a longer name, with the blanks before it.
    Found by `str.find` and one step back over the blanks: a regex with a leading `[ \t]*`
    tries every blank of a line indented 40 000 deep again (quadratic time)."""
    pos = 0
    while (k := line.find("loc(", pos)) >= 0:
        pos = k + 4
        if k > 0 and line[k - 1] in _NAME_CHARS:
            continue
        start = k
        while start > 0 and line[start - 1] in " \t":
            start -= 1
        yield start, pos


def strip_loc(line: str) -> str:
    """Remove every ` loc(...)` (balanced parentheses, strings respected) from a line."""
    if "loc(" not in line:  # most lines: the search below tries every blank for nothing
        return line
    out = []
    pos = 0
    for start, end in _loc_starts(line):
        if start < pos:
            continue  # a loc( nested inside one already removed
        close = _matching_paren(line, end - 1)
        if close < 0:
            break  # unbalanced (a cut line): the rest stays as it is
        out.append(line[pos:start])
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
