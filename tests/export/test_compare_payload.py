"""The comparison payload of two real bishengir logs: one line table serves both sides, every
pair names dumps that exist, and its kinds are those of analysis.compare."""

from __future__ import annotations

import json
from pathlib import Path

from ascend_ir_lab.analysis.compare import compare
from ascend_ir_lab.dumps import open_timeline
from ascend_ir_lab.export.compare_payload import (
    COMPARE_FORMAT,
    PAIR_KINDS,
    build_comparison_payload,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "ascend"


def test_both_sides_read_back_their_own_text_through_one_line_table() -> None:
    a = open_timeline(DATA / "vadd.bishengir.log.gz")
    b = open_timeline(DATA / "vadd.bishengir.module-scope.log.gz")
    cmp = compare(a, b, "fn", "module")
    payload = build_comparison_payload(cmp, a, b)
    json.dumps(payload)
    assert payload["format"] == COMPARE_FORMAT and payload["names"] == ["fn", "module"]
    lines = payload["lines"]
    assert len(lines) == len(set(lines))  # each text once
    for side, tl in (("a", a), ("b", b)):
        assert "lines" not in payload[side]
        for d in (tl.dumps[0], tl.dumps[len(tl.dumps) // 2], tl.dumps[-1]):
            snap = payload[side]["snapshots"][payload[side]["dumps"][d.index]["snap"]]
            assert [lines[i] for i in snap] == tl.lines(d)
    assert len(payload["pairs"]) == len(cmp.pairs)
    for (ia, ib, kind), p in zip(payload["pairs"], cmp.pairs, strict=True):
        assert kind in PAIR_KINDS
        assert ia == (p.a.index if p.a else -1) and ib == (p.b.index if p.b else -1)
        assert (kind == "same") == (p.a is not None and p.b is not None and not p.differs)
    first = payload["first_divergence"]
    assert (first is None) == (cmp.first_divergence is None)
    if first is not None:
        assert cmp.pairs[first] is cmp.first_divergence
