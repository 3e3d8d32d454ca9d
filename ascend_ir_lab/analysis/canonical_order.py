"""Orders that vary between identical compiles: workspace offsets and independent definitions.

**Independent definitions.** Two adjacent definitions neither of which uses the other (two
`bufferization.to_tensor`s, two constants) can come in either order from one compile to the
next. `sort_independent` puts every run of such lines in one order: the least line first
among those whose operands are already defined (a topological order, the same for any order
the compiler chose). Calls and anything that syncs, flags, locks or prints end a run.

**Workspace offsets.**

`hivm-plan-memory` gives each global-memory workspace (`memref_ext.alloc_workspace ... offset
= [%c8192]`) an offset. Two identical compiles can give two workspaces of the same type each
other's offset (the order it meets them follows the order `cv-pipelining` printed the
loop-carried values in, which varies), and from there on every pass prints the other
workspace at each use. The program is the same: buffers of the same type at the same set of
offsets, only swapped.

`offset_variants` gives the snapshot once per way of handing the offsets of each type out
among its workspaces (module-wide, so the cube and vector halves of a mix kernel, which name
one workspace by one offset, are permuted together), each offset printed as a literal
(`offset = [8192]`; after lower-memref-ext the constant the `memref.view`'s offset is
computed from, in its `affine.apply`). The canonical form is
the least of their canonical texts, the same for every member of the permutation's orbit. A
real change survives: another set of offsets, another number of workspaces, a workspace used
where the other was, two halves disagreeing. Past `limit` variants only the order found is
kept (the comparison then sees such a swap as a difference).
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations, product

__all__ = ["offset_variants", "sort_independent"]

_FUNC = re.compile(r"^\s*(?:func\.func|tt\.func|llvm\.func)\b")
_CONST = re.compile(r"^\s*(%[\w$.-]+)\s*=\s*arith\.constant\s+(-?\d+)\s*:\s*(?:index|i\d+)\s*$")
_WORKSPACE = re.compile(
    r"^\s*(?P<name>%[\w$.-]+)\s*=\s*memref_ext\.alloc_workspace\(.*?\boffset\s*=\s*\["
    r"(?P<offset>%[\w$.-]+|-?\d+)\](?P<rest>.*)$"
)
# after lower-memref-ext: %6 = affine.apply #map(%5)[%c8192]; memref.view %arg2[%6][] : ...
_VIEW = re.compile(
    r"^\s*%[\w$.-]+\s*=\s*memref\.view\s+%[\w$.-]+\[(?P<offset>%[\w$.-]+)\](?P<rest>.*)$"
)
_APPLY = re.compile(r"^\s*(?P<name>%[\w$.-]+)\s*=\s*affine\.apply\b")
_OPERAND = re.compile(r"%[\w$.-]+")


# the map of an apply, its one result: (s0 * 20480 + 8192), the constant term apart
# (an affine expression holds no `>`: a match ends at the second `>` after its start, and
# starts that share their first `>`, the arrow, share the outcome: each is tried once)
_MAP = re.compile(r"affine_map<[^>]*?->\s*\((?P<expr>[^,>]*?)\)>")
_CONSTANT = re.compile(r"\s*(\d+)")


def _map_of(line: str, head: int) -> re.Match[str] | None:
    """The first affine map on `line` from `head` whose one result `_MAP` reads, in time
    linear in the line (a line of `affine_map<` with no `>` was quadratic)."""
    start = line.find("affine_map<", head)
    while start >= 0:
        arrow = line.find(">", start)
        if arrow < 0:
            return None
        found = _MAP.match(line, start)
        if found is not None:
            return found
        start = line.find("affine_map<", arrow + 1)
    return None


def _constant_term(expr: str) -> tuple[str, int]:
    """`s0 * 20480 + 8192` -> (`s0 * 20480`, 8192); an expression with no constant term
    added last -> (itself, 0)."""
    plus = expr.rfind("+")
    term = _CONSTANT.fullmatch(expr, plus + 1) if plus >= 0 else None
    if term is None:
        return expr, 0
    return expr[:plus].rstrip(), int(term[1])


@dataclass
class _Workspace:
    line: int  # the line that holds the offset constant
    span: tuple[int, int]  # where it is on that line
    offset: int
    kind: str  # type (and offset expression): only workspaces of one kind trade offsets
    form: str = "{}"  # how the offset is written back at the span


def _view_offset(
    m: re.Match[str], consts: dict[str, int], applies: dict[str, int], lines: Sequence[str]
) -> _Workspace | None:
    """Where the constant a view's offset is computed from sits: the one constant operand of
    its affine.apply, or the constant term of the apply's map once it has been folded in."""
    at = applies.get(m["offset"])
    if at is None:
        return None
    line, kind = lines[at], m["rest"].rsplit(" to ", 1)[-1].strip()
    head = line.index("affine.apply")
    hits = [o for o in _OPERAND.finditer(line, head) if o.group(0) in consts]
    if len(hits) == 1:
        return _Workspace(at, hits[0].span(), consts[hits[0].group(0)], kind)
    folded = _map_of(line, head)
    if hits or folded is None:
        return None
    base, constant = _constant_term(folded["expr"])
    return _Workspace(at, folded.span("expr"), constant, f"{kind} at {base}", base + " + {}")


