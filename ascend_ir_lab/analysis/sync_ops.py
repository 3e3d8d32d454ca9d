"""The HIVM sync-op table (`static/sync-ops.json`): op names, their roles, the patterns that
recognise them on a line, the census the viewer opens with, triton-distributed primitives and
the colour of each pipe.

The viewer imports the same file at build time (`labextension/src/viewer/syncops.ts`), so the
Python and TypeScript answers to "is this a sync op" come from one place;
tests/data/golden/sync.json holds the answers both must give.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ascend_ir_lab.package_data import static_text

__all__ = [
    "CENSUS_OPS",
    "DIALECT",
    "DISTRIBUTED_OPS",
    "PIPE_COLOURS",
    "SYNC_OPS",
    "SYNC_ROLES",
    "TABLE_FILE",
    "full_name",
    "flag_args",
    "load_table",
    "recognise",
    "sync_op_pattern",
]

TABLE_FILE = "sync-ops.json"


def load_table() -> dict[str, Any]:
    """The sync-op table as parsed JSON."""
    table: dict[str, Any] = json.loads(static_text(TABLE_FILE))
    return table


_TABLE = load_table()
DIALECT: str = _TABLE["dialect"]
SYNC_ROLES: dict[str, str] = {op["name"]: op["role"] for op in _TABLE["ops"]}
SYNC_OPS: tuple[str, ...] = tuple(SYNC_ROLES)
DISTRIBUTED_OPS: tuple[str, ...] = tuple(_TABLE["distributed"])
PIPE_COLOURS: dict[str, str] = dict(_TABLE["pipes"])


def full_name(op: str) -> str:
    """`set_flag` -> `hivm.hir.set_flag`."""
    return f"{DIALECT}.{op}"


CENSUS_OPS: tuple[str, ...] = tuple(full_name(op) for op in _TABLE["census"])


def _alternation(names: tuple[str, ...]) -> str:
    return "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))


def sync_op_pattern() -> str:
    """Alternation of every sync op name, longest first (for a regex group)."""
    return _alternation(SYNC_OPS)


_PATTERNS: dict[str, str] = _TABLE["patterns"]
_OP = re.compile(_PATTERNS["op"].replace("{ops}", sync_op_pattern()))
_DIST = re.compile(_PATTERNS["distributed"].replace("{distributed}", _alternation(DISTRIBUTED_OPS)))
_SHMEM = re.compile(_PATTERNS["shmem"])


def flag_args(text: str | None) -> tuple[str, ...]:
    """`<PIPE_V>, <PIPE_MTE2>, %38` -> ("PIPE_V", "PIPE_MTE2", "%"): a runtime event id
    (multi-buffering) is `%`, which pairs with any other runtime id of the same pipes."""
    if not text:
        return ()
    items = (a.strip() for a in text.split(","))
    return tuple("%" if a.startswith("%") else a.strip("<>") for a in items if a)


def recognise(line: str) -> tuple[str, tuple[str, ...]] | None:
    """The sync op of one IR line and its bracketed arguments (`flag_args`), or None.

    The table's patterns decide: a shmem call (`hivm.hir.custom "dist.aclshmem_*"`), then
    the first HIVM sync op that carries the dialect prefix or `[...]` arguments, then a
    triton-distributed primitive in op position (`%t = dist.wait ...`).
    """
    shmem = _SHMEM.search(line)
    if shmem:
        return shmem[1], ()
    for m in _OP.finditer(line):
        if m[1] is not None or m[3] is not None:
            return m[2], flag_args(m[3])
    dist = _DIST.match(line)
    return (dist[1], ()) if dist else None
