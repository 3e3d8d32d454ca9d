"""Index a large log on several cores: the log cut at header lines into parts, each part
indexed by a forked copy of this process, the parts joined as one serial read gives them.

Only where it pays and is safe: a log of at least PARALLEL_FROM bytes, held whole or
mapped (not blocks decompressed on demand), `os.fork` available, CPUs of this process that
other work leaves idle, and no other thread running in it (a thread could hold a lock the
forked copy would wait on forever). A part whose process fails is indexed here; a log that
cannot be split is read serially.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from operator import attrgetter

from ascend_ir_lab import forked
from ascend_ir_lab.dumps.headers import parse_header
from ascend_ir_lab.dumps.model import Dump, Message, Segment
from ascend_ir_lab.dumps.reader import LogIndex, end_compiles, index_part
from ascend_ir_lab.dumps.scan import CANDIDATE_LINE
from ascend_ir_lab.forked import Pending

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from typing import Any

PARALLEL_FROM = 64 << 20  # smaller logs are read serially
PART_BYTES = 32 << 20  # a part is at least this large (a fork costs about a millisecond)
MAX_PARTS = 8
# The first part, read here, is this much larger than each forked one: a forked part's
# process also writes its index into a pipe, which is read and rebuilt here, so parts of
# equal size would leave this process waiting.
HOME_SHARE = 1.4
_FIELDS = {cls: attrgetter(*cls.__slots__) for cls in (Dump, Message, Segment)}


def index_in_parts(
    data: bytes, *, stage: str, log_id: int, first_index: int = 0, parts: int | None = None
) -> LogIndex | None:
    """The LogIndex of `data` as `reader.index_part` gives it for the whole log, read in
    `parts` parts (default: one per CPU, at most MAX_PARTS); None where it cannot be."""
    if getattr(data, "regex_find", None) is not None:
        return None
    count = parts if parts is not None else _part_count(len(data))
    cuts = cut_points(data, count, HOME_SHARE) if count > 1 and forked.can_fork() else []
    if len(cuts) < 3:
        return None
    children = [
        (lo, hi, Pending(_part_of(data, lo, hi, stage, log_id)).start(idle=False))
        for lo, hi in zip(cuts[1:-1], cuts[2:], strict=True)
    ]
    try:
        out = index_part(data, 0, cuts[1], stage=stage, log_id=log_id, first_index=first_index)
        for lo, hi, pending in children:
            part = _unflat_or_none(pending.result())
            if part is None:  # what its process wrote cannot be read: read the part here
                part = index_part(data, lo, hi, stage=stage, log_id=log_id)
            _join(out, part, first_index + len(out.dumps))
    finally:
        for _, _, pending in children:
            pending.cancel()
    end_compiles(data, out)
    return out


def _part_count(size: int) -> int:
    """One part per idle CPU: where other work keeps every core busy, more processes only
    add their own cost (the load average says how busy the cores are)."""
    if size < PARALLEL_FROM:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 1 + forked.idle_cpus(), size // PART_BYTES, MAX_PARTS))


def cut_points(data: bytes, count: int, home: float = 1.0) -> list[int]:
    """0, the start of the first header line at or after each part's end, and the log's
    size: increasing, each part at least one header line. The parts are of equal size, the
    first `home` times as large as each other."""
    size = len(data)
    cuts = [0]
    whole = home + count - 1
    for k in range(1, count):
        at = _header_at_or_after(data, max(int(size * (home + k - 1) / whole), cuts[-1] + 1))
        if at < 0:
            break
        if at > cuts[-1]:
            cuts.append(at)
    return [*cuts, size]


def _header_at_or_after(data: bytes, pos: int) -> int:
    """Start of the first header line that starts at or after `pos`, or -1."""
    while True:
        m = CANDIDATE_LINE.search(data, pos)
        if m is None:
            return -1
        start = data.rfind(b"\n", 0, m.start()) + 1
        line = data[start : m.end()].decode("utf-8", "replace").rstrip("\r")
        if start >= pos and parse_header(line) is not None:
            return start
        pos = m.end()


def _part_of(data: bytes, lo: int, hi: int, stage: str, log_id: int) -> Callable[[], Any]:
    """The work of indexing [lo, hi): its LogIndex as `flat` writes it."""
    return lambda: flat(index_part(data, lo, hi, stage=stage, log_id=log_id))


def _unflat_or_none(columns: Any) -> LogIndex | None:
    try:
        return unflat(columns)
    except (ValueError, TypeError):
        return None


def flat(part: LogIndex) -> tuple[Any, ...]:
    """`part` as plain tuples and lists, which `marshal` writes (and `unflat` reads back)."""
    fields = _FIELDS
    return tuple(
        [fields[cls](x) for x in items]
        for cls, items in ((Dump, part.dumps), (Message, part.messages), (Segment, part.segments))
    ) + (part.warnings, part.leads)


def unflat(columns: tuple[Any, ...]) -> LogIndex:
    """The LogIndex `flat` gave `columns` for."""
    dumps, messages, segments, warnings, leads = columns
    return LogIndex(
        [Dump(*t) for t in dumps],
        [Message(*t) for t in messages],
        [Segment(*t) for t in segments],
        list(warnings),
        [(a, b) for a, b in leads],
    )


def _join(out: LogIndex, part: LogIndex, base: int) -> None:
    """Append `part` (Dumps numbered from 0) to `out`, its Dumps numbered from `base`."""
    for d in part.dumps:
        d.index += base
    for m in part.messages:
        m.after += base
    for s in part.segments:
        if s.kind == "dump":
            s.dump += base
    out.dumps.extend(part.dumps)
    out.messages.extend(part.messages)
    out.segments.extend(part.segments)
    out.warnings.extend(part.warnings)
    out.leads.extend(part.leads)
