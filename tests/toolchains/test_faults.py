"""Faults keep what was printed: a hung or interrupted compiler, with stand-ins for the faults
the real tools will not produce on demand (hanging mid-print, children that outlive them,
`--version` that never answers). Stages 1 and 2 of the compiles are the real tools."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ascend_ir_lab.dumps import open_timeline
from ascend_ir_lab.runs import Run
from ascend_ir_lab.toolchains.common.process import ToolTimeoutError, run_logged
from ascend_ir_lab.toolchains.common.tools import query, query_budget
from tests.toolchains.conftest import kernel_spec, needs_ascend

# A stand-in bishengir-compile: prints two pass dumps, starts a child that would outlive it,
# then hangs. With STANDIN_HANG_QUERIES=1, `--version` and `--help` hang too (holding stdout
# through a child, as a wrapper script's subprocess would).
STANDIN = """\
#!{python}
import os, subprocess, sys, time
pids = os.environ.get("STANDIN_PIDS", "/dev/null")
def child():
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    with open(pids, "a") as f:
        f.write(f"{{p.pid}}\\n")
if any(a in ("--version", "--help") for a in sys.argv[1:]):
    if os.environ.get("STANDIN_HANG_QUERIES") == "1":
        child()
        time.sleep(300)
    print("bishengir-compile stand-in 0.0")
    sys.exit(0)
for name in ("canonicalize", "cse"):
    print(f"// -----// IR Dump After {{name.title()}} ({{name}}) //----- //")
    print("module {{\\n  func.func @k() {{\\n    return\\n  }}\\n}}\\n", flush=True)
child()
time.sleep(300)
"""


def _standin(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    tool = folder / "bishengir-compile"
    tool.write_text(STANDIN.format(python=sys.executable))
    tool.chmod(0o755)
    return tool


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for our purpose
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split()[2] != "Z"


def _all_gone(pids: list[int]) -> bool:
    """Whether every process in `pids` has ended (a killed process takes a moment to go)."""
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(_alive(p) for p in pids)


def _pids(path: Path) -> list[int]:
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _env(tmp_path: Path, hang_queries: bool) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    _standin(bin_dir)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "STANDIN_PIDS": str(tmp_path / "pids"),
            "STANDIN_HANG_QUERIES": "1" if hang_queries else "0"}  # fmt: skip


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    env = _env(tmp_path, hang_queries=False)
    tool = tmp_path / "bin" / "bishengir-compile"
    with pytest.raises(ToolTimeoutError) as info:
        run_logged([str(tool), "x.mlir"], log=tmp_path / "l.log", env=env, timeout=3)
    result = info.value.result
    assert result.status == "timed-out" and result.returncode == -9
    assert "IR Dump After Cse (cse)" in result.log.read_text()  # what it printed is kept
    pids = _pids(tmp_path / "pids")
    assert pids and _all_gone(pids), "the tool's child outlived the timeout"


def test_a_query_that_never_answers_is_bounded(tmp_path: Path) -> None:
    env = _env(tmp_path, hang_queries=True)
    tool = tmp_path / "bin" / "bishengir-compile"
    code = textwrap.dedent(f"""
        import time
        from ascend_ir_lab.toolchains.common.tools import query, query_budget
        t = time.monotonic()
        with query_budget(2):
            out = query({str(tool)!r}, "--version", timeout=60)
        print(out, round(time.monotonic() - t))
    """)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=50)  # fmt: skip
    assert r.returncode == 0, r.stderr
    answer, seconds = r.stdout.split()
    assert answer == "None" and int(seconds) < 10  # the budget (2 s), not the query's 60 s
    assert _all_gone(_pids(tmp_path / "pids"))
    with query_budget(0):
        assert query(tool, "--version") is None  # nothing is started past the budget


_COMPILE = """
import json, sys, time
from ascend_ir_lab.toolchains.ascend.compile import RunInterrupted, StageFailedError, compile_kernel
spec, sig, consts, out, timeout, check = json.loads(sys.argv[1])
t = time.monotonic()
try:
    run = compile_kernel(spec, signature=sig, constexprs=consts, out=out, timeout=timeout,
                         check=check)
    print(json.dumps({"run": str(run.path), "raised": None, "s": time.monotonic() - t}))
except StageFailedError as e:
    print(json.dumps({"run": str(e.run.path), "raised": "StageFailedError",
                      "s": time.monotonic() - t}))
except RunInterrupted as e:
    print(json.dumps({"run": str(e.run.path), "raised": "RunInterrupted"}))
    sys.exit(130)
