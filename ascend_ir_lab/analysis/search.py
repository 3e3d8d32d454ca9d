"""Search every pass: where a text or regex appears, how often, and which pass changed that."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ascend_ir_lab.analysis.ops import OpChange, lifecycle, scope_text
from ascend_ir_lab.dumps import Dump, Timeline
from ascend_ir_lab.errors import InputError
from ascend_ir_lab.record import Frozen

if TYPE_CHECKING:
    from typing import Final


class TextCensus:
    """Occurrences of one pattern per Dump (and per function inside module Dumps), cached
    per snapshot; fits `ops.lifecycle` in place of an op Census."""

    def __init__(
        self, timeline: Timeline, pattern: str, *, regex: bool = False, ignore_case: bool = False
    ) -> None:
        flags = re.IGNORECASE if ignore_case else 0
        try:
            self.pattern = re.compile(
                pattern if regex else re.escape(pattern), flags | re.MULTILINE
            )
        except re.error as exc:
            raise InputError(f"bad regular expression {pattern!r}: {exc}") from None
        self.timeline = timeline
        self._by_snapshot: dict[int, int] = {}
        self._by_scope: dict[tuple[int, str], int] = {}

    def count(self, dump: Dump, _key: str = "") -> int:
        """Matches in the whole Dump."""
        snap = self.timeline.snapshot(dump)
        n = self._by_snapshot.get(snap)
        if n is None:
            n = self._by_snapshot[snap] = sum(
                1 for _ in self.pattern.finditer(self.timeline.text(dump))
            )
        return n

    def count_in(self, dump: Dump, _key: str, scope: str) -> int:
        """Matches within one function of a module Dump (the whole Dump otherwise)."""
        if dump.holds == scope or dump.holds not in ("builtin.module", "module", ""):
            return self.count(dump)
        key = (self.timeline.snapshot(dump), scope)
        n = self._by_scope.get(key)
        if n is None:
            text = scope_text(self.timeline.lines(dump), scope)
            n = self._by_scope[key] = sum(1 for _ in self.pattern.finditer(text))
        return n


class Hits(Frozen):
    """Where a pattern is found: matches per Dump, and the passes that changed the count."""

    __slots__ = ("counts", "changes")

    def __init__(self, counts: list[int], changes: list[OpChange]) -> None:
        self.counts: Final = counts
        self.changes: Final = changes

    @property
    def first(self) -> int | None:
        """Index of the first Dump with a match."""
        return next((i for i, n in enumerate(self.counts) if n), None)

    @property
    def last(self) -> int | None:
        """Index of the last Dump with a match."""
        return next((i for i in range(len(self.counts) - 1, -1, -1) if self.counts[i]), None)


def search(
    timeline: Timeline, pattern: str, *, regex: bool = False, ignore_case: bool = False
) -> Hits:
    """Count `pattern` in every Dump and find the passes that make it appear or disappear."""
    census = TextCensus(timeline, pattern, regex=regex, ignore_case=ignore_case)
    counts = [census.count(d) for d in timeline.dumps]
    return Hits(counts, lifecycle(timeline, pattern, census))
