"""Per-pass timings reported by the tools, matched to the Dumps of a Run."""

from __future__ import annotations

import json

from ascend_ir_lab.dumps import open_timeline
from tests.conftest import TRITON

RUN = TRITON / "runs" / "softmax.cuda90"


def test_stage_timings_land_on_their_passes() -> None:
    tl = open_timeline(RUN)
    manifest = json.loads((RUN / "run.json").read_text())
    ttgir = {s["name"]: s for s in manifest["stages"]}["ttgir"]["timings"]
    coalesce = tl.select("ttgir:tritongpu-coalesce")
    assert tl.seconds(coalesce) == ttgir["tritongpu-coalesce"]
    timed = [d for d in tl.dumps if tl.seconds(d) is not None]
    assert len(timed) > 50
    assert {d.stage for d in timed} >= {"ttir", "ttgir", "llir"}
    # a pass nested under a function pipeline is one run in the report: only its first Dump
    for a, b in zip(tl.dumps, tl.dumps[1:], strict=False):
        if (a.stage, a.label) == (b.stage, b.label):
            assert tl.seconds(b) is None


def test_logs_without_timings_have_none() -> None:
    tl = open_timeline(TRITON / "softmax.cuda90.mlir-dump.txt.gz")
    assert all(tl.seconds(d) is None for d in tl.dumps)