"""


def _compile_args(tmp_path: Path, name: str, timeout: float, check: bool) -> str:
    info = kernel_spec("vadd")
    return json.dumps([info["spec"], info["signature"], info["constexprs"],
                       str(tmp_path / name), timeout, check])  # fmt: skip


@needs_ascend
def test_compile_timeout_records_the_stage_and_raises_with_the_run(tmp_path: Path) -> None:
    env = _env(tmp_path, hang_queries=True)
    runs = []
    for name, check in (("raise", True), ("keep", False)):
        r = subprocess.run(
            [sys.executable, "-c", _COMPILE, _compile_args(tmp_path, name, 3, check)],
            env=env, capture_output=True, text=True, timeout=400,
        )  # fmt: skip
        assert r.returncode == 0, r.stderr[-3000:]
        runs.append(json.loads(r.stdout.strip().splitlines()[-1]))
    assert runs[0]["raised"] == "StageFailedError" and runs[1]["raised"] is None
    # queries and the stage each waited 3 s at most, not the queries' own 30 s each
    assert runs[0]["s"] < 55
    for outcome in runs:
        manifest = json.loads((Path(outcome["run"]) / "run.json").read_text())
        stage = manifest["stages"][-1]
        assert stage["name"] == "bishengir" and stage["status"] == "timed-out"
        assert stage["returncode"] == -9 and manifest["status"]["code"] == "compile-error"
        assert "timed out" in manifest["status"]["text"]
        tl = open_timeline(outcome["run"])
        assert [d.arg for d in tl.dumps if d.stage == "bishengir"] == ["canonicalize", "cse"]
        assert any("bishengir timed-out" in w for w in tl.warnings)
    assert _all_gone(_pids(tmp_path / "pids"))


def _interrupted(tmp_path: Path, script: str, timeout: float) -> tuple[Path, float]:
    """Run `script` (a compile of vadd, the stand-in as bishengir), Ctrl-C it once the
    stand-in runs; (the Run it names, seconds from Ctrl-C to its end), exit status 130."""
    env = _env(tmp_path, hang_queries=False)
    proc = subprocess.Popen(
        [sys.executable, "-c", script, _compile_args(tmp_path, "run", timeout, True)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 300
    while not _pids(tmp_path / "pids") and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    assert _pids(tmp_path / "pids"), "the stand-in never started"
    asked = time.monotonic()
    proc.send_signal(signal.SIGINT)  # what Ctrl-C sends to the foreground process
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-3000:]
    return Path(json.loads(out.strip().splitlines()[-1])["run"]), time.monotonic() - asked


@needs_ascend
def test_ctrl_c_records_the_interrupted_stage(tmp_path: Path) -> None:
    run, _ = _interrupted(tmp_path, _COMPILE, 120)
    manifest = json.loads((run / "run.json").read_text())
    stage = manifest["stages"][-1]
    assert stage["name"] == "bishengir" and stage["status"] == "interrupted"
    assert manifest["status"]["code"] == "interrupted"
    assert b"IR Dump After Cse" in Run(run).log("bishengir")  # kept as .log.zst
    assert _all_gone(_pids(tmp_path / "pids"))


def test_a_stopped_stage_reaches_the_payload(tmp_path: Path) -> None:
    from ascend_ir_lab.export.files import payload_of
    from ascend_ir_lab.toolchains.ascend.stages import stage_record
    from ascend_ir_lab.toolchains.common.run import RunWriter

    env = _env(tmp_path, hang_queries=False)
    writer = RunWriter.create("stopped", {}, tmp_path / "run")
    tool = tmp_path / "bin" / "bishengir-compile"
    with pytest.raises(ToolTimeoutError) as info:
        run_logged([str(tool)], log=writer.log_path("bishengir"), env=env, timeout=2)
    result = info.value.result
    writer.add_stage(stage_record(writer, "bishengir", result, None, status=result.status))
    payload = payload_of(writer.finish("compile-error", "stage bishengir timed out"))
    assert payload["stages"][0]["status"] == "timed-out"
    assert any("bishengir timed-out" in w for w in payload["warnings"])
    assert len(payload["dumps"]) == 2  # what it printed before it was stopped
    assert _all_gone(_pids(tmp_path / "pids"))


_WATCHED = """
import json, sys
from pathlib import Path
from ascend_ir_lab.toolchains.ascend.compile import RunInterrupted, compile_kernel
from ascend_ir_lab.toolchains.common.launch import compile_watched
spec, sig, consts, out, timeout, check = json.loads(sys.argv[1])
kwargs = dict(signature=sig, constexprs=consts, out=out, timeout=timeout, check=check,
              target="Ascend910B3")
try:  # as a launch compiles: in a worker thread, this one watching
    compile_watched(spec, Path(out), kwargs, lambda *a: None, compile_kernel)
except RunInterrupted as e:
    print(json.dumps({"run": str(e.run.path)}))
    sys.exit(130)
"""


@needs_ascend
def test_ctrl_c_stops_a_compile_running_in_a_worker_thread(tmp_path: Path) -> None:
    run, seconds = _interrupted(tmp_path, _WATCHED, 300)  # the signal reaches the watcher only
    assert seconds < 60  # stopped now, not at the stage's 300 s timeout
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["stages"][-1]["status"] == "interrupted"
    assert manifest["status"]["code"] == "interrupted"
    assert _all_gone(_pids(tmp_path / "pids"))
