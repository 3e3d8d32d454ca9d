"""The HIVM sync-op table (`static/sync-ops.json`): op names, their roles, the census the
viewer opens with, triton-distributed primitives and the colour of each pipe.

The viewer imports the same file at build time (`labextension/src/viewer/syncops.ts`), so the
Python and TypeScript answers to "is this a sync op" come from one place.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

__all__ = [
    "CENSUS_OPS",
    "DIALECT",
    "DISTRIBUTED_OPS",
    "PIPE_COLOURS",
    "SYNC_OPS",
    "SYNC_ROLES",
    "TABLE_FILE",
    "full_name",
    "load_table",
    "sync_op_pattern",
]

TABLE_FILE = "sync-ops.json"


def load_table() -> dict[str, Any]:
    """The sync-op table as parsed JSON."""
    text = resources.files("ascend_ir_lab").joinpath("static", TABLE_FILE).read_text("utf-8")
    table: dict[str, Any] = json.loads(text)
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


def sync_op_pattern() -> str:
    """Alternation of every sync op name, longest first (for a regex group)."""
    return "|".join(re.escape(n) for n in sorted(SYNC_OPS, key=len, reverse=True))
