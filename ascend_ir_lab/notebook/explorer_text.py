"""The explorer's answers as text: a diff of two dumps, an op's lifecycle, and the plain-text
explorer a terminal shows instead of the widget."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ascend_ir_lab.analysis.diff import unified
from ascend_ir_lab.analysis.normalize import Normalization, normalize_lines
from ascend_ir_lab.analysis.ops import Census, OpChange
from ascend_ir_lab.analysis.sync_ops import CENSUS_OPS
from ascend_ir_lab.dumps import Dump
from ascend_ir_lab.notebook.text import IRText, Table

if TYPE_CHECKING:
    from ascend_ir_lab.notebook.explorer import RunView

__all__ = ["diff_text", "lifecycle_table", "summary_text"]


def diff_text(
    a: RunView, da: Dump, b: RunView, db: Dump, *, normalize: str | None, context: int
) -> IRText:
    """Unified diff of two Dumps (possibly of two Runs)."""
    norm = Normalization.parse(normalize)
    la = normalize_lines(a.timeline.lines(da), norm)
    lb = normalize_lines(b.timeline.lines(db), norm)
    name_a, name_b = a.dump_label(da), b.dump_label(db)
    if a is b and da.phase == "before" and b.timeline.previous(db) is da:
        # before-only logs: the pass's output is the next Before dump; name the pass, not it
        name_a = f"{a.name} #{da.index} {da.stage}: before {da.label} ({da.scope})"
        name_b = f"{a.name} #{db.index} {db.stage}: after {da.label} ({db.scope})"
    title = f"{name_a}  →  {name_b}"
    out = list(unified(la, lb, a_name=name_a, b_name=name_b, context=context))
    return IRText("\n".join(out) if out else "(identical)", title=title, kind="diff")


def lifecycle_table(name: str, op: str, changes: Sequence[OpChange]) -> Table:
    """The passes that change the count of `op`, as a table."""
    rows = [
        [c.index, c.stage, c.count, f"{c.delta:+d}", f"{c.arg or c.pass_name} ({c.scope})"]
        for c in changes
    ]
    title = f"{name}: {op}" + ("" if rows else " never appears")
    return Table(title, ["#", "stage", "count", "delta", "pass (scope)"], rows)


def summary_text(view: RunView) -> str:
    """The plain-text explorer: what a terminal shows instead of the widget."""
    tl = view.timeline
    flags = tl.changed_flags()
    per_stage = ", ".join(f"{s} {sum(1 for d in tl.dumps if d.stage == s)}" for s in tl.stages)
    lines = [f"{view.title()}: {len(tl.dumps)} dumps ({per_stage}), {sum(flags)} changed the IR"]
    if view.run is not None:
        status = view.run.manifest.get("status", {})
        lines.append(f"  status: {status.get('code')} - {status.get('text')}")
        lines.append(f"  folder: {view.run.path}")
    for launch in view.launches:
        lines.append(f"  launch: {launch.note}")
    if tl.dumps:
        last = tl.dumps[-1]
        census = Census(tl).of(last)
        sync = ", ".join(
            f"{op.rsplit('.', 1)[-1]} {census[op]}" for op in CENSUS_OPS if op in census
        )
        where = f"  last: #{last.index} {last.stage}:{last.label} ({last.scope})"
        lines.append(where + (f"; {sync}" if sync else ""))
        changed = [d for d in tl.dumps if flags[d.index]]
        shown = ", ".join(f"#{d.index} {d.label}" for d in changed[-8:])
        lines.append(f"  last changes: {shown}")
    for w in tl.warnings[:3]:
        lines.append(f"  warning: {w}")
    lines.append("  .show(which) .diff(a[, b]) .find(op) .ops(which) .compare(other) .timeline")
    return "\n".join(lines)
