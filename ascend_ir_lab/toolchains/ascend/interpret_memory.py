"""Which bytes a run of interpreted programs read and wrote, and whether two such runs can
be told apart from one sequential run.

Triton's interpreter reaches memory only through the builder's masked load and store (plain
loads, stores and block-pointer loads all end there). `watched(...)` records, for the block,
the byte span (lowest to highest address, of the elements the mask lets through) of every
load and store, and notes the ops whose effect depends on the order programs run in
(atomics, prints, Python's own print, asserts, barriers, inter-core syncs). `Footprint` holds those spans merged
into sorted, disjoint intervals; `independent(...)` says whether no program set wrote bytes
another read or wrote, in which case running them in any order, or apart, leaves memory as
one sequential run does.
"""

from __future__ import annotations

import builtins
import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Footprint", "independent", "watched"]

_ORDERED = (
    "create_atomic_cas",
    "create_atomic_rmw",
    "create_print",
    "create_assert",
    "create_barrier",
    "create_custom_op_for_inter_core_sync",
)


class OrderDependent(Exception):
    """A program used an op whose effect depends on the order programs run in."""


@dataclass
class Footprint:
    """The byte intervals `[lo, hi)` read and written, and the order-dependent op seen."""

    loads: list[tuple[int, int]] = field(default_factory=list)
    stores: list[tuple[int, int]] = field(default_factory=list)
    ordered: str = ""

    def merged(self) -> Footprint:
        """The same footprint with each list sorted and merged into disjoint intervals."""
        return Footprint(_merged(self.loads), _merged(self.stores), self.ordered)


def _merged(spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _overlap(a: Sequence[tuple[int, int]], b: Sequence[tuple[int, int]]) -> bool:
    """Whether two sorted lists of disjoint intervals share a byte."""
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i][1] <= b[j][0]:
            i += 1
        elif b[j][1] <= a[i][0]:
            j += 1
        else:
            return True
    return False


def independent(prints: Sequence[Footprint]) -> bool:
    """Whether no footprint wrote a byte another one read or wrote (each one merged)."""
    for i, mine in enumerate(prints):
        for other in prints[i + 1 :]:
            if _overlap(mine.stores, other.stores) or _overlap(mine.stores, other.loads):
                return False
            if _overlap(mine.loads, other.stores):
                return False
    return True


def _span(ptrs: Any, mask: Any) -> tuple[int, int] | None:
    import numpy as np

    data = ptrs.data
    through = mask if isinstance(mask, np.ndarray) else mask.data  # block pointers: an array
    if through.shape != data.shape:
        through = np.broadcast_to(through, data.shape)
    chosen = data if through.all() else data[through]
    if chosen.size == 0:
        return None
    width = max(1, ptrs.get_element_ty().primitive_bitwidth // 8)
    return int(chosen.min()), int(chosen.max()) + width


def _note(spans: list[tuple[int, int]], span: tuple[int, int] | None) -> None:
    if span is None:
        return
    if spans and spans[-1][0] <= span[1] and span[0] <= spans[-1][1]:  # touches the last one
        spans[-1] = (min(spans[-1][0], span[0]), max(spans[-1][1], span[1]))
    else:
        spans.append(span)


@contextlib.contextmanager
def watched(footprint: Footprint, *, refuse_ordered: bool) -> Iterator[None]:
    """Record every load's and store's span into `footprint` for the block.

    An order-dependent op is noted in `footprint.ordered`; with `refuse_ordered` it also
    raises OrderDependent before it runs (a program run apart stops there)."""
    from triton.runtime import interpreter

    builder = interpreter.InterpreterBuilder
    load, store = builder.create_masked_load, builder.create_masked_store
    saved = {name: getattr(builder, name) for name in _ORDERED if hasattr(builder, name)}

    def masked_load(self: Any, ptrs: Any, mask: Any, *rest: Any) -> Any:
        _note(footprint.loads, _span(ptrs, mask))
        return load(self, ptrs, mask, *rest)

    def masked_store(self: Any, ptrs: Any, value: Any, mask: Any, *rest: Any) -> Any:
        _note(footprint.stores, _span(ptrs, mask))
        return store(self, ptrs, value, mask, *rest)

    def ordered(name: str) -> Any:
        def op(self: Any, *args: Any, **kwargs: Any) -> Any:
            footprint.ordered = footprint.ordered or name
            if refuse_ordered:
                raise OrderDependent(name)
            return saved[name](self, *args, **kwargs)

        return op

    builder.create_masked_load, builder.create_masked_store = masked_load, masked_store
    for name in saved:
        setattr(builder, name, ordered(name))
    shown = builtins.print

    def printed(*args: Any, **kwargs: Any) -> None:  # a kernel's own print(), tl.static_print
        footprint.ordered = footprint.ordered or "print"
        if refuse_ordered:
            raise OrderDependent("print")
        shown(*args, **kwargs)

    builtins.print = printed
    try:
        yield
    finally:
        builder.create_masked_load, builder.create_masked_store = load, store
        builtins.print = shown
        for name, method in saved.items():
            setattr(builder, name, method)
