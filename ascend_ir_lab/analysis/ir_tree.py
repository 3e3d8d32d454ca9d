"""The functions of one snapshot as a tree of ops and regions, and what their values are.

Enough structure for the sync checker: `scf.for`/`scf.while` bodies, `scf.if` branches and
other regions (run once), each op with its line; every SSA definition by name, so memref
values can be followed through views and casts to the buffer they live in, and event ids
to the constants they may take.
"""

from __future__ import annotations

import re
from collections import ChainMap
from collections.abc import Mapping
from dataclasses import dataclass, field

from ascend_ir_lab.analysis.canonical import split_top
from ascend_ir_lab.analysis.loc_strip import strip_loc

__all__ = ["Buffer", "Function", "Node", "functions", "value_set"]

# the symbol bare (`@k`) or quoted (`@"kernel v2"`, as MLIR prints a name of other characters)
_FUNC = re.compile(r'^(\s*)func\.func\s+(?:\w+\s+)*@([\w$.-]+|"(?:[^"\\]|\\.)*")\s*\((.*)$')
_DEF = re.compile(r"^\s*(%[\w$.-]+)(?::\d+)?((?:\s*,\s*%[\w$.-]+(?::\d+)?)*)\s*=\s*(.*)$")
_ARG = re.compile(r"(%[\w$.-]+)\s*:\s*(memref<[^>]*(?:<[^>]*>[^>]*)*>|[\w.]+)")
_CONST = re.compile(r"^arith\.constant\s+(-?\d+|true|false)\b")
_POINTER = re.compile(
    r"^hivm\.hir\.pointer_cast\((%[\w$.-]+)[^)]*\)\s*:\s*memref<((?:[\d?]+x)*)(\w+).*?#hivm\.address_space<(\w+)>"
)
_AT_START = re.compile(
    r"^memref\.subview\s+%[\w$.-]+\[(?:0\s*,\s*)*0\]|^memref\.reinterpret_cast\s+%[\w$.-]+\s+to\s+offset:\s*\[0\]"
)
_SPACE = re.compile(r"#hivm\.address_space<(\w+)>")
_VIEW = re.compile(
    r"^(?:memref\.(?:cast|subview|reinterpret_cast|collapse_shape|expand_shape|view|transpose|extract_strided_metadata)|memref_ext\.\w+_view|hivm\.hir\.bitcast)\s+(%[\w$.-]+(?:#\d+)?)"
)
_SELECT = re.compile(
    r"^arith\.select\s+%[\w$.-]+(?:#\d+)?\s*,\s*(%[\w$.-]+(?:#\d+)?)\s*,\s*(%[\w$.-]+(?:#\d+)?)"
)
_PASS = re.compile(r"^arith\.(?:extui|extsi|index_cast|index_castui|trunci|bitcast)\s+(%[\w$.-]+)")
# bits per element: the local memories pack i1 (the planned offsets leave n/8 bytes for it)
_BITS = {"f32": 32, "i32": 32, "f16": 16, "bf16": 16, "i16": 16, "i8": 8, "i1": 1, "f64": 64,
         "i64": 64}  # fmt: skip


@dataclass
class Node:
    """An op (`kind` "op") or a region-holding op ("for", "while", "if", "region")."""

    kind: str
    line: int  # 0-based line of the op in the snapshot
    text: str = ""
    body: list[Node] = field(default_factory=list)
    orelse: list[Node] = field(default_factory=list)
    # the definitions in scope here (sibling regions may reuse a name)
    env: Mapping[str, str] = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class Buffer:
    """Where a memref lives: an address space and a byte range (None: unknown), or a named
    global-memory root (a function argument, a workspace)."""

    space: str
    start: int | None
    size: int | None
    root: str  # the SSA value of the root allocation
    partial: bool = False  # reached through a subview/view: may touch only part of it

    def label(self) -> str:
        """`ub[2048, +4096)`, `gm %arg3`."""
        if self.start is None or self.size is None:
            return f"{self.space} {self.root}"
        return f"{self.space}[{self.start}, +{self.size})"


