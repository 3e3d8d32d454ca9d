"""What the magics list: the Runs one cell made (a table, and `RunViews`, every Run's view in
order) and the kernels of the compile cache (`%ir_cache`)."""

from __future__ import annotations

from typing import Any

from ascend_ir_lab.notebook.ipython_api import display
from ascend_ir_lab.notebook.text import Table

__all__ = ["RunViews", "cache_table", "collection_table"]


def collection_table(runs: list[Any]) -> Table:
    """The kernels one cell compiled: one row per Run; a record opens with `%ir_load PATH`
    (its passes are captured then)."""
    from ascend_ir_lab.toolchains.common.collection import human_size, run_row

    rows = [run_row(r) for r in runs]
    records = sum(1 for r in runs if not r.passes_captured)
    title = f"{len(rows)} kernel compiles" + (
        f"; {records} cheap records (autotune configs): open one with %ir_load PATH to "
        "capture its passes"
        if records
        else ""
    )
    body = [
        [r["name"], r["target"], r["status"], f"{r['compile_s']:.2f} s", r["dumps"],
         human_size(r["size"]), r["path"]]
        for r in rows
    ]  # fmt: skip
    return Table(title, ["kernel", "target", "status", "compile", "dumps", "size", "run"], body)


class RunViews(list):  # type: ignore[type-arg]
    """Every Run a cell made, in order (`runs = _`; `runs[0]`, `runs["softmax"]`); displayed
    as each Run's explorer, one after the other."""

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            found = [v for v in self if v.name == key]
            if not found:
                names = ", ".join(v.name for v in self)
                raise KeyError(f"no Run named {key!r} in this cell's Runs ({names})")
            return found[0]
        return super().__getitem__(key)

    def _ipython_display_(self) -> None:
        for view in self:
            display(view)

    def __repr__(self) -> str:
        return f"{len(self)} Runs: " + ", ".join(v.name for v in self)


def cache_table(entries: list[Any], limit: int) -> Table:
    """The cache listing shown by `%ir_cache`."""
    import datetime as dt

    from ascend_ir_lab.toolchains.common import cache

    rows = [
        [
            e.key[:12],
            e.kind,
            e.name,
            " ".join(e.stages),
            f"{e.size / 1024:.0f} KiB",
            dt.datetime.fromtimestamp(e.mtime).strftime("%Y-%m-%d %H:%M"),
        ]
        for e in entries[:limit]
    ]
    where = f"{cache.cache_root()} and {cache.dump_root()}"
    title = (
        f"{len(entries)} kernels in {where}, newest first; open one with %ir_cache KEY"
        if entries
        else f"no kernels in {where} (run a kernel with TRITON_DEBUG=1 first)"
    )
    return Table(title, ["key", "kind", "kernel", "stages", "size", "modified"], rows)
