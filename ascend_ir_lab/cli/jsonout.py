"""`--json` output: stable (keys in a fixed order), streamed, and one list element a line.

Python's own C encoder writes each element, or orjson where the caller expects thousands of
them (`emit`'s `elements`): orjson writes a small dict five times as fast, but its import
(it loads `dataclasses`, `uuid` and `datetime`) costs about 20 ms, more than encoding a few
thousand elements does. Only the outer layout is ours, so a list of ten thousand Dumps
costs what encoding ten thousand small dicts costs, and a reader can stream it line by line.
Every key means one thing across the commands: `docs/cli-json.schema.json`.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from itertools import islice
from json.encoder import encode_basestring
from typing import IO, Any

# From this many list elements expected, orjson writes them (its import pays for itself).
ORJSON_FROM = 4000
_python = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _encode(value: Any) -> str:
    """`value` as compact JSON, by Python's encoder (its scalars without a call into it)."""
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if kind is int:
        return int.__repr__(value)
    try:
        return _python.encode(value)
    except ValueError:  # NaN or an infinity, no JSON number: null, as orjson writes them
        return _python.encode(_finite(value))


def _finite(value: Any) -> Any:
    """`value` with each float that is no number or infinite (in its lists and dicts) None."""
    if isinstance(value, float):
        return value if value - value == 0 else None
    if isinstance(value, Mapping):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _fast_encoder() -> Callable[[Any], str]:
    """orjson's encoder where it is installed, else `_encode`; the same JSON either way."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - a dependency; the fallback writes the same JSON
        return _encode

    def encode(value: Any) -> str:
        try:
            return orjson.dumps(value).decode("utf-8")
        except TypeError:  # a lone surrogate (a file name's odd byte): _escaped escapes it
            return _encode(value)

    return encode


def emit(value: Any, out: IO[str] | None = None, *, elements: int = 0) -> None:
    """Write `value` as JSON: an object's top-level lists hold one element a line.
    `elements`: about how many list elements `value` holds, where the caller knows."""
    out = out or sys.stdout
    encode = _fast_encoder() if elements >= ORJSON_FROM else _encode
    chunks = _Chunks(out.write)
    write = chunks.write
    if isinstance(value, Mapping):
        write("{")
        for n, (key, item) in enumerate(value.items()):
            write(("\n " if n == 0 else ",\n ") + encode(key) + ": ")
            _emit_item(item, write, " ", encode)
        write("\n}\n" if value else "}\n")
    else:
        _emit_item(value, write, "", encode)
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


class Encoded:
    """A list whose elements a caller wrote as JSON text already (`strings`, `number`):
    written as they are, a batch a write, as any other list."""

    __slots__ = ("texts",)

    def __init__(self, texts: Iterable[str]) -> None:
        self.texts = texts


class Strings(dict[str, str]):
    """Each string as JSON, encoded once: the texts a list repeats (pass names, stages,
    scopes) cost a lookup after their first."""

    def __missing__(self, key: str) -> str:
        text = self[key] = encode_basestring(key)
        return text


def number(value: float | None) -> str:
    """A float (or None) as the encoders write it: NaN and infinities as null."""
    if value is None or value - value != 0:
        return "null"
    return float.__repr__(value)


def _emit_item(item: Any, write: Any, indent: str, encode: Callable[[Any], str]) -> None:
    if isinstance(item, Encoded):
        _emit_item(item.texts, write, indent, str)
    elif isinstance(item, list | tuple) or (
        isinstance(item, Iterable) and not isinstance(item, str | bytes | Mapping)
    ):
        lead, sep = "[\n" + indent + " ", ",\n" + indent + " "
        elements = iter(item)
        while batch := list(islice(elements, _BATCH)):  # streamed, a batch a write
            write(lead + sep.join(map(encode, batch)))
            lead = sep
        write("[]" if lead[0] == "[" else "\n" + indent + "]")
    else:
        write(encode(item))


_BATCH = 512  # list elements encoded per write