@dataclass
class Function:
    """One function: its name, its first line, its ops and the definitions of its values."""

    name: str
    line: int
    body: list[Node]
    defs: dict[str, str]
    args: dict[str, str]  # argument -> its type

    def buffers(
        self, value: str, env: Mapping[str, str] | None = None, depth: int = 0
    ) -> list[Buffer]:
        """The buffers `value` may be (several through a select; [] when unknown), with the
        definitions in scope `env` (the function's, by default)."""
        env = self.defs if env is None else env
        if depth > 32:
            return []
        text = env.get(value, self.defs.get(value))
        if text is None:
            arg = self.args.get(value, "")
            space = _SPACE.search(arg)
            return (
                [Buffer(space.group(1) if space else "gm", None, None, value)]
                if arg.startswith("memref")
                else []
            )
        return self._buffers_of(value, text, env, depth)

    def _buffers_of(
        self, value: str, text: str, env: Mapping[str, str], depth: int
    ) -> list[Buffer]:
        p = _POINTER.match(text)
        if p:
            start = self.constant(p.group(1), env)
            return [Buffer(p.group(4), start, _size(p.group(2), p.group(3)), value)]
        v = _VIEW.match(text)
        if v:
            partial = text.startswith(("memref.subview", "memref.view", "memref.reinterpret_cast"))
            partial = partial and not _AT_START.match(text)  # a view at offset 0 holds the start
            return [_partial(b) if partial else b for b in self.buffers(v.group(1), env, depth + 1)]
        s = _SELECT.match(text)
        if s and "memref<" in text:
            return self.buffers(s.group(1), env, depth + 1) + self.buffers(
                s.group(2), env, depth + 1
            )
        if text.startswith(_CARRIED):  # a loop-carried memref: its initial or yielded value
            found = [b for v in text.split()[1:] for b in self.buffers(v, env, depth + 1)]
            return [_partial(b) for b in dict.fromkeys(found)]
        space = _SPACE.search(text)
        if text.startswith("memref_ext.alloc_workspace") or (space and "alloc" in text.split()[0]):
            return [Buffer(space.group(1) if space else "gm", None, None, value)]
        return []

    def constant(self, value: str, env: Mapping[str, str] | None = None) -> int | None:
        """The integer an `arith.constant` value holds (None otherwise)."""
        c = _CONST.match((self.defs if env is None else env).get(value, ""))
        if not c:
            return None
        word = c.group(1)
        return (
            {"true": 1, "false": 0}.get(word, None) if not word.lstrip("-").isdigit() else int(word)
        )


_CARRIED = "loop-carried "
_ITER = re.compile(r"\biter_args\((.*?)\)\s*->")
_RESULT = re.compile(r"^(%[\w$.-]+)(?::\d+)?\s*=")


def _partial(b: Buffer) -> Buffer:
    return Buffer(b.space, b.start, b.size, b.root, True)


