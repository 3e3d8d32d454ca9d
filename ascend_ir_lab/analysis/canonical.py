"""A canonical form of MLIR text that two identical compiles agree on.

What varies from one compile of the same kernel to the next without changing the program:
SSA and block numbering, the numbering and order of `#map`/`#set` aliases, the order of an
`scf.for`'s loop-carried arguments (cv-pipelining permutes them), and the order of entries in
attribute dictionaries. `canonical_lines` removes all of it:

- `#mapN`/`#setN` uses are replaced by their definitions, and the alias lines dropped;
- every value is named by what defines it (a hash of its op with its operands already
  canonical), so the names do not depend on numbering or on the order of independent ops;
  function arguments by type and rank among those of their type (an inserted argument
  leaves the others' names alone), block arguments by position, loop induction variables
  by depth;
- an `scf.for`'s iter_args are sorted by their initial values, and its results and the
  `scf.yield` that ends its body are permuted the same way;
- attribute dictionary entries are sorted;
- finally the hashed names are renumbered `%v0, %v1...` in order of first appearance, so the
  text stays readable.

`comparable_lines`, what comparisons and noise measurements use, goes two steps further
(analysis.canonical_order): adjacent definitions that do not use each other are put in one
order, and workspace offsets are taken up to a permutation among workspaces of one type
(the least canonical text over the ways of handing them out).

Two ops that are textually the same after canonicalisation get the same name (two identical
`memref.alloc`s are not told apart); that is the price of names that do not depend on order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ascend_ir_lab.analysis.canonical_order import offset_variants, sort_independent
from ascend_ir_lab.analysis.loc_strip import strip_loc

__all__ = ["canonical_lines", "comparable_lines", "inline_aliases", "split_top"]

_ALIAS_DEF = re.compile(r"^(#(?:map|set)\d*)\s*=\s*(.*)$")
_ALIAS_USE = re.compile(r"#(?:map|set)\d*(?![\w$.])")
_LOC_ALIAS = re.compile(r"^#loc\d*\s*=\s*loc\(")
_VALUE = re.compile(r"%[\w$.-]+(?:#\d+)?")
_RESULTS = re.compile(r"^(\s*)((?:%[\w$.-]+(?::\d+)?)(?:\s*,\s*%[\w$.-]+)*)\s*=\s*(.*)$")
_FUNC = re.compile(r"^\s*(?:func\.func|tt\.func|llvm\.func)\b")
_BLOCK = re.compile(r"^(\s*)(\^[\w$.-]+)(\((.*)\))?:")
_ARG = re.compile(r"(%[\w$.-]+)\s*:")
# `%arg3: memref<?xf32> {...}`: the name and the type (up to `,`, `)` or `{` outside <...>)
_ARG_DECL = re.compile(r"(%[\w$.-]+)\s*:\s*((?:[^,(){}<>]|<[^<>]*(?:<[^<>]*>[^<>]*)*>)+)")
_FOR = re.compile(
    r"^(?P<head>.*?\bscf\.for\s+)(?P<iv>%[\w$.-]+)(?P<mid>\s*=.*?)(?:\biter_args\((?P<iters>.*?)\)\s*->\s*\((?P<types>[^)]*)\))?(?P<tail>\s*(?::\s*\S+\s*)?\{\s*)$"
)
_YIELD = re.compile(r"^(\s*)scf\.yield\s+(.*?)\s*:\s*(.*)$")
_SPACE = re.compile(r"\s+")


def _hash(text: str) -> str:
    """12 hex digits of two 32-bit FNV-1a hashes over the code points (the viewer's
    canonical.ts computes the same: the sort order of iter_args depends on it)."""
    h1, h2 = 0x811C9DC5, 0x01000193
    for ch in text:
        c = ord(ch)
        h1 = ((h1 ^ c) * 0x01000193) & 0xFFFFFFFF
        h2 = ((h2 ^ c) * 0x01000193 + 0x9E3779B9) & 0xFFFFFFFF
    return f"{h1:08x}{h2 & 0xFFFF:04x}"


def split_top(text: str, sep: str = ",") -> list[str]:
    """Split at `sep` outside brackets and strings."""
    marks = _MARKS.get(sep) or _marks(sep)
    if marks.search(text) is None:  # no bracket, string or separator: one piece
        return [text.strip()]
    out, start = [], 0
    for cut in _top_cuts(text, marks, sep):
        out.append(text[start:cut])
        start = cut + 1
    out.append(text[start:])
    return [s.strip() for s in out]


_DEPTH = {"(": 1, "[": 1, "{": 1, "<": 1, ")": -1, "]": -1, "}": -1, ">": -1}


def _top_cuts(text: str, marks: re.Pattern[str], sep: str) -> list[int]:
    """Where `sep` stands outside brackets and strings (`->` closes no bracket)."""
    cuts, depth, in_str, skip = [], 0, False, -1
    for m in marks.finditer(text):
        i, c = m.start(), m.group()
        if i == skip:  # the character after a backslash in a string
            continue
        if in_str:
            if c == "\\":
                skip = i + 1
            in_str = c != '"'
        elif c == '"':
            in_str = True
        elif c in _DEPTH and not (c == ">" and i > 0 and text[i - 1] == "-"):
            depth += _DEPTH[c]
        elif c == sep and depth == 0:
            cuts.append(i)
    return cuts


def _marks(sep: str) -> re.Pattern[str]:
    """The characters `split_top` looks at: brackets, quotes, backslashes and `sep` (one
    character; a longer `sep` never matches one, as in a character-by-character scan)."""
    pattern = _MARKS[sep] = re.compile(
        r'[\\"()\[\]{}<>' + (re.escape(sep) if len(sep) == 1 else "") + "]"
    )
    return pattern


_MARKS: dict[str, re.Pattern[str]] = {}


class _Namer:
    """Canonical names of the values in scope, by content."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def use(self, text: str) -> str:
        """`text` with every value it uses replaced by its canonical name."""

        def sub(m: re.Match[str]) -> str:
            raw = m.group(0)
            if raw in self.names:
                return self.names[raw]
            base, sep, k = raw.partition("#")
            if sep and base in self.names:
                return f"{self.names[base]}#{k}"
            return raw

        return _VALUE.sub(sub, text)


