"""What the reading commands share: opening what a user names, picking a Dump, its JSON keys."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from ascend_ir_lab.safe_text import one_message

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence

    from ascend_ir_lab.dumps import Dump, Timeline

__all__ = ["dump_records", "dump_ref", "open_source", "select", "warn"]


def open_source(path: str) -> Timeline:
    """The Timeline of anything a user names: a log, a folder, a cache, a Run."""
    from ascend_ir_lab.cli.npu import with_passes
    from ascend_ir_lab.dumps import open_timeline

    with_passes(path)  # a cheap record opens with its passes
    return open_timeline(path)


def select(tl: Timeline, which: str) -> Dump:
    """`tl.select(which)`, saying on stderr which occurrence a bare pass name took."""
    d = tl.select(which)
    note = tl.selection_note(which)
    if note:
        print(f"# {note}", file=sys.stderr)
    return d


def warn(tl: Timeline) -> None:
    """The Timeline's warnings, one line each on stderr."""
    for w in tl.warnings:
        print(f"warning: {one_message(w)}", file=sys.stderr)


_CHANGED = {"changed": True, "unchanged": False, "unknown": None}


def dump_ref(d: Dump) -> dict[str, Any]:
    """The keys that name a Dump in every `--json` output (`pass` the name, `arg` the argument)."""
    return {"index": d.index, "stage": d.stage, "pass": d.pass_name, "arg": d.arg, "scope": d.scope}


def dump_records(
    tl: Timeline, dumps: Iterable[Dump], states: Sequence[str] | Mapping[int, str]
) -> Iterator[dict[str, Any]]:
    """The `inspect --json` record of each of `dumps` (`states` by Dump index; `changed`:
    null where the log cannot say), the Timeline's lookups bound once."""
    line_count, seconds, changed = tl.line_count, tl.timings().get, _CHANGED
    for d in dumps:
        i = d.index
        yield {
            "index": i, "stage": d.stage, "pass": d.pass_name, "arg": d.arg, "scope": d.scope,
            "phase": d.phase, "changed": changed[states[i]], "lines": line_count(d),
            "truncated": d.truncated, "options": d.options, "span": [d.start, d.end],
            "seconds": seconds(i),
        }  # fmt: skip