def _find(lines: Sequence[str]) -> list[_Workspace]:
    consts: dict[str, int] = {}
    applies: dict[str, int] = {}
    found: list[_Workspace] = []
    for k, line in enumerate(lines):
        if _FUNC.match(line):
            consts, applies = {}, {}
            continue
        c = _CONST.match(line)
        if c:
            consts[c.group(1)] = int(c.group(2))
            continue
        a = _APPLY.match(line) if "affine.apply" in line else None
        if a:
            applies[a["name"]] = k
            continue
        m = _WORKSPACE.match(line) if "alloc_workspace" in line else None
        if m is not None:
            raw = m["offset"]
            value = consts.get(raw) if raw.startswith("%") else int(raw)
            if value is not None:
                kind = m["rest"].rsplit(" to ", 1)[-1].strip()
                found.append(_Workspace(k, m.span("offset"), value, kind))
            continue
        v = _VIEW.match(line) if "memref.view" in line else None
        got = _view_offset(v, consts, applies, lines) if v else None
        if got is not None:
            found.append(got)
    return found


def _groups(found: list[_Workspace]) -> list[tuple[str, list[int]]]:
    """(type, its distinct offsets) for every type with more than one offset."""
    out = []
    for kind in sorted({w.kind for w in found}):
        offsets = sorted({w.offset for w in found if w.kind == kind})
        if len(offsets) > 1:
            out.append((kind, offsets))
    return out


def _rewrite(
    lines: Sequence[str], found: list[_Workspace], new: dict[tuple[str, int], int]
) -> list[str]:
    out = list(lines)
    for w in sorted(found, key=lambda w: (w.line, -w.span[0])):
        value = w.form.format(new.get((w.kind, w.offset), w.offset))
        out[w.line] = out[w.line][: w.span[0]] + value + out[w.line][w.span[1] :]
    return out


def offset_variants(lines: Sequence[str], limit: int = 24) -> list[list[str]]:
    """`lines` once per permutation of the workspace offsets (see the module docstring);
    `[lines]` itself when no workspace has a constant offset."""
    if not any("alloc_workspace" in s or "memref.view" in s for s in lines):
        return [list(lines)]
    found = _find(lines)
    if not found:
        return [list(lines)]
    groups = _groups(found)
    choices = [list(permutations(offsets)) for _, offsets in groups]
    total = 1
    for c in choices:
        total *= len(c)
    if total > limit:
        choices = [[tuple(offsets)] for _, offsets in groups]
    variants = []
    for pick in product(*choices):
        new = {
            (kind, old): to
            for (kind, offsets), perm in zip(groups, pick, strict=True)
            for old, to in zip(offsets, perm, strict=True)
        }
        variants.append(_rewrite(lines, found, new))
    return variants


_DEF = re.compile(r"^(%[\w$.-]+)(?::\d+)?(?:\s*,\s*%[\w$.-]+)*\s*=\s*([\w.]+)")
_NAMES = re.compile(r"%[\w$.-]+")
_ORDERED = re.compile(
    r"(?:^|[._])(?:call|atomic|sync|[a-z]*flag|barrier|lock|print|assert|custom)(?:$|[._])"
)


def _movable(line: str) -> str | None:
    """The first name a line defines when it may trade places with its neighbours."""
    m = _DEF.match(line) if line.startswith("%") else None
    if m is None or line.endswith("{") or _ORDERED.search(m.group(2)):
        return None
    return m.group(1)


def sort_independent(lines: Sequence[str]) -> list[str]:
    """Every run of adjacent, movable definitions (unindented canonical lines) in one order."""
    out: list[str] = []
    run: list[str] = []
    for line in lines:
        if _movable(line) is not None:
            run.append(line)
            continue
        out += _topological(run) if len(run) > 1 else run
        run = []
        out.append(line)
    return out + (_topological(run) if len(run) > 1 else run)


def _topological(run: list[str]) -> list[str]:
    defined: dict[str, int] = {}
    for k, line in enumerate(run):
        head = line.split("=", 1)[0]
        for name in _NAMES.findall(head):
            defined[name.split(":")[0]] = k
    needs: list[set[int]] = [set() for _ in run]
    users: list[list[int]] = [[] for _ in run]
    for k, line in enumerate(run):
        for name in _NAMES.findall(line.split("=", 1)[1]):
            j = defined.get(name.split("#")[0])
            if j is not None and j != k and j not in needs[k]:
                needs[k].add(j)
                users[j].append(k)
    ready = [(run[k], k) for k in range(len(run)) if not needs[k]]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        line, k = heapq.heappop(ready)
        order.append(line)
        for u in users[k]:
            needs[u].discard(k)
            if not needs[u]:
                heapq.heappush(ready, (run[u], u))
    return order if len(order) == len(run) else run
