"""The CLI contract of inspect/show/diff/find/ops, through the installed console script."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ASCEND, TRITON, fixture_bytes

FINE = str(ASCEND / "matmul.bishengir.log.gz")
BARRIER = str(ASCEND / "matmul.bishengir.barrier-all.log.gz")


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("ascend-ir-lab") or ""
    cmd = [exe] if exe else [sys.executable, "-m", "ascend_ir_lab"]
    return subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=120)


def test_inspect_json_contract() -> None:
    r = cli("inspect", str(ASCEND / "vadd.bishengir.log.gz"), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert set(out) >= {"dumps", "messages", "warnings"}
    d0 = out["dumps"][0]
    assert set(d0) >= {
        "index",
        "stage",
        "pass",
        "arg",
        "phase",
        "scope",
        "changed",
        "lines",
        "truncated",
    }
    assert len(out["dumps"]) == 254
    assert (d0["pass"], d0["arg"], d0["phase"], d0["changed"]) == (
        "CanonicalizeModule",
        "canonicalize-module",
        "after",
        True,
    )
    assert out["messages"][-1]["text"] == "[ERROR] Failed to run BiShengIR pipeline"


def test_inspect_table_reads_like_a_table() -> None:
    r = cli("inspect", str(ASCEND / "vadd.adapter.log"))
    assert r.returncode == 0
    assert "14 dumps" in r.stdout
    assert "triton-to-linalg" in r.stdout


@pytest.mark.parametrize("path", [
    ASCEND / "vadd.bishengir.tree", next((ASCEND / "cache").iterdir()), ASCEND / "failed.log",
    ASCEND / "vadd.ttir-passes.log", TRITON / "softmax.cuda90.llvm-dump.txt.gz",
    TRITON / "softmax.cuda90.mlir-dump.txt.gz",
], ids=lambda p: p.name)  # fmt: skip
def test_inspect_reads_every_kind_of_input(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"{path} not generated")
    r = cli("inspect", str(path), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["dumps"]


def test_show_by_index_last_and_pass_occurrence() -> None:
    log = str(ASCEND / "vadd.bishengir.log.gz")
    last = cli("show", log, "last").stdout
    assert last.startswith("module") or last.startswith("#")
    assert cli("show", log, "253").stdout == last
    cse2 = cli("show", log, "cse#2")
    assert cse2.returncode == 0 and cse2.stdout
    bad = cli("show", log, "cse#999")
    assert bad.returncode == 2 and "#999 does not exist" in bad.stderr


def test_diff_against_previous_state_shows_the_sync_pass() -> None:
    r = cli("diff", FINE, "hivm-graph-sync-solver#4")
    assert r.returncode == 0
    assert sum(1 for s in r.stdout.splitlines() if s.startswith("+") and "set_flag" in s) == 13


def test_diff_fine_against_barrier_all_pass_aligned() -> None:
    # the sync pass of each run: the solver (fine) against inject-sync (barrier-all)
    r = cli("diff", FINE, "hivm-graph-sync-solver#4", "hivm-inject-sync#4", "--against", BARRIER)
    assert r.returncode == 0
    plus = [s for s in r.stdout.splitlines() if s.startswith("+") and not s.startswith("+++")]
    minus = [s for s in r.stdout.splitlines() if s.startswith("-") and not s.startswith("---")]
    assert any("PIPE_ALL" in s for s in plus) and any("set_flag" in s for s in minus)
    # without B: the same pass, same occurrence, same scope in the other run
    last = cli("diff", FINE, "last", "--against", BARRIER, "--exit-code")
    assert last.returncode == 1 and "wait_flag" in last.stdout
    summary = cli("diff", FINE, "--against", BARRIER)
    assert "passes aligned" in summary.stdout
    assert (
        "runs hivm-graph-sync-solver where matmul.bishengir.barrier-all.log.gz runs hivm-inject-sync x4"
        in summary.stdout
    )
    # one name is enough: the sync pass of A meets its substitute in B
    one = cli("diff", FINE, "hivm-graph-sync-solver#4", "--against", BARRIER)
    assert one.stdout == r.stdout


def test_find_json_contract() -> None:
    r = cli("find", FINE, "hivm.hir.set_flag", "--json")
    assert r.returncode == 0
    rows = json.loads(r.stdout)
    keys = {"index", "stage", "pass", "arg", "scope", "count", "delta"}
    assert [set(x) for x in rows] == [keys] * 2
    assert {x["pass"] for x in rows} == {"GraphSyncSolver"}  # `pass` is the name everywhere
    assert [(x["arg"], x["delta"]) for x in rows] == [
        ("hivm-graph-sync-solver", 7),
        ("hivm-graph-sync-solver", 13),
    ]
    assert cli("find", BARRIER, "hivm.hir.set_flag", "--json").stdout.strip() == "[]"


def test_find_unknown_op_suggests_a_name() -> None:
    r = cli("find", FINE, "hivm.hir.setflag")
    assert r.returncode == 0 and "did you mean hivm.hir.set_flag" in r.stderr


def test_ops_census() -> None:
    r = cli("ops", FINE, "last", "--json")
    out = json.loads(r.stdout)
    assert out["counts"]["hivm.hir.set_flag"] == 20 and isinstance(out["index"], int)


def test_bad_inputs_exit_2_with_one_line(tmp_path: Path) -> None:
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    garbage = tmp_path / "garbage.log"
    garbage.write_bytes(bytes(range(256)) * 10)
    nodumps = tmp_path / "plain.log"
    nodumps.write_text("hello\n")
    for path, words in [
        (tmp_path / "missing.log", "no such file"), (empty, "empty"),
        (garbage, "binary"), (nodumps, "no IR dumps"),
    ]:  # fmt: skip
        r = cli("inspect", str(path))
        assert r.returncode == 2
        assert words in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_truncated_log_opens_with_a_warning(tmp_path: Path) -> None:
    data = fixture_bytes(ASCEND / "vadd.bishengir.log.gz")
    cut = tmp_path / "cut.log"
    cut.write_bytes(data[: len(data) // 2])
    r = cli("inspect", str(cut), "--json")
    assert r.returncode == 0
    out = json.loads(r.stdout)
    assert out["dumps"][-1]["truncated"] is True
    assert any("truncated" in w for w in out["warnings"])


def test_search_and_sync_commands() -> None:
    r = cli("search", FINE, "PIPE_ALL", "--json")
    out = json.loads(r.stdout)
    assert (
        out["first"] == 348 and [c["arg"] for c in out["changes"]] == ["hivm-graph-sync-solver"] * 2
    )
    s = json.loads(cli("sync", BARRIER, "--json").stdout)
    assert s["counts"]["pipe_barrier PIPE_ALL"] == 77 and s["pairs"] == []
    bad = cli("search", FINE, "a[", "--regex")
    assert bad.returncode == 2 and "bad regular expression" in bad.stderr


@pytest.mark.ascend
def test_source_line_through_every_stage(tmp_path: Path) -> None:
    pytest.importorskip("triton.backends.ascend", reason="needs triton-ascend (extra 'ascend')")
    run = tmp_path / "vadd"
    kernel = ASCEND.parent.parent / "kernels" / "vadd.py"
    assert cli("compile", str(kernel), "--line-info", "-o", str(run)).returncode == 0
    store = next(i + 1 for i, s in enumerate(kernel.read_text().splitlines()) if "tl.store" in s)
    out = json.loads(
        cli("source", str(run), str(store), "--which", "hivm-graph-sync-solver#2", "--json").stdout
    )
    assert out["file"] == "vadd.py"
    assert {c["stage"] for c in out["changes"]} >= {"bishengir"}
    assert any("hivm.hir.store" in op["text"] for op in out["ops"])  # the store, late in bishengir


def test_color_is_opt_in_when_not_a_terminal() -> None:
    log = str(ASCEND / "vadd.bishengir.log.gz")
    plain = cli("diff", log, "hivm-graph-sync-solver#2")
    assert "\x1b[" not in plain.stdout
    colored = cli("diff", log, "hivm-graph-sync-solver#2", "--color", "always")
    assert "\x1b[32m+    hivm.hir.set_flag" in colored.stdout
    shown = cli("show", log, "last", "--color", "always")
    assert "\x1b[" in shown.stdout and "hivm.hir.set_flag" in shown.stdout