def _size(shape: str, elem: str) -> int | None:
    dims = [d for d in shape.split("x") if d]
    if not dims or not all(d.isdigit() for d in dims):
        return None
    n = 1
    for d in dims:
        n *= int(d)
    return max(1, (n * _BITS[elem] + 7) // 8) if elem in _BITS else None


def value_set(
    fn: Function, value: str, env: Mapping[str, str] | None = None, depth: int = 0
) -> frozenset[int] | None:
    """The constants an event id or flag may be: `<EVENT_ID3>` or `3` -> {3}; an SSA value
    through selects, casts and i1 logic; None when it cannot be told."""
    env = fn.defs if env is None else env
    text = value.strip().strip("<>")
    if text.startswith("EVENT_ID") and text[8:].isdigit():
        return frozenset({int(text[8:])})
    if text.lstrip("-").isdigit():
        return frozenset({int(text)})
    if not text.startswith("%") or depth > 16:
        return None
    const = fn.constant(text, env)
    if const is not None:
        return frozenset({const})
    d = env.get(text, "")
    s = _SELECT.match(d)
    if s:
        a, b = value_set(fn, s.group(1), env, depth + 1), value_set(fn, s.group(2), env, depth + 1)
        return a | b if a is not None and b is not None else None
    p = _PASS.match(d)
    if p:
        if re.search(r":\s*i1\b", d.split(" to ")[0]) or d.rstrip().endswith("to i1"):
            return frozenset({0, 1})
        return value_set(fn, p.group(1), env, depth + 1)
    if re.search(r":\s*i1\s*$", d):
        return frozenset({0, 1})
    return None


def functions(lines: list[str]) -> list[Function]:
    """Every `func.func` with a body in the snapshot."""
    out = []
    i = 0
    while i < len(lines):
        m = _FUNC.match(strip_loc(lines[i]))
        if m and strip_loc(lines[i]).rstrip().endswith("{"):
            fn, i = _parse_function(lines, i, m)
            out.append(fn)
            continue
        i += 1
    return out


def _parse_function(lines: list[str], start: int, m: re.Match[str]) -> tuple[Function, int]:
    header = strip_loc(lines[start])
    args = {
        name: kind for name, kind in _ARG.findall(header.split(") ->")[0].split(") attributes")[0])
    }
    fn = Function(m.group(2), start, [], {}, args)
    b = _Builder(fn)
    i = start + 1
    while i < len(lines) and b.stack:
        text = strip_loc(lines[i]).strip()
        i += 1
        if text:
            b.step(text, i - 1)
    return fn, i


class _Builder:
    """The tree under construction: open regions, the ops holding them, scopes of names."""

    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.stack: list[list[Node]] = [fn.body]
        self.holders: list[Node] = []
        self.scopes: ChainMap[str, str] = ChainMap({})

    def step(self, text: str, line: int) -> None:
        """Add one line."""
        if text.startswith("}"):
            self.close(text)
            return
        d = _DEF.match(text)
        if d:  # the first result; `%5:2 = ...` also defines %5#0, %5#1...
            name, value = d.group(1, 3)
            here = self.scopes.maps[0]  # where a ChainMap writes, without its own call
            here[name] = self.fn.defs[name] = value
            here.update({f"{name}#{k}": value for k in range(8)})
        if text.endswith("{"):
            kind = "for" if "scf.for" in text else "while" if "scf.while" in text else (
                "if" if "scf.if" in text else "region")  # fmt: skip
            node = Node(kind, line, text, env=self.scopes)
            self.stack[-1].append(node)
            self.stack.append(node.body)
            self.holders.append(node)
            self.scopes = self.scopes.new_child()
            if kind == "for":
                self._iter_args(node)
            return
        if text.startswith("scf.yield") and self.holders and self.holders[-1].kind == "for":
            self._yield(self.holders[-1], text)
        self.stack[-1].append(Node("op", line, text, env=self.scopes))

    def _iter_args(self, node: Node) -> None:
        """An iter_arg and the loop's result: the initial value (the yield adds its own)."""
        m, result = _ITER.search(node.text), _RESULT.match(node.text)
        if not m:
            return
        body, outer = self.scopes.maps[0], self.scopes.maps[1]
        for k, pair in enumerate(split_top(m.group(1))):
            arg, _, init = (p.strip() for p in pair.partition("="))
            body[arg] = f"{_CARRIED}{init}"
            if result:
                outer[f"{result.group(1)}#{k}"] = f"{_CARRIED}{init}"

    def _yield(self, node: Node, text: str) -> None:
        """The values an iter_arg (and the loop result) takes from the next iteration on."""
        m, result = _ITER.search(node.text), _RESULT.match(node.text)
        if not m or len(self.scopes.maps) < 2:
            return
        values = split_top(text[len("scf.yield") :].split(" : ")[0])
        body, outer = self.scopes.maps[0], self.scopes.maps[1]
        for k, pair in enumerate(split_top(m.group(1))):
            arg = pair.partition("=")[0].strip()
            if k < len(values) and body.get(arg, "").startswith(_CARRIED):
                body[arg] = f"{body[arg]} {values[k]}"
                if result:
                    outer[f"{result.group(1)}#{k}"] = body[arg]

    def close(self, text: str) -> None:
        """`}`, `} {attrs}`, or `} else {` / `} do {` (the next region of the same op)."""
        if text.endswith("{") and self.holders:
            node = self.holders[-1]
            self.stack[-1] = node.orelse if text.startswith("} else") else node.body
            self.scopes = self.scopes.parents.new_child()
            return
        self.stack.pop()
        if len(self.scopes.maps) > 1:
            self.scopes = self.scopes.parents
        if self.holders and len(self.stack) == len(self.holders):
            self.holders.pop()
