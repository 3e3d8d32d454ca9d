"""Snapshot ids: which Dumps hold byte-identical IR, found without copying the IR."""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from ascend_ir_lab.dumps.blocks import BlockText
from ascend_ir_lab.dumps.model import Dump
from ascend_ir_lab.dumps.prefixes import Stream

_CROWDED = 4  # distinct snapshots of one length before CRC-32 sorts that length's Dumps


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
        return identify(dumps, data, views)
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
    return dataclasses.replace(
        d, body_start=stream.local(d.body_start), body_end=stream.local(d.body_end)
    )


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
