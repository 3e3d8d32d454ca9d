"""The abstract state of the sync checker on one path: pending flags and unordered accesses."""

from __future__ import annotations

from dataclasses import dataclass

from ascend_ir_lab.analysis.ir_tree import Buffer

__all__ = ["Rec", "State", "Token", "alias"]


@dataclass(frozen=True, order=True)
class Token:
    """A flag set and not yet waited: pipes, the event ids it may be, the set's line."""

    p: str
    q: str
    evs: frozenset[int] | None
    origin: int
    slot: int = 0  # which of the sets an op makes (a macro op sets one flag per operand)

    def sort_key(self) -> tuple[str, str, tuple[int, ...], int, int]:
        """A total order by content (event sets are not ordered among themselves): an
        unknown event id first, then the ids sorted."""
        evs = (1, *sorted(self.evs)) if self.evs is not None else (0,)
        return (self.p, self.q, evs, self.origin, self.slot)


@dataclass(frozen=True)
class Rec:
    """An access pipe `pipe` made to buffer set `buf`, and who has been ordered after it."""

    line: int
    pipe: str
    write: bool
    buf: int
    covered: frozenset[str] = frozenset()  # pipes ordered after this access
    signals: frozenset[tuple[str, int, int]] = frozenset()  # (pipe, set line, slot) raised


@dataclass(frozen=True)
class State:
    """Pending flags (sorted) and the accesses not yet ordered for every pipe."""

    tokens: tuple[Token, ...]
    recs: frozenset[Rec]

    def set(self, token: Token) -> State:
        """`set_flag`: the accesses of the setting pipe (and those it was ordered after) are
        signalled to the waiting pipe."""
        sig = (token.q, token.origin, token.slot)
        recs = frozenset(
            Rec(r.line, r.pipe, r.write, r.buf, r.covered, r.signals | {sig})
            if r.pipe == token.p or token.p in r.covered
            else r
            for r in self.recs
        )
        tokens = tuple(sorted((*self.tokens, token), key=Token.sort_key))
        return State(tokens, recs)

    def match(self, p: str, q: str, evs: frozenset[int] | None) -> Token | None:
        """The pending flag a `wait_flag[p, q, evs]` consumes: the same event ids first,
        else one that may be the same at run time."""
        same = [t for t in self.tokens if (t.p, t.q) == (p, q)]
        exact = next((t for t in same if t.evs == evs), None)
        if exact is not None:
            return exact
        return next((t for t in same if t.evs is None or evs is None or t.evs & evs), None)

    def consume(self, token: Token) -> State:
        """`wait_flag`: the waiting pipe is ordered after what the flag was raised for. A wait
        of the scalar pipe orders every pipe: S issues every later instruction (the sync
        solver takes a flag to PIPE_S as reaching every pipe of the core, GraphSolver.cpp)."""
        tokens = list(self.tokens)
        tokens.remove(token)
        key = (token.q, token.origin, token.slot)
        if token.q == "PIPE_S":
            return State(tuple(tokens), frozenset(r for r in self.recs if key not in r.signals))
        recs = frozenset(
            Rec(r.line, r.pipe, r.write, r.buf, r.covered | {token.q}, r.signals - {key})
            if key in r.signals
            else r
            for r in self.recs
        )
        return State(tuple(tokens), recs)

    def barrier(self, pipe: str) -> State:
        """`pipe_barrier[PIPE_ALL]` orders everything; `pipe_barrier[X]` orders X after X."""
        if pipe == "PIPE_ALL":
            return State(self.tokens, frozenset())
        if not any(r.pipe == pipe for r in self.recs):
            return self
        recs = frozenset(
            Rec(r.line, r.pipe, r.write, r.buf, r.covered | {pipe}, r.signals)
            if r.pipe == pipe
            else r
            for r in self.recs
        )
        return State(self.tokens, recs)

    def add(self, rec: Rec) -> State:
        """Record an access; an earlier access of the same pipe to the same buffers that the
        new one stands for (a write, or a read after a read) is dropped."""
        keep = frozenset(
            r
            for r in self.recs
            if not (r.pipe == rec.pipe and r.buf == rec.buf and (rec.write or not r.write))
        )
        return State(self.tokens, keep | {rec})


def alias(a: tuple[Buffer, ...], b: tuple[Buffer, ...]) -> str | None:
    """Whether two buffer sets overlap: "definite", "possible" or None (surely not)."""
    verdicts = {_overlap(x, y) for x in a for y in b} - {None}
    if not verdicts:
        return None
    sure = len(a) == len(b) == 1 and verdicts == {"definite"}
    return "definite" if sure else "possible"


def _overlap(x: Buffer, y: Buffer) -> str | None:
    if x.space != y.space:
        return None
    known = None not in (x.start, x.size, y.start, y.size)
    if known:
        assert x.start is not None and x.size is not None
        assert y.start is not None and y.size is not None
        if x.start + x.size <= y.start or y.start + y.size <= x.start:
            return None
        return "possible" if x.partial or y.partial else "definite"
    if x.root == y.root:
        return "possible" if x.partial or y.partial else "definite"
    if x.space == "gm":
        return None  # distinct arguments and workspaces are taken not to overlap
    return "possible"
