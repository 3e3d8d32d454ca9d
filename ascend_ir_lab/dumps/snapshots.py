"""Snapshot ids: which Dumps hold byte-identical IR, found without copying the IR."""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence

from ascend_ir_lab import forked
from ascend_ir_lab.dumps.blocks import BlockText
from ascend_ir_lab.dumps.model import Dump
from ascend_ir_lab.dumps.prefixes import Stream
from ascend_ir_lab.record import replace

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from typing import Any

_CROWDED = 4  # distinct snapshots of one length before CRC-32 sorts that length's Dumps
# IR of at least this many bytes is compared on two cores (a fork costs about a millisecond,
# comparing 64 MB tens of them)
PARALLEL_FROM = 64 << 20


def snapshot_ids(
    dumps: Sequence[Dump], data: Sequence[Any], streams: Mapping[int, Stream] | None = None
) -> list[int]:
    """Snapshot id of every Dump of the logs `data` (by log id); the Dumps of a log that
    is a stream of a line-prefixed file compare their text without the prefixes."""
    if streams:
        data = [streams[k].text if k in streams else d for k, d in enumerate(data)]
        dumps = [_local(d, streams[d.log_id]) if d.log_id in streams else d for d in dumps]
    views = [d if isinstance(d, BlockText) else memoryview(d) for d in data]
    try:
        return _identify_in_halves(dumps, data, views) or identify(dumps, data, views)
    finally:
        for view in views:
            if isinstance(view, memoryview):
                view.release()


def identical(a: Dump, b: Dump, data: Sequence[Any]) -> bool:
    """Whether Dumps `a` and `b` of the logs `data` (by log id, none a prefixed stream)
    hold the same bytes, compared in place (nothing copied from a log held whole)."""
    if a.body_end - a.body_start != b.body_end - b.body_start:
        return False
    x, y = data[a.log_id], data[b.log_id]
    if isinstance(x, BlockText) or isinstance(y, BlockText):
        return bool(x[a.body_start : a.body_end] == y[b.body_start : b.body_end])
    with memoryview(x) as view:  # a find whose haystack is as long as its needle: one memcmp
        return bool(
            y.find(view[a.body_start : a.body_end], b.body_start, b.body_end) == b.body_start
        )


def _local(d: Dump, stream: Stream) -> Dump:
    """`d` with its IR's offsets in its stream's text."""
    return replace(d, body_start=stream.local(d.body_start), body_end=stream.local(d.body_end))


def _identify_in_halves(
    dumps: Sequence[Dump], data: Sequence[Any], views: Sequence[Any]
) -> list[int] | None:
    """`identify`'s ids, the second half of the IR compared by a forked copy meanwhile; None
    where that does not pay or cannot be (little IR, logs read by block, no idle CPU).

    Each half numbers its snapshots from 0 in the order they first appear; the halves' first
    Dumps of each snapshot, compared again in that order, give every id as one pass over
    all the Dumps gives it."""
    total = sum(d.body_end - d.body_start for d in dumps)
    if total < PARALLEL_FROM or any(isinstance(v, BlockText) for v in views):
        return None
    if not forked.can_fork() or forked.idle_cpus() < 1:
        return None
    half, seen = 0, 0
    while half < len(dumps) and seen < total // 2:
        seen += dumps[half].body_end - dumps[half].body_start
        half += 1
    first, second = dumps[:half], dumps[half:]
    with forked.Pending(lambda: identify(second, data, views)).start(idle=False) as pending:
        ids = identify(first, data, views)
        later = pending.result()
    reps = _firsts(first, ids) + _firsts(second, later)
    joined = identify(reps, data, views)  # the first half's come out as they were
    count = max(ids, default=-1) + 1
    return ids + [joined[count + k] for k in later]


def _firsts(dumps: Sequence[Dump], ids: list[int]) -> list[Dump]:
    """The first Dump of each snapshot id (ids numbered from 0 as they first appear)."""
    firsts: list[Dump] = []
    for d, i in zip(dumps, ids, strict=True):
        if i == len(firsts):
            firsts.append(d)
    return firsts


def identify(dumps: Sequence[Dump], data: Sequence[Any], views: Sequence[Any]) -> list[int]:
    """Snapshot id of every Dump: equal ids mean identical bytes.

    Dumps are grouped by length and compared byte for byte (in place, no copy) with the few
    distinct snapshots of their length seen so far; a length that many distinct snapshots
    share is sorted by CRC-32 first, so no Dump is compared with more than a handful.
    """
    by_length: dict[int, list[tuple[Dump, int]]] = {}
    by_crc: dict[tuple[int, int], list[tuple[Dump, int]]] = {}
    crowded: set[int] = set()

    def crc(d: Dump) -> int:
        return zlib.crc32(views[d.log_id][d.body_start : d.body_end])

    blocks = [isinstance(view, BlockText) for view in views]

    def same(rep: Dump, d: Dump) -> bool:
        a, b = views[rep.log_id], data[d.log_id]
        if blocks[rep.log_id] or blocks[d.log_id]:
            return bool(a[rep.body_start : rep.body_end] == b[d.body_start : d.body_end])
        start = d.body_start  # a find whose haystack is as long as its needle is one memcmp
        return b.find(a[rep.body_start : rep.body_end], start, d.body_end) == start  # type: ignore[no-any-return]

    snap: list[int] = []
    count = 0
    for d in dumps:
        n = d.body_end - d.body_start
        members = (
            by_crc.setdefault((n, crc(d)), []) if n in crowded else by_length.setdefault(n, [])
        )
        sid = -1
        for rep, i in members:  # usually one: the Dumps of one length are one snapshot
            if same(rep, d):
                sid = i
                break
        if sid < 0:
            sid, count = count, count + 1
            members.append((d, sid))
            if n not in crowded and len(members) > _CROWDED:
                crowded.add(n)
                for rep, i in by_length.pop(n):
                    by_crc.setdefault((n, crc(rep)), []).append((rep, i))
        snap.append(sid)
    return snap
