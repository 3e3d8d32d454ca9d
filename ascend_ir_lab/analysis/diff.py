"""Line diffs between any two snapshots: opcodes, unified text, side-by-side rows, word marks.

Lines are interned to integers and compared with an LCS (insert/delete) edit script computed
in C++ by rapidfuzz; equal prefix and suffix are trimmed first. The result is exact: applying
the opcodes to A gives B (`apply`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Indel

Opcode = tuple[
    str, int, int, int, int
]  # tag ("equal" | "delete" | "insert" | "replace"), i1, i2, j1, j2
_WORD = re.compile(r"%[\w$.#-]+|\^[\w$.-]+|@[\w$.-]+|[A-Za-z_][\w$.]*|\d+|\s+|.")


def opcodes(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """Edit script from `a` to `b`, difflib-style (adjacent delete+insert merged to replace)."""
    ids: dict[str, int] = {}
    return opcodes_ids(
        [ids.setdefault(s, len(ids)) for s in a], [ids.setdefault(s, len(ids)) for s in b]
    )


def opcodes_ids(a: Sequence[int], b: Sequence[int]) -> list[Opcode]:
    """`opcodes` on interned lines (a Timeline's `line_ids`): the fast path, no hashing."""
    n, m = len(a), len(b)
    lo = 0
    while lo < n and lo < m and a[lo] == b[lo]:
        lo += 1
    hi = 0
    while hi < n - lo and hi < m - lo and a[n - 1 - hi] == b[m - 1 - hi]:
        hi += 1
    raw: list[Opcode] = [("equal", 0, lo, 0, lo)] if lo else []
    if lo < n - hi or lo < m - hi:
        raw.extend(_middle(a, b, lo, n - hi, lo, m - hi))
    if hi:
        raw.append(("equal", n - hi, n, m - hi, m))
    return _merge(raw)


def _middle(a: Sequence[int], b: Sequence[int], i0: int, i1: int, j0: int, j1: int) -> list[Opcode]:
    """Opcodes for a[i0:i1] against b[j0:j1] (unmerged).

    A line of one side that the other side never holds cannot be in any common subsequence:
    when such lines are many (a pass that rewrites most of a function), they are set aside
    before the LCS and the result is the same edit script, found on shorter sequences.
    """
    xa, xb = a[i0:i1], b[j0:j1]
    in_b, in_a = set(xb), set(xa)
    keep_a = [i for i, x in enumerate(xa) if x in in_b]
    keep_b = [j for j, x in enumerate(xb) if x in in_a]
    if 4 * (len(keep_a) + len(keep_b)) > 3 * (len(xa) + len(xb)):
        return [
            (op.tag, op.src_start + i0, op.src_end + i0, op.dest_start + j0, op.dest_end + j0)
            for op in Indel.opcodes(xa, xb)
        ]
    out: list[Opcode] = []
    pi = pj = 0  # next unmatched line of each side, relative to i0 / j0
    for op in Indel.opcodes([xa[i] for i in keep_a], [xb[j] for j in keep_b]):
        if op.tag != "equal":
            continue
        for k in range(op.src_end - op.src_start):
            i, j = keep_a[op.src_start + k], keep_b[op.dest_start + k]
            if i > pi or j > pj:
                out.append(("replace", pi + i0, i + i0, pj + j0, j + j0))
            out.append(("equal", i + i0, i + i0 + 1, j + j0, j + j0 + 1))
            pi, pj = i + 1, j + 1
    if pi < len(xa) or pj < len(xb):
        out.append(("replace", pi + i0, i1, pj + j0, j1))
    return out


def _merge(ops: list[Opcode]) -> list[Opcode]:
    """Join neighbours: equal with equal, and any run of changes into one change."""
    out: list[Opcode] = []
    for tag, i1, i2, j1, j2 in ops:
        if i1 == i2 and j1 == j2:
            continue
        if out and (out[-1][0] == "equal") == (tag == "equal"):
            _, pi1, _, pj1, _ = out[-1]
            if tag != "equal":
                tag = "replace" if (i2 > pi1 and j2 > pj1) else out[-1][0]
            out[-1] = (tag, pi1, i2, pj1, j2)
            continue
        out.append((tag, i1, i2, j1, j2))
    return [_retag(op) for op in out]


def _retag(op: Opcode) -> Opcode:
    tag, i1, i2, j1, j2 = op
    if tag == "equal":
        return op
    return ("replace" if i2 > i1 and j2 > j1 else "delete" if i2 > i1 else "insert", i1, i2, j1, j2)


def apply(a: Sequence[str], b: Sequence[str], ops: Sequence[Opcode]) -> list[str]:
    """Rebuild B from A and the opcodes (B supplies inserted lines); proves a diff exact."""
    out: list[str] = []
    for tag, i1, i2, j1, j2 in ops:
        out.extend(a[i1:i2] if tag == "equal" else b[j1:j2])
    return out


@dataclass(frozen=True, slots=True)
class Hunk:
    """A group of changes with context, as in a unified diff."""

    a_start: int
    a_len: int
    b_start: int
    b_len: int
    ops: tuple[Opcode, ...]


def hunks(ops: Sequence[Opcode], context: int = 3) -> list[Hunk]:
    """Group opcodes into hunks with `context` equal lines around each change."""
    groups: list[list[Opcode]] = []
    current: list[Opcode] = []
    for op in ops:
        tag, i1, i2, j1, j2 = op
        if tag == "equal":
            if current and i2 - i1 > 2 * context:
                current.append((tag, i1, i1 + context, j1, j1 + context))
                groups.append(current)
                current = []
                op = (tag, i2 - context, i2, j2 - context, j2)
            elif not current:
                op = (tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2)
        current.append(op)
    if current and any(op[0] != "equal" for op in current):
        groups.append(current)
    result = []
    for g in groups:
        if g[-1][0] == "equal" and g[-1][2] - g[-1][1] > context:
            t, i1, _, j1, _ = g[-1]
            g[-1] = (t, i1, i1 + context, j1, j1 + context)
        result.append(Hunk(g[0][1], g[-1][2] - g[0][1], g[0][3], g[-1][4] - g[0][3], tuple(g)))
    return [h for h in result if any(op[0] != "equal" for op in h.ops)]


def unified(
    a: Sequence[str],
    b: Sequence[str],
    *,
    a_name: str = "a",
    b_name: str = "b",
    context: int = 3,
    ops: Sequence[Opcode] | None = None,
) -> list[str]:
    """Unified diff lines (no line ends), like `diff -u`; empty when A equals B."""
    hs = hunks(opcodes(a, b) if ops is None else ops, context)
    if not hs:
        return []
    out = [f"--- {a_name}", f"+++ {b_name}"]
    add = out.append
    for h in hs:
        add(f"@@ -{_range(h.a_start, h.a_len)} +{_range(h.b_start, h.b_len)} @@")
        for tag, i1, i2, j1, j2 in h.ops:
            if tag == "equal":
                out += [" " + s for s in a[i1:i2]]
            else:
                out += ["-" + s for s in a[i1:i2]]
                out += ["+" + s for s in b[j1:j2]]
    return out


def _range(start: int, length: int) -> str:
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


@dataclass(frozen=True, slots=True)
class Row:
    """One side-by-side row: a line of A and/or a line of B, with changed character spans."""

    tag: str  # "equal", "delete", "insert", "replace"
    a: int | None  # line index in A
    b: int | None
    a_marks: tuple[tuple[int, int], ...] = ()
    b_marks: tuple[tuple[int, int], ...] = ()


def side_by_side(
    a: Sequence[str], b: Sequence[str], ops: Sequence[Opcode] | None = None
) -> list[Row]:
    """Rows pairing changed lines of A and B, with word-level marks inside replaced lines."""
    rows: list[Row] = []
    for tag, i1, i2, j1, j2 in ops if ops is not None else opcodes(a, b):
        if tag == "equal":
            rows.extend(Row("equal", i1 + k, j1 + k) for k in range(i2 - i1))
            continue
        for k in range(max(i2 - i1, j2 - j1)):
            ia = i1 + k if i1 + k < i2 else None
            jb = j1 + k if j1 + k < j2 else None
            if ia is not None and jb is not None:
                ma, mb = word_marks(a[ia], b[jb])
                rows.append(Row("replace", ia, jb, ma, mb))
            else:
                rows.append(Row("delete" if jb is None else "insert", ia, jb))
    return rows


def word_marks(a: str, b: str) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """Character spans of the words that differ between two lines."""
    ta, tb = _WORD.findall(a), _WORD.findall(b)
    oa, ob = _offsets(ta), _offsets(tb)
    ma: list[tuple[int, int]] = []
    mb: list[tuple[int, int]] = []
    for op in Indel.opcodes(ta, tb):
        if op.tag == "equal":
            continue
        if op.src_end > op.src_start:
            ma.append((oa[op.src_start], oa[op.src_end]))
        if op.dest_end > op.dest_start:
            mb.append((ob[op.dest_start], ob[op.dest_end]))
    return tuple(ma), tuple(mb)


def _offsets(tokens: list[str]) -> list[int]:
    out = [0]
    for t in tokens:
        out.append(out[-1] + len(t))
    return out