def _sort_attr_dict(line: str) -> str:
    """Sort the entries of a trailing `{...}` attribute dictionary (and `attributes {...}`)."""
    stripped = line.rstrip()
    if not stripped.endswith("}") or stripped.lstrip() == "}" or "=" not in stripped:
        return line
    open_at = _matching_open(stripped)
    if open_at <= 0 or stripped[open_at - 1] not in " )>":
        return line
    body = stripped[open_at + 1 : -1]
    entries = split_top(body)
    if len(entries) < 2 or not all(re.match(r'^("[^"]*"|[\w$.-]+)(\s*=|$)', e) for e in entries):
        return line
    return stripped[: open_at + 1] + ", ".join(sorted(entries)) + "}"


def _matching_open(text: str) -> int:
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        c = text[i]
        if c == "}":
            depth += 1
        elif c == "{":
            depth -= 1
            if depth == 0:
                return i
    return -1


def inline_aliases(lines: Sequence[str]) -> list[str]:
    """Replace `#mapN`/`#setN` uses with their definitions; drop alias and `#loc` lines."""
    defs: dict[str, str] = {}
    body = []
    for line in lines:
        m = _ALIAS_DEF.match(line)
        if m:
            defs[m.group(1)] = strip_loc(m.group(2)).strip()
        elif not _LOC_ALIAS.match(line):
            body.append(line)
    if not defs:
        return body
    return [_ALIAS_USE.sub(lambda m: defs.get(m.group(0), m.group(0)), s) for s in body]


