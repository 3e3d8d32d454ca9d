"""The "sync" section of the bug-report bundle, from real fine, barrier-all and second builds."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from ascend_ir_lab.share.report import make_report
from tests.toolchains.conftest import needs_ascend

pytestmark = needs_ascend
HOST = {"versions": {}, "npu_model": None}


def test_report_has_a_sync_section(
    fine_runs: dict[str, Any], barrier_runs: dict[str, Any], again_runs: dict[str, Any],
    tmp_path: Path,
) -> None:  # fmt: skip
    report = make_report(
        fine_runs["matmul"], against=barrier_runs["matmul"], again=again_runs["matmul"],
        out=tmp_path / "bug", host=HOST,
    )  # fmt: skip
    sync = json.loads(zipfile.ZipFile(report.zip_path).read("sync/report.json"))
    cmp = sync["comparison"]
    # how much the two builds differ varies from one session to the next; what is noise is
    # set apart from what is real either way
    assert cmp["noise_measured"]
    assert cmp["noisy"] + cmp["real"] + cmp["inherited"] == cmp["differing"]
    first = cmp["first_real_divergence"]
    assert first["pass"] == "hivm-graph-sync-solver" and first["scope"].endswith("_mix_aic")
    assert "hivm-graph-sync-solver -> hivm-inject-sync x4" in cmp["substituted"]
    assert sync["findings"]["definite"] == 0 and sync["barrier_all_findings"]["definite"] == 0
    fine_pairs = sync["replaced"]["fine"]["pairs"]
    assert fine_pairs and sum(fine_pairs.values()) >= 10
    assert sync["replaced"]["barrier_all"]["counts"].get("pipe_barrier PIPE_ALL", 0) > 10
    assert "no definite problem" in sync["verdict"]
    md = report.markdown
    assert "## Sync" in md and "first real divergence: hivm-graph-sync-solver" in md
    assert "Flag pairs of the fine final IR: PIPE_" in md


def test_report_says_when_the_barrier_all_build_reads_vector_results_unordered(
    fine_runs: dict[str, Any], barrier_runs: dict[str, Any], tmp_path: Path
) -> None:
    report = make_report(
        fine_runs["softmax"], against=barrier_runs["softmax"], out=tmp_path / "bug", host=HOST
    )
    sync = json.loads(zipfile.ZipFile(report.zip_path).read("sync/report.json"))
    b = sync["barrier_all_findings"]
    assert sync["findings"]["definite"] == 0
    assert b["definite"] == b["scalar"] > 0  # the reductions read back by the scalar unit
    assert "a scalar memref.load/store of a vector result with no barrier" in report.markdown
