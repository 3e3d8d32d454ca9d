"""What the reading commands share: opening what a user names, picking a Dump, its JSON keys."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from ascend_ir_lab.safe_text import one_message

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence

    from ascend_ir_lab.dumps import Dump, Message, Timeline

__all__ = [
    "dump_record_texts", "dump_ref", "message_record_texts", "open_source",
    "select", "warn",
]  # fmt: skip


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


_CHANGED = {"changed": "true", "unchanged": "false", "unknown": "null"}  # as JSON


def dump_ref(d: Dump) -> dict[str, Any]:
    """The keys that name a Dump in every `--json` output (`pass` the name, `arg` the argument)."""
    return {"index": d.index, "stage": d.stage, "pass": d.pass_name, "arg": d.arg, "scope": d.scope}


def dump_record_texts(
    tl: Timeline, dumps: Iterable[Dump], states: Sequence[str] | Mapping[int, str]
) -> Iterator[str]:
    """The `inspect --json` record of each of `dumps` as JSON text (`states` by Dump index;
    `changed`: null where the log cannot say), the Timeline's lookups bound once and the
    strings a log repeats Dump after Dump (stage, pass, scope...) encoded once."""
    from ascend_ir_lab.cli.jsonout import Strings, number

    line_count, seconds, text, changed = tl.line_count, tl.timings().get, Strings(), _CHANGED
    for d in dumps:
        i = d.index
        yield (
            f'{{"index":{i},"stage":{text[d.stage]},"pass":{text[d.pass_name]},'
            f'"arg":{text[d.arg]},"scope":{text[d.scope]},"phase":{text[d.phase]},'
            f'"changed":{changed[states[i]]},"lines":{line_count(d)},'
            f'"truncated":{"true" if d.truncated else "false"},"options":{text[d.options]},'
            f'"span":[{d.start},{d.end}],"seconds":{number(seconds(i))}}}'
        )


def message_record_texts(messages: Iterable[Message]) -> Iterator[str]:
    """The `inspect --json` record of each Message, written as JSON."""
    from json.encoder import encode_basestring as encode

    from ascend_ir_lab.cli.jsonout import Strings

    text = Strings()  # a message's own text, seldom repeated, is kept only where short
    for m in messages:
        yield (
            f'{{"stage":{text[m.stage]},"after":{m.after},"level":{text[m.level]},'
            f'"text":{encode(m.text) if len(m.text) > 64 else text[m.text]},'
            f'"pass":{text[m.pass_name]},"banner":{text[m.banner]}}}'
        )