class _Canonicaliser:
    """One pass over the lines, naming values and reordering loop-carried arguments."""

    def __init__(self) -> None:
        self.namer = _Namer()
        self.yields: dict[int, list[int]] = {}  # indent of a loop body -> its permutation

    def line(self, raw: str) -> str:
        text = _SPACE.sub(" ", strip_loc(raw) if "loc(" in raw else raw).rstrip()
        indent = len(raw) - len(raw.lstrip())
        stripped = text.strip()
        if not stripped:
            return ""
        if _FUNC.match(stripped):
            return self._args_by_type(stripped)
        block = _BLOCK.match(text)
        if block:
            return self._args_by_position(stripped, "b")
        y = _YIELD.match(text)
        if y and indent in self.yields:
            return self._yield(indent, y)
        m = _RESULTS.match(text)
        if m:
            return self._define(m.group(2), _sort_attr_dict(m.group(3)), indent)
        loop = _FOR.match(stripped)
        if loop:
            return self._loop(loop, indent)
        return self.namer.use(_sort_attr_dict(stripped))

    def _args_by_position(self, text: str, prefix: str) -> str:
        for k, name in enumerate(_ARG.findall(text.split("->")[0])):
            self.namer.names[name] = f"%{prefix}{k}"
        return self.namer.use(_sort_attr_dict(text))

    def _args_by_type(self, text: str) -> str:
        """A function's arguments named by their type and their rank among the arguments of
        that type (`%i32_2`, `%memref_xf32_0`): an argument inserted before them (as
        hfusion-add-ffts-addr inserts one) leaves the others' names as they were."""
        head = text.split("->")[0]
        seen: dict[str, int] = {}
        for m in _ARG_DECL.finditer(head):
            tag = re.sub(r"[^A-Za-z0-9]+", "_", m.group(2)).strip("_")[:24] or "a"
            k = seen.get(tag, 0)
            seen[tag] = k + 1
            self.namer.names[m.group(1)] = f"%{tag}_{k}"
        return self.namer.use(_sort_attr_dict(text))

    def _define(self, results: str, rhs: str, indent: int) -> str:
        loop = _FOR.match(rhs)
        if loop:
            rhs = self._loop(loop, indent)
        else:
            rhs = self.namer.use(rhs)
        key = _hash(rhs)
        parts = [r.strip() for r in results.split(",")]
        if len(parts) == 1:
            name, _, count = parts[0].partition(":")
            self.namer.names[name] = f"%h{key}"
            return f"%h{key}{':' + count if count else ''} = {rhs}"
        for k, name in enumerate(parts):
            self.namer.names[name] = f"%h{key}_{k}"
        return ", ".join(f"%h{key}_{k}" for k in range(len(parts))) + f" = {rhs}"

    def _loop(self, m: re.Match[str], indent: int) -> str:
        self.namer.names[m["iv"]] = f"%iv{indent}"
        head = self.namer.use(m["head"]) + f"%iv{indent}" + self.namer.use(m["mid"])
        if not m["iters"]:
            return head + m["tail"].rstrip()
        iters = [split_top(p, "=") for p in split_top(m["iters"])]
        types = split_top(m["types"])
        inits = [self.namer.use(p[1]) if len(p) > 1 else "" for p in iters]
        order = sorted(
            range(len(iters)), key=lambda k: (inits[k], types[k] if k < len(types) else "")
        )
        for k in range(len(iters)):
            self.namer.names[iters[k][0]] = (
                f"%i{_hash(inits[k] + (types[k] if k < len(types) else ''))}"
            )
        self.yields[indent + 2] = order
        pairs = ", ".join(f"{self.namer.names[iters[k][0]]} = {inits[k]}" for k in order)
        kinds = ", ".join(types[k] for k in order if k < len(types))
        return f"{head}iter_args({pairs}) -> ({kinds}){m['tail'].rstrip()}"

    def _yield(self, indent: int, m: re.Match[str]) -> str:
        order = self.yields.pop(indent)
        values = [self.namer.use(v) for v in split_top(m.group(2))]
        types = split_top(m.group(3))
        if len(values) != len(order):
            return f"scf.yield {', '.join(values)} : {', '.join(types)}"
        return (
            f"scf.yield {', '.join(values[k] for k in order)} : "
            f"{', '.join(types[k] for k in order if k < len(types))}"
        )


def _permute_results(lines: list[str], loops: dict[str, list[int]]) -> list[str]:
    """Uses `%R#k` of a permuted loop's results point at the k's new position."""
    if not loops:
        return lines

    def sub(m: re.Match[str]) -> str:
        order = loops.get(m.group(1))
        k = int(m.group(2))
        return f"{m.group(1)}#{order.index(k)}" if order and k < len(order) else m.group(0)

    pattern = re.compile(r"(%h[0-9a-f]+)#(\d+)")
    return [pattern.sub(sub, s) for s in lines]


def canonical_lines(lines: Sequence[str]) -> list[str]:
    """The canonical form of one snapshot's lines, as the viewer shows it (its twin in
    canonical.ts; see the module docstring)."""
    return _canonical(inline_aliases(lines), order=False)


def comparable_lines(lines: Sequence[str]) -> list[str]:
    """The canonical form comparisons use: also independent definitions in one order and
    workspace offsets up to a permutation (analysis.canonical_order)."""
    variants = [_canonical(v, order=True) for v in offset_variants(inline_aliases(lines))]
    return min(variants, key="\n".join) if len(variants) > 1 else variants[0]


def _canonical(lines: Sequence[str], order: bool) -> list[str]:
    canon = _Canonicaliser()
    out: list[str] = []
    loops: dict[str, list[int]] = {}
    for raw in lines:
        before = dict(canon.yields)
        text = canon.line(raw)
        new = {k: v for k, v in canon.yields.items() if before.get(k) is not v}
        if new and text.startswith("%h"):
            loops[text.split(":")[0].split(" ")[0]] = next(iter(new.values()))
        if text:
            out.append(text)
    out = _permute_results(out, loops)
    return _renumber(sort_independent(out) if order else out)


def _renumber(lines: list[str]) -> list[str]:
    """Hashed names -> `%vN` in order of first appearance (stable when the lines are equal)."""
    names: dict[str, str] = {}

    def sub(m: re.Match[str]) -> str:
        return names.setdefault(m.group(0), f"%v{len(names)}")

    pattern = re.compile(r"%[hi][0-9a-f]{12}(?:_\d+)?")
    return [pattern.sub(sub, s) for s in lines]
