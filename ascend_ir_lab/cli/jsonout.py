"""`--json` output: stable (keys in a fixed order), streamed, and one list element a line.

orjson (Python's own C encoder where it is missing) writes each element; only the outer layout
is ours, so a list of ten thousand Dumps costs what encoding ten thousand small dicts costs,
and a reader can stream it line by line. Every key means one thing across the commands:
`docs/cli-json.schema.json`.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Mapping
from itertools import islice
from typing import IO, Any

try:
    import orjson

    _fallback = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))

    def _encode(value: Any) -> str:
        try:
            return orjson.dumps(value).decode("utf-8")
        except TypeError:  # a lone surrogate (a file name's odd byte): _escaped escapes it
            return _fallback.encode(value)

except ImportError:  # pragma: no cover - a dependency; the fallback writes the same JSON
    _encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))

    def _encode(value: Any) -> str:
        return _encoder.encode(value)


def emit(value: Any, out: IO[str] | None = None) -> None:
    """Write `value` as JSON: an object's top-level lists hold one element a line."""
    out = out or sys.stdout
    chunks = _Chunks(out.write)
    write = chunks.write
    if isinstance(value, Mapping):
        write("{")
        for n, (key, item) in enumerate(value.items()):
            write(("\n " if n == 0 else ",\n ") + _encode(key) + ": ")
            _emit_item(item, write, " ")
        write("\n}\n" if value else "}\n")
    else:
        _emit_item(value, write, "")
        write("\n")
    chunks.flush()


class _Chunks:
    """Writes in pieces of about 256 KiB: streamed, yet one write call per piece."""

    def __init__(self, sink: Any) -> None:
        self.sink = sink
        self.parts: list[str] = []
        self.size = 0

    def write(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)
        if self.size >= 1 << 18:
            self.flush()

    def flush(self) -> None:
        if self.parts:
            self.sink(_escaped("".join(self.parts)))
            self.parts, self.size = [], 0


# Characters a terminal acts on or that reorder text (DEL, C1 controls, bidi and invisible
# format characters, line/paragraph separators): JSON may carry them raw inside strings, and
# the terminal stream would then drop or rewrite them, changing the data (a C1 CSI can eat a
# closing quote). Written as \uXXXX escapes instead, the same string, safe to print.
_RAW = re.compile(
    "[\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f"
    "\ufeff\ufff9-\ufffb\ud800-\udfff]"
)


def _escaped(text: str) -> str:
    """`text` (JSON) with every such character inside its strings as a \\uXXXX escape."""
    if text.isascii() and "\x7f" not in text:
        return text
    return _RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _emit_item(item: Any, write: Any, indent: str) -> None:
    if isinstance(item, list | tuple) or (
        isinstance(item, Iterable) and not isinstance(item, str | bytes | Mapping)
    ):
        lead, sep = "[\n" + indent + " ", ",\n" + indent + " "
        elements = iter(item)
        while batch := list(islice(elements, _BATCH)):  # streamed, a batch a write
            write(lead + sep.join(map(_encode, batch)))
            lead = sep
        write("[]" if lead[0] == "[" else "\n" + indent + "]")
    else:
        write(_encode(item))


_BATCH = 512  # list elements encoded per write
