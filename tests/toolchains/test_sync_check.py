"""The sync checker on real builds: quiet on correct sync, finds every kind of broken sync."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from ascend_ir_lab.analysis.sync_check import check_sync
from ascend_ir_lab.analysis.sync_mutate import KINDS, run_mutations
from ascend_ir_lab.analysis.sync_timeline import check_timeline, final_hivm, sync_targets
from ascend_ir_lab.cli import main
from ascend_ir_lab.export.payload import build_payload, validate_payload
from tests.toolchains.conftest import NAMES, needs_ascend

pytestmark = needs_ascend


def _scalar_read_of_vector_result(tl: Any, d: Any, f: Any) -> bool:
    """The one definite finding barrier-all builds have: a `memref.load` of a vector result
    right after the vector op, with no barrier (hivm-inject-sync puts none before it)."""
    return (
        f.kind == "hazard"
        and f.pipes == ("PIPE_V", "PIPE_S")
        and ("memref.load" in tl.lines(d)[f.line])
    )


@pytest.mark.parametrize("name", NAMES)
def test_no_definite_finding_on_fine_and_barrier_all_builds(
    name: str, fine_runs: dict[str, Any], barrier_runs: dict[str, Any]
) -> None:
    for runs in (fine_runs, barrier_runs):
        tl = runs[name].timeline
        checked = check_timeline(tl)
        final = final_hivm(tl)
        assert final is not None and final.index in checked
        assert len(checked) >= 2  # the Dump(s) after the sync pass and the final IR
        for index, result in checked.items():
            assert result.functions, f"#{index} checked no function"
            odd = [f for f in result.definite
                   if not (runs is barrier_runs and _scalar_read_of_vector_result(tl, tl.dumps[index], f))]  # fmt: skip
            assert not odd, f"{name} #{index}: " + "\n".join(result.lines())


def test_multibuffer_event_ids_pair_across_iterations(fine_runs: dict[str, Any]) -> None:
    tl = fine_runs["matmul"].timeline
    final = final_hivm(tl)
    assert final is not None
    text = tl.lines(final)
    assert any("wait_flag[<PIPE_MTE1>, <PIPE_MTE2>, %" in s for s in text)  # a runtime event id
    result = check_sync(text)
    assert not [f for f in result.findings if f.kind in ("hang", "leak", "reuse")]
    assert result.cross_core and not [f for f in result.findings if f.kind == "cross-core-hang"]


@pytest.mark.parametrize("name", NAMES)
def test_each_mutation_is_found_by_line(name: str, fine_runs: dict[str, Any]) -> None:
    tl = fine_runs[name].timeline
    final = final_hivm(tl)
    assert final is not None
    results = run_mutations(tl.lines(final), limit=4)
    tried = Counter(r.mutant.kind for r in results)
    found = Counter(r.mutant.kind for r in results if r.found)
    for r in results:
        if r.found:
            assert r.finding is not None and r.finding.line >= 0
            if r.mutant.kind == "move-wait":
                assert r.finding.line == r.mutant.expect and r.finding.kind == "hazard"
    assert {"delete-wait", "delete-set", "move-wait"} <= set(tried)
    assert all(found[k] >= 1 for k in tried), (name, dict(tried), dict(found))
    assert sum(found.values()) >= 0.9 * sum(tried.values()), (name, dict(tried), dict(found))


def test_all_four_mutations_found_on_four_kernels(fine_runs: dict[str, Any]) -> None:
    kernels_with_all = 0
    for name in NAMES:
        tl = fine_runs[name].timeline
        final = final_hivm(tl)
        assert final is not None
        found = {r.mutant.kind for r in run_mutations(tl.lines(final), limit=2) if r.found}
        kernels_with_all += set(KINDS) <= found
    assert kernels_with_all >= 4


def test_a_deleted_cross_core_set_is_found(fine_runs: dict[str, Any]) -> None:
    tl = fine_runs["matmul"].timeline
    final = final_hivm(tl)
    assert final is not None
    lines = tl.lines(final)
    assert not [f for f in check_sync(lines).findings if f.kind.startswith("cross-core")]
    # flag 9 is set twice per iteration on the vector core: one of them gone leaves them uneven
    k = next(i for i, s in enumerate(lines) if "sync_block_set[<VECTOR>, <PIPE_MTE3>" in s)
    uneven = [
        f for f in check_sync(lines[:k] + lines[k + 1 :]).findings if f.kind == "cross-core-count"
    ]
    assert [f.pipes for f in uneven] == [("PIPE_MTE3", "PIPE_MTE3")]
    # every set of flag 0 (FIX) gone: the vector core's wait can never be satisfied
    gone = [s for s in lines if "sync_block_set[<CUBE>, <PIPE_FIX>" not in s]
    hangs = [f for f in check_sync(gone).findings if f.kind == "cross-core-hang"]
    assert hangs and all("sync_block_wait[<VECTOR>, <PIPE_FIX>" in gone[f.line] for f in hangs)
    assert {f.severity for f in hangs} == {"definite"}


def test_findings_carry_the_python_line(line_info_matmul: Any) -> None:
    tl = line_info_matmul.timeline
    final = final_hivm(tl)
    assert final is not None
    lines = tl.lines(final)
    k = next(i for i, s in enumerate(lines) if "hivm.hir.wait_flag[<PIPE_MTE2>, <PIPE_V>" in s)
    result = check_sync(lines[:k] + lines[k + 1 :], source_file="matmul.py")
    hazard = next(f for f in result.findings if f.kind == "hazard" and f.severity == "definite")
    assert isinstance(hazard.source_line, int) and hazard.source_line > 0
    assert hazard.buffer.startswith("ub[") and hazard.other_line is not None


def test_payload_carries_findings_per_dump(fine_runs: dict[str, Any]) -> None:
    tl = fine_runs["attention"].timeline
    payload = build_payload(tl)
    dumps = payload["sync_check"]["dumps"]
    assert set(dumps) == {str(d.index) for d in sync_targets(tl)}
    assert validate_payload(payload) == []
    broken = dict(payload, sync_check={"dumps": {"0": [{"line": 10**6}]}})
    assert validate_payload(broken) == ["sync_check of dump 0 points at a line outside its IR"]


def test_cli_sync_check_and_mutate(
    fine_runs: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    path = str(fine_runs["softmax"].path)
    assert main(["sync", path, "--check"]) == 0
    out = capsys.readouterr().out
    assert "sync check of @softmax: 0 definite" in out
    assert main(["sync", path, "--check", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["dumps"] and all(isinstance(v, list) for v in data["dumps"].values())
    assert main(["sync", path, "--mutate", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    results = [r for rs in report.values() for r in rs]
    assert results and all(r["found"] for r in results)


def _with_upstream_barrier_all(lines: list[str]) -> list[str]:
    """What AscendNPU-IR's barrier-all mode emits since 249e119f2 (2026-07-24; the installed
    release/v1.2.x build 8796a8ac1508 predates it): pipe_barrier[PIPE_ALL] also before every
    scalar memref.load/store, not only before HIVM ops and the return."""
    out = []
    for s in lines:
        if "memref.load " in s or "memref.store " in s:
            out.append(s[: len(s) - len(s.lstrip())] + "hivm.hir.pipe_barrier[<PIPE_ALL>]")
        out.append(s)
    return out


@pytest.mark.parametrize("name", NAMES)
def test_barrier_all_definite_findings_are_the_missing_scalar_barriers(
    name: str, barrier_runs: dict[str, Any]
) -> None:
    tl = barrier_runs[name].timeline
    for d in sync_targets(tl):
        lines = tl.lines(d)
        result = check_sync(lines, scope=d.scope)
        for f in result.definite:  # each one a scalar access right after a vector op
            assert f.kind == "hazard" and "PIPE_S" in f.pipes, f
            scalar = f.line if f.pipes[1] == "PIPE_S" else f.other_line
            assert scalar is not None and re.search(r"memref\.(load|store) ", lines[scalar])
            assert "pipe_barrier" not in lines[scalar - 1]
        fixed = check_sync(_with_upstream_barrier_all(list(lines)), scope=d.scope)
        assert not fixed.definite, "\n".join(fixed.lines())
        if name in ("softmax", "layernorm"):
            assert result.definite  # the reductions read back by the scalar unit
