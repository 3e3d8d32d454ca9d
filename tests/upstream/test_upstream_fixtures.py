"""The committed upstream-Triton and bishengir-opt fixtures read as the engine expects."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from upstream_skips import DATA

from ascend_ir_lab.dumps import open_timeline, timing
from ascend_ir_lab.dumps.stage_timings import parse_llvm_report

RUNS = DATA / "runs"


def _text(path: Path) -> str:
    raw = path.read_bytes()
    return (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode()


@pytest.mark.parametrize(
    "name, stages",
    [
        ("softmax.cuda90", ["ttir", "ttgir", "llir", "ptx"]),
        ("attention.cuda90.mlir-only", ["ttir", "ttgir", "llir", "ptx"]),
        ("softmax_linalg.bishengir-opt", ["bishengir-opt"]),
    ],
)
def test_committed_runs_open(name: str, stages: list[str]) -> None:
    timeline = open_timeline(RUNS / name)
    assert timeline.stages == stages
    for stage in stages:
        assert any(d.stage == stage for d in timeline.dumps), stage


def test_mlir_dump_path_file_has_the_newer_headers() -> None:
    text = _text(DATA / "attention.cuda90.mlir-dump.txt.gz")
    header = "// -----// IR Dump Before ConvertTritonToTritonGPU: convert-triton-to-tritongpu{"
    assert header in text
    assert "('builtin.module' operation) //----- //" in text
    assert "('tt.func' operation: @" in text
    assert "// -----// SoftwarePipeliner internal IR Dump After: " in text
    assert "IR Dump After" not in text.replace("internal IR Dump After", "")


def test_llvm_dump_has_the_three_header_families() -> None:
    text = _text(DATA / "softmax.cuda90.llvm-dump.txt.gz")
    assert "; *** IR Dump After " in text and " on softmax ***" in text
    assert "\n*** IR Dump After Global Value Numbering (gvn) ***" in text
    assert "\n# *** IR Dump After " in text


def test_timing_reports_parse() -> None:
    text = _text(DATA / "attention.cuda90.timing.txt")
    mlir = timing.parse_report(text)
    llvm = parse_llvm_report(text)
    assert any(r.name == "TritonGPUPipeline" for r in mlir)
    assert any(r.name == "NVPTX DAG->DAG Pattern Instruction Selection" for r in llvm)
    assert not any(r.name.startswith(("Print ", "Total")) for r in llvm)
