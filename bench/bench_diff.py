"""Diff of the two largest adjacent snapshots we have vs difflib.unified_diff.

Goal (issue "Foundation"): at least 10x faster than difflib, and exact (the diff applied to A
gives B). The pair comes from a real upstream-Triton attention compile (LLVM-dialect stage).
"""

from __future__ import annotations

import difflib
import sys

from _common import DATA, best_of, report

from ascend_ir_lab.analysis.diff import apply, opcodes, opcodes_ids, unified
from ascend_ir_lab.dumps import Dump, Timeline, open_timeline


def largest_pair(tl: Timeline) -> tuple[Dump, Dump, str]:
    """The changed Dump with the most lines, and the state it changed."""
    best = None
    for d in tl.dumps:
        old, new = tl.change(d)
        if old is None or new is None or not tl.changed(d):
            continue
        size = min(tl.line_count(old), tl.line_count(new))
        if best is None or size > best[0]:
            best = (size, old, new, d)
    assert best is not None, "no changed dump pairs"
    _, old, new, d = best
    return old, new, f"#{d.index} {d.stage}:{d.label} ({d.scope})"


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else "triton/attention.cuda90.mlir-dump.txt.gz"
    tl = open_timeline(DATA / name)
    old, new, label = largest_pair(tl)
    a, b = tl.lines(old), tl.lines(new)
    ia, ib = tl.line_ids(old), tl.line_ids(new)  # interned once per Timeline, as stored
    print(f"pair: {label}, {len(a)} -> {len(b)} lines")
    assert apply(a, b, opcodes(a, b)) == b, "diff is not exact"
    assert apply(a, b, opcodes_ids(ia, ib)) == b, "diff is not exact"
    base = best_of(lambda: list(difflib.unified_diff(a, b, lineterm="")), repeat=5)
    data = best_of(lambda: opcodes_ids(ia, ib), repeat=9)
    report("edit script, interned lines", data, base, "difflib", ">= 10x faster (ratio <= 0.10)")
    text = best_of(lambda: unified(a, b, ops=opcodes_ids(ia, ib)), repeat=9)
    report("unified text, interned lines", text, base, "difflib", "(text formatting included)")
    raw = best_of(lambda: unified(a, b), repeat=9)
    report("unified text, from raw strings", raw, base, "difflib", "(interning included)")
    n_ours = sum(1 for s in unified(a, b) if s[:1] in "+-") - 2
    n_base = sum(1 for s in difflib.unified_diff(a, b, lineterm="") if s[:1] in "+-") - 2
    print(
        f"{'changed lines shown':<34} ours {n_ours}   difflib {n_base}   (exact: applying ours to A gives B)"
    )


if __name__ == "__main__":
    main()
