"""The sync checker: pairs every wait_flag with the set_flag reaching it and finds hazards.

Each function is run abstractly over its ops (analysis.ir_tree) with the pipe and buffer
model of analysis.hivm_ops. The state on each path holds the flags set and not yet waited
(their event ids as the constants they may take: `%38` from multi-buffering is {0, 1}) and
the buffer accesses each pipe has made that another pipe has not yet been ordered after.

- `scf.for`/`scf.while` bodies run until the state repeats (first iteration, steady state,
  exit; at most LOOP_RUNS times); `scf.if` runs both branches and keeps both states.
- `set_flag[P, Q, e]` marks the accesses pipe P has made (and those P was ordered after) as
  signalled to Q; the `wait_flag[P, Q, e]` that consumes that flag orders Q after them.
  `pipe_barrier[PIPE_ALL]` orders everything; `pipe_barrier[X]` orders X after itself.
- An access by pipe Q to a buffer that an unordered access of pipe P != Q wrote (or read, if
  Q writes) is a hazard. Vector instructions are not ordered by the V pipe itself either:
  dependent ones need `pipe_barrier[PIPE_V]` (that is what the compiler inserts).
- A wait no flag reaches is a hang; a flag left at the end is a leak; a flag set again
  while the same one is pending is reused before it was consumed.

Findings are *definite* when the buffers surely overlap and the event ids are known, and
*possible* when aliasing (a select of buffers, a subview, an unknown offset) or a runtime
event id leaves it open. Cross-core sync (`sync_block_set/wait`) is paired by pipe and flag
across the functions of a mix kernel; distributed primitives are recognised and listed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from ascend_ir_lab.analysis.hivm_ops import parse_op
from ascend_ir_lab.analysis.ir_tree import Buffer, Function, Node, functions, value_set
from ascend_ir_lab.analysis.locations import source_map
from ascend_ir_lab.analysis.sync_cross import cross_core
from ascend_ir_lab.analysis.sync_findings import Finding, SyncCheck
from ascend_ir_lab.analysis.sync_state import Rec, State, Token, alias

__all__ = ["Finding", "SyncCheck", "check_sync"]

LOOP_RUNS = 5
# pipes whose dependent instructions need a pipe_barrier of their own pipe between them
SAME_PIPE_ORDERED = {"PIPE_V", "PIPE_MTE2", "PIPE_MTE3", "PIPE_MTE1", "PIPE_M", "PIPE_FIX"}
MAX_STATES = 16
_SCALAR = re.compile(r"\bmemref\.(?P<op>store|load)\s+(?:%[\w$.-]+\s*,\s*)?(?P<buf>%[\w$.-]+)\[")
_DIST = re.compile(r'\b(?:distributed|tdl|dist)\.(?:wait|notify|symm_at)\b|"dist\.aclshmem_\w*"')


class _Checker:
    """The abstract run of one function."""

    def __init__(self, fn: Function, lines: Sequence[str]) -> None:
        self.fn = fn
        self.lines = lines
        self.found: dict[tuple[Any, ...], Finding] = {}
        self.bufsets: list[tuple[Buffer, ...]] = []
        self._bufindex: dict[tuple[Buffer, ...], int] = {}
        self._ops: dict[int, Any] = {}
        self._bufs: dict[tuple[str, int], int | None] = {}

    def run(self) -> list[Finding]:
        states = self.block(self.fn.body, {State((), frozenset())})
        for s in states:
            for t in s.tokens:
                self.report("leak", t.origin, "definite" if t.evs is not None else "possible",
                            f"set_flag never waited ({_evs(t.evs)})", (t.p, t.q))  # fmt: skip
        return sorted(self.found.values(), key=Finding.sort_key)

    # -- control flow ----------------------------------------------------------------------
    def block(self, nodes: list[Node], states: set[State]) -> set[State]:
        for node in nodes:
            if node.kind == "op":
                states = {self.op(node, s) for s in states}
            elif node.kind in ("for", "while"):
                states = self.loop(node, states)
            elif node.kind == "if":
                states = self.block(node.body, states) | self.block(node.orelse, states)
            else:
                states = self.block(node.body, states)
            states = _cap(states)
        return states

    def loop(self, node: Node, states: set[State]) -> set[State]:
        current = states
        for _ in range(LOOP_RUNS):
            after = self.block(node.body, current)
            if after == current:
                break
            current = after
        return current

    # -- ops -------------------------------------------------------------------------------
    def op(self, node: Node, s: State) -> State:
        if node.line not in self._ops:
            self._ops[node.line] = parse_op(node.text)
        op = self._ops[node.line]
        if op is None:
            return self.scalar(node, s)
        line = node.line
        if op.kind == "sync" and len(op.args) >= 3 and op.name in ("set_flag", "wait_flag"):
            evs = value_set(self.fn, op.args[2], node.env)
            if op.name == "set_flag":
                return self.set_flag(s, op.args[0], op.args[1], evs, line)
            return self.wait_flag(s, op.args[0], op.args[1], evs, line)
        if op.kind == "sync" and op.name == "pipe_barrier" and op.args:
            return s.barrier(op.args[0])
        if op.kind == "macro":
            return self.macro(s, op, node)
        if op.kind in ("access", "custom") and op.pipe:
            return self.access(s, node, op.pipe, [*op.reads], False, writes=op.writes)
        return s

    def scalar(self, node: Node, s: State) -> State:
        """`memref.store`/`memref.load` of a local buffer: an access on the scalar pipe."""
        m = _SCALAR.search(node.text) if "memref." in node.text else None
        if m is None or "#hivm.address_space<gm>" in node.text:
            return s
        return self.access(s, node, "PIPE_S", [(m.group("buf"), "")], m.group("op") == "store")

    def macro(self, s: State, op: Any, node: Node) -> State:
        """mmadL1 & co on MTE1 then M: for A and B in turn, wait MTE2->MTE1 (args 0, 1), read
        it from L1, set MTE1->MTE2 (args 2, 3); then write L0C on M. -1 means no flag."""
        args, ins = op.sync_args, list(op.reads)
        for k in (0, 1):
            s = self._implicit(s, node, args, k, "PIPE_MTE2", "PIPE_MTE1")
            s = self.access(s, node, op.pipe, ins[k : k + 1], False)
            s = self._implicit(s, node, args, k + 2, "PIPE_MTE1", "PIPE_MTE2")
        s = self.access(s, node, op.pipe, ins[2:], False)
        s = self.access(s, node, op.out_pipe, op.writes, False)
        return self.access(s, node, op.out_pipe, op.writes, True)

    def _implicit(self, s: State, node: Node, args: list[str], k: int, p: str, q: str) -> State:
        evs = value_set(self.fn, args[k], node.env) if k < len(args) else frozenset({-1})
        if evs == frozenset({-1}):
            return s
        if k < 2:
            return self.wait_flag(s, p, q, evs, node.line)
        return self.set_flag(s, p, q, evs, node.line, slot=k)

    def set_flag(
        self, s: State, p: str, q: str, evs: frozenset[int] | None, line: int, slot: int = 0
    ) -> State:
        pending = next((t for t in s.tokens if (t.p, t.q) == (p, q) and t.evs == evs), None)
        if pending is not None and evs is not None:
            self.report("reuse", line, "definite" if len(evs) == 1 else "possible",
                        f"flag {_evs(evs)} set again before the wait of the set on line "
                        f"{pending.origin + 1}", (p, q), other=pending.origin)  # fmt: skip
        return s.set(Token(p, q, evs, line, slot))

    def wait_flag(self, s: State, p: str, q: str, evs: frozenset[int] | None, line: int) -> State:
        token = s.match(p, q, evs)
        if token is None:
            self.report("hang", line, "definite" if evs is not None else "possible",
                        f"wait_flag ({_evs(evs)}) with no set_flag reaching it", (p, q))  # fmt: skip
            return s
        return s.consume(token)

    def access(
        self, s: State, node: Node, pipe: str, values: Iterable[tuple[str, str]], write: bool,
        writes: Iterable[tuple[str, str]] = (),
    ) -> State:  # fmt: skip
        """The accesses of one op (`values`, and `writes` written): each checked against the
        state before the op, then recorded (an op's own read does not hide an earlier one)."""
        line = node.line
        todo = [(v, write) for v, _ in values] + [(v, True) for v, _ in writes]
        recs = []
        for value, w in todo:
            buf = self._buf(value, node)
            if buf is None:
                continue
            for r in s.recs:
                self._hazard(r, line, pipe, buf, w)
            recs.append(Rec(line, pipe, w, buf))
        for rec in recs:
            s = s.add(rec)
        return s

    def _hazard(self, r: Rec, line: int, pipe: str, buf: int, write: bool) -> None:
        if not (r.write or write) or pipe in r.covered or r.line == line:
            return
        if r.pipe == pipe and pipe not in SAME_PIPE_ORDERED:
            return
        how = alias(self.bufsets[r.buf], self.bufsets[buf])
        if how is None or (r.pipe == pipe and self.bufsets[buf][0].space == "gm"):
            return  # a DMA pipe keeps its own order to global memory
        what = (
            "write after write"
            if r.write and write
            else "read after write"
            if r.write
            else "write after read"
        )
        need = (
            f"pipe_barrier[{pipe}]" if r.pipe == pipe else f"set_flag/wait_flag[{r.pipe}, {pipe}]"
        )
        self.report("hazard", line, how, f"{what} of {_op_name(self.lines[r.line])} on line "
                    f"{r.line + 1} with no {need} between", (r.pipe, pipe),
                    buffer=self.bufsets[buf][0].label(), other=r.line)  # fmt: skip

    def _buf(self, value: str, node: Node) -> int | None:
        key = (value, node.line)
        if key not in self._bufs:
            self._bufs[key] = self._new_buf(value, node)
        return self._bufs[key]

    def _new_buf(self, value: str, node: Node) -> int | None:
        bufs = tuple(dict.fromkeys(self.fn.buffers(value, node.env)))
        if not bufs:
            return None
        if bufs not in self._bufindex:
            self._bufindex[bufs] = len(self.bufsets)
            self.bufsets.append(bufs)
        return self._bufindex[bufs]

    def report(
        self, kind: str, line: int, severity: str, message: str, pipes: tuple[str, str],
        buffer: str = "", other: int | None = None,
    ) -> None:  # fmt: skip
        key = (kind, line, pipes, other)
        new = Finding(line, severity, kind, message, pipes, buffer, other, self.fn.name)
        old = self.found.get(key)
        if old is None or _rank(new) < _rank(old):
            self.found[key] = new


def _rank(f: Finding) -> tuple[bool, str, str]:
    """Which of two findings at one place is kept: definite first, then the first by text, so
    the answer does not follow the order paths and accesses were visited in (set order)."""
    return (f.severity != "definite", f.message, f.buffer)


def _cap(states: set[State]) -> set[State]:
    """Join the states that agree on the pending flags (their accesses united: an access
    unordered on one path stays unordered); beyond MAX_STATES flag states, keep those with
    the most pending flags (where hangs and leaks show)."""
    by_tokens: dict[tuple[Token, ...], frozenset[Rec]] = {}
    for s in states:
        by_tokens[s.tokens] = by_tokens.get(s.tokens, frozenset()) | s.recs
    joined = {State(t, r) for t, r in by_tokens.items()}
    if len(joined) <= MAX_STATES:
        return joined
    return set(sorted(joined, key=_keep_first)[:MAX_STATES])


def _keep_first(
    s: State,
) -> tuple[int, int, tuple[tuple[str, str, tuple[int, ...], int, int], ...]]:
    """Most pending flags first, then fewest accesses, then the flags themselves (a total
    order: joined states differ in their flags)."""
    return (-len(s.tokens), len(s.recs), tuple(t.sort_key() for t in s.tokens))


def _evs(evs: frozenset[int] | None) -> str:
    if evs is None:
        return "event unknown"
    return "event " + " or ".join(str(e) for e in sorted(evs))


def _op_name(line: str) -> str:
    m = re.search(r"\b(hivm\.hir\.\w+)", line)
    return m.group(1) if m else "an op"


def check_sync(
    lines: Sequence[str], *, scope: str = "", source_file: str | None = None
) -> SyncCheck:
    """Check the functions of one snapshot (only the one `scope` names, `func.func @f`)."""
    lines = list(lines)
    symbol = scope.partition(" @")[2] if scope and not scope.startswith("builtin.module") else ""
    result = SyncCheck()
    every = functions(lines)
    fns = [f for f in every if not symbol or f.name == symbol]
    for fn in fns:
        if not any("hivm.hir." in lines[n.line] for n in _walk(fn.body)):
            continue
        result.functions.append(fn.name)
        result.findings += _Checker(fn, lines).run()
    cross, ops = cross_core(lines, every)
    result.findings += [f for f in cross if f.function in result.functions]
    result.cross_core = ops
    result.distributed = [
        i for i, s in enumerate(lines) if ("dist" in s or "tdl" in s) and _DIST.search(s)
    ]
    _add_sources(result, lines, source_file)
    result.findings.sort(key=Finding.sort_key)
    return result


def _walk(nodes: list[Node]) -> Iterable[Node]:
    for n in nodes:
        yield n
        yield from _walk(n.body)
        yield from _walk(n.orelse)


def _add_sources(result: SyncCheck, lines: Sequence[str], source_file: str | None) -> None:
    where = dict(source_map(lines, source_file))
    result.findings = [
        Finding(
            f.line,
            f.severity,
            f.kind,
            f.message,
            f.pipes,
            f.buffer,
            f.other_line,
            f.function,
            where.get(f.line),
        )  # fmt: skip
        for f in result.findings
    ]
