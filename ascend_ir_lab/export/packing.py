"""The packed form of a timeline payload: the payload gzipped and base64-encoded in one string.

A page or a saved notebook carries the packed form (an eighth of the JSON or less, and one
string rather than thousands of indented numbers in an .ipynb); viewers unpack it with the
browser's own DecompressionStream. Notes stay outside the packed data, as plain JSON, so a
host can update them without re-compressing.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from collections.abc import Mapping
from typing import Any

from ascend_ir_lab.export.deflate import PartedGzip, gzip_parts
from ascend_ir_lab.forked import Pending
from ascend_ir_lab.safe_text import json_escaped

try:
    import orjson as _orjson

    # What Python's encoder refuses (dataclasses, datetimes, subclasses) orjson refuses too.
    _STRICT = (
        _orjson.OPT_PASSTHROUGH_DATACLASS
        | _orjson.OPT_PASSTHROUGH_DATETIME
        | _orjson.OPT_PASSTHROUGH_SUBCLASS
    )
except ImportError:  # pragma: no cover - a dependency; Python's encoder writes the same JSON
    _orjson = None  # type: ignore[assignment]

__all__ = ["PACKED", "is_packed", "pack_payload", "payload_json", "unpack_payload"]

PACKED = "gzip+base64"
# Below this many bytes of JSON a page keeps the plain payload: readable, and no smaller packed.
AUTO_THRESHOLD = 32 * 1024
_END: Any = object()  # after the last key: the closing brace


def payload_json(payload: Mapping[str, Any]) -> str:
    """The payload as compact JSON (no spaces), the form every size figure refers to.

    Each top-level value goes through orjson where its text is the same as Python's encoder
    writes (a number orjson spells otherwise, `1e-5` for `1e-05`, falls back to Python's).
    """
    if _orjson is None or not all(type(k) is str for k in payload):
        return _json(payload)
    parts = [f"{_json(k)}:{_value_json(v)}" for k, v in payload.items()]
    return "{" + ",".join(parts) + "}"


def _json(value: Any) -> str:
    # orjson refuses a lone surrogate (a file name's undecodable byte): such a value comes here
    return json_escaped(
        json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    )


# Where orjson writes a float unlike Python: `0.00001` (Python: 1e-05), `1e-9` (1e-09). Two
# searches, each led by its literal: one pattern of both alternatives scans byte by byte.
_SMALL_FLOAT = re.compile(rb"0\.0000")
_SHORT_EXPONENT = re.compile(rb"e-(?=\d(?!\d))")


def _value_json(value: Any) -> str:
    if isinstance(value, str | int | bool) or value is None:
        return _json(value)
    try:
        fast = _orjson.dumps(value, option=_STRICT)
    except (TypeError, ValueError, OverflowError):
        return _json(value)
    if not _strings_only(value) and _other_float(fast):
        return _json(value)
    return fast.decode("utf-8")


def _other_float(fast: bytes) -> bool:
    """Whether orjson's text may spell a float otherwise than Python's encoder does."""
    return _SMALL_FLOAT.search(fast) is not None or _SHORT_EXPONENT.search(fast) is not None


def _strings_only(value: Any) -> bool:
    """A list of strings (the line table), where no number can be spelt otherwise."""
    return isinstance(value, list) and all(type(x) is str for x in value)


def is_packed(obj: Any) -> bool:
    """True for the packed form made by pack_payload."""
    return isinstance(obj, Mapping) and obj.get("packed") == PACKED


def pack_payload(payload: Mapping[str, Any], *, body_json: str | None = None) -> dict[str, Any]:
    """`{"format", "title", "packed": "gzip+base64", "data", "notes"}` of a plain payload.

    `data` is base64 of the gzip (`deflate.gzip_parts`: level 3, mtime 0, the same payload
    packs to the same bytes) of the payload's compact JSON without its notes (`body_json`,
    when the caller has it).
    """
    if is_packed(payload):
        return dict(payload)
    if body_json is None:
        body_json = payload_json({k: v for k, v in payload.items() if k != "notes"})
    raw = body_json.encode("utf-8")
    data = base64.b64encode(gzip_parts(raw)).decode("ascii")
    return {
        "format": payload.get("format"),
        "title": payload.get("title"),
        "packed": PACKED,
        "data": data,
        "notes": [dict(n) for n in payload.get("notes") or []],
    }


def unpack_payload(obj: Mapping[str, Any]) -> dict[str, Any]:
    """The plain payload of a packed one (a plain payload is returned as a copy).

    Raises ValueError naming what is wrong when `data` is not gzip+base64 of a JSON object.
    """
    if not is_packed(obj):
        return dict(obj)
    data = obj.get("data")
    if not isinstance(data, str):
        raise ValueError(
            f"packed payload: 'data' must be a base64 string, got {type(data).__name__}"
        )
    try:
        body = json.loads(_inflate(base64.b64decode(data, validate=True)).decode("utf-8"))
    except (binascii.Error, OSError, EOFError, zlib.error, UnicodeDecodeError, ValueError,
            RecursionError) as e:  # fmt: skip
        raise ValueError(f"packed payload: 'data' is not gzip+base64 of JSON ({e})") from e
    if not isinstance(body, dict):
        raise ValueError(f"packed payload: 'data' holds a {type(body).__name__}, not an object")
    body["notes"] = list(obj.get("notes") or [])
    return body


# What a packed payload may unpack to: far above any real one (the 386-pass matmul is 616 KB),
# and below what a page or a kernel can hold; more is a gzip bomb, not a timeline.
UNPACKED_MAX_BYTES = 512 << 20


def _inflate(raw: bytes) -> bytes:
    """The one gzip member `raw` holds, decompressed no further than UNPACKED_MAX_BYTES."""
    d = zlib.decompressobj(31)
    out = d.decompress(raw, UNPACKED_MAX_BYTES + 1)
    if len(out) > UNPACKED_MAX_BYTES:
        raise ValueError(f"it unpacks to more than {UNPACKED_MAX_BYTES >> 20} MiB")
    if not d.eof:
        raise EOFError("the gzip data is cut short")
    return out


def auto_pack(payload: Mapping[str, Any], compress: bool | None) -> Mapping[str, Any]:
    """Packed when `compress` is True, or when None and the JSON exceeds AUTO_THRESHOLD.

    A value still in the making (a `forked.Pending`, such as the sync checker's findings
    computed on another core) is taken when its key's turn comes: the JSON of the keys
    before it is written and compressed meanwhile.
    """
    if is_packed(payload) or compress is False:
        return resolved(payload) if compress is False else dict(payload)
    if _orjson is None or not all(type(k) is str for k in payload):
        payload = resolved(payload)
        body = _json({k: v for k, v in payload.items() if k != "notes"})
        if compress is None:  # the notes are small: the body decides
            compress = len(body) > AUTO_THRESHOLD
        return pack_payload(payload, body_json=body) if compress else payload
    return _pack_streamed(payload, compress)


def resolved(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    """`payload` with every value in the making (a `forked.Pending`) taken."""
    if not any(isinstance(v, Pending) for v in payload.values()):
        return payload
    return {k: v.result() if isinstance(v, Pending) else v for k, v in payload.items()}


def _pack_streamed(payload: Mapping[str, Any], compress: bool | None) -> Mapping[str, Any]:
    """`auto_pack` of a payload whose keys are all strings, key by key: the JSON
    `payload_json` writes, compressed as it is made once it is known to be packed (the same
    bytes as `pack_payload`'s: `PartedGzip`'s output does not depend on how it is fed)."""
    plain: dict[str, Any] = {}
    waiting: list[bytes] = []  # JSON made before the body was known to be packed
    packer = None
    size = 0
    for k, v in [*payload.items(), (_END, None)]:
        if k is not _END:
            plain[k] = v = v.result() if isinstance(v, Pending) else v
            if k == "notes":
                continue
            piece = f"{',' if size else '{'}{_json(k)}:{_value_json(v)}"
        else:
            piece = "}" if size else "{}"
        size += len(piece)  # characters, as AUTO_THRESHOLD counts them
        if packer is not None:
            packer.feed(piece.encode())
            continue
        waiting.append(piece.encode())
        if compress or size > AUTO_THRESHOLD:
            packer = PartedGzip()
            for made in waiting:
                packer.feed(made)
            waiting.clear()
    if packer is None:
        return plain
    data = packer.finish()
    return {
        "format": plain.get("format"),
        "title": plain.get("title"),
        "packed": PACKED,
        "data": base64.b64encode(data).decode("ascii"),
        "notes": [dict(n) for n in plain.get("notes") or []],
    }
