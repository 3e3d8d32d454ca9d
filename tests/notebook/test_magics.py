"""The magics driven through a real IPython InteractiveShell, with the real Ascend tools."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from nb_helpers import VADD_CELL, needs_ascend, run_cell, shown

from ascend_ir_lab.errors import LaunchFailedError
from ascend_ir_lab.notebook.explorer import RunView

pytestmark = [pytest.mark.ascend, needs_ascend]


def test_extension_registers_every_magic(shell: InteractiveShell) -> None:
    magics = shell.magics_manager.magics
    assert "triton_npu" in magics["cell"]
    assert {"ir_diff", "ir_load", "ir_cache"} <= set(magics["line"])


@pytest.mark.parametrize(
    "magic", ["%%triton_npu --help\npass", "%ir_diff --help", "%ir_load -h", "%ir_cache --help"]
)
def test_help_prints_the_usage(shell: InteractiveShell, magic: str) -> None:
    result, io = run_cell(shell, magic)
    assert result.success
    assert "usage" not in io.stderr.lower()
    name = magic.split()[0].lstrip("%")
    assert "options:" in io.stdout
    assert re.search(rf"^\s*%{name} \[", io.stdout, re.M), "the usage line names the magic"


def test_launch_is_taken_over_compiled_and_interpreted(
    shell: InteractiveShell, vadd: tuple[Any, Any]
) -> None:
    result, io = vadd
    view = result.result
    assert result.success and isinstance(view, RunView)
    assert shell.user_ns["_"] is view  # `run = _` works
    assert view.status == "ir-complete-no-binary"
    assert [s["name"] for s in view.stages] == ["ttir", "adapter", "bishengir"]
    assert len(view.timeline.dumps) > 250
    assert view.manifest["kernel"]["signature"] == {
        "x_ptr": "*fp32",
        "y_ptr": "*fp32",
        "out_ptr": "*fp32",
        "n": "i32",
    }
    assert view.manifest["kernel"]["constexprs"] == {"BLOCK": 1024}
    # the interpreter ran the launch on the CPU: the result is there to check
    ns = shell.user_ns
    assert (ns["out"] - (ns["x"] + ns["y"])).abs().max().item() == 0.0
    text = shown(io)
    assert "launch of add_kernel[(3,)] skipped" in text
    assert "TRITON_INTERPRET=1" in text


def test_progress_is_shown_stage_by_stage(vadd: tuple[Any, Any]) -> None:
    _, io = vadd
    lines = [
        o.data["text/plain"] for o in io.outputs if "add_kernel →" in o.data.get("text/plain", "")
    ]
    assert lines[0].endswith("compiling: ttir …")
    assert any(ln.endswith("adapter …") for ln in lines)
    assert any(ln.endswith("bishengir …") for ln in lines)
    assert "IR complete, no binary (hivmc ships with CANN)" in lines[-1]
    assert all(
        "<b>add_kernel → Ascend910B3</b>" in o.data["text/html"]
        for o in io.outputs
        if "add_kernel →" in o.data.get("text/plain", "")
    )


@pytest.mark.filterwarnings("ignore:.*ccec:UserWarning")  # triton-ascend's driver probe, no CANN
def test_launch_patch_is_restored_even_after_an_error(
    shell: InteractiveShell, runs_dir: Path, vadd: tuple[Any, Any]
) -> None:
    from triton.runtime.jit import JITFunction

    original = JITFunction.run
    result, io = run_cell(shell, f"%%triton_npu --runs-dir {runs_dir}\nraise ValueError('boom')")
    assert isinstance(result.error_in_exec, ValueError) or "boom" in shown(io)
    assert JITFunction.run is original
    # outside the magic a launch is Triton's own again: no NPU here, so it fails
    result, _ = run_cell(shell, "add_kernel[(1,)](x, y, out, 3000, BLOCK=1024)")
    assert result.error_in_exec is not None


def test_plain_text_frontends_get_a_summary(vadd: tuple[Any, Any]) -> None:
    view = vadd[0].result
    bundle = view._repr_mimebundle_()
    assert set(bundle) == {"text/plain"}
    summary = bundle["text/plain"]
    assert summary.startswith("add_kernel (Ascend910B3): ")
    assert "status: ir-complete-no-binary" in summary
    assert "set_flag" in summary and len(summary.splitlines()) < 12


def test_widget_payload_carries_the_cell_source(vadd: tuple[Any, Any]) -> None:
    view = vadd[0].result
    widget = view.widget()
    payload = widget.payload
    assert payload["title"] == "add_kernel (Ascend910B3)"
    assert "def add_kernel(" in payload["source"]["text"]
    source = payload["source"]
    assert source["text"].strip() == VADD_CELL.strip()  # the whole cell
    assert source["text"].splitlines()[source["first_line"] - 1].startswith("def add_kernel(")
    # IR locations name the cell, so ttir lines map back to kernel lines
    assert sum(len(m) for m in payload["srcmap"]) > 0
    data, _ = widget._repr_mimebundle_()
    assert "application/vnd.ascend-ir-lab.timeline+json" in data
    assert view.widget() is widget  # notes stay with the view


def test_view_helpers(vadd: tuple[Any, Any]) -> None:
    view = vadd[0].result
    assert view.show("last").startswith("#map") or "module" in view.show("last")
    life = view.find("hivm.hir.set_flag")
    assert [row[4].split()[0] for row in life] == ["hivm-graph-sync-solver"]
    added = view.diff(life.rows[0][0])
    assert sum(1 for ln in added.splitlines() if ln.startswith("+") and "set_flag" in ln) == 4
    assert "hivm.hir.set_flag" in repr(view.ops())


def test_numpy_launch_without_interpret_is_skipped(
    shell: InteractiveShell, runs_dir: Path, vadd: tuple[Any, Any]
) -> None:
    cell = (
        "import numpy as np\n"
        "xs = np.ones(1000, np.float16); ys = np.ones(1000, np.float16)\n"
        "zs = np.zeros(1000, np.float16)\n"
        "add_kernel[(1,)](xs, ys, zs, 1000, BLOCK=1024)\n"
    )
    result, io = run_cell(shell, f"%%triton_npu --name np-vadd --runs-dir {runs_dir}\n{cell}")
    view = result.result
    assert view is not None, shown(io)
    assert view.name == "np-vadd"
    assert view.manifest["kernel"]["signature"]["x_ptr"] == "*fp16"
    assert shell.user_ns["zs"].sum() == 0  # skipped, not interpreted
    assert "skipped" in shown(io) and "TRITON_INTERPRET" not in shown(io)


def test_defined_kernel_compiles_with_a_signature(shell: InteractiveShell, runs_dir: Path) -> None:
    cell = (
        "@triton.jit\ndef scale(x_ptr, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n"
        "    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)\n"
    )
    line = f"%%triton_npu --signature x_ptr=*fp32,n=i32 --constexpr BLOCK=256 --runs-dir {runs_dir}"
    result, io = run_cell(shell, f"{line}\n{cell}")
    view = result.result
    assert isinstance(view, RunView), shown(io)
    assert view.manifest["kernel"]["name"] == "scale"
    assert view.status == "ir-complete-no-binary"


def test_compile_error_is_a_panel_not_a_traceback(
    shell: InteractiveShell, runs_dir: Path, vadd: tuple[Any, Any]
) -> None:
    line = f"%%triton_npu --flag=--no-such-option=1 --name bad --runs-dir {runs_dir}"
    result, io = run_cell(shell, f"{line}\nadd_kernel[(1,)](x, y, out, 3000, BLOCK=1024)")
    # the panel stays, and the cell fails so that "Run All" stops there
    assert isinstance(result.error_in_exec, LaunchFailedError) and result.result is None
    assert "stage bishengir failed (exit code 1)" in str(result.error_in_exec)
    text = shown(io)
    assert "Traceback" not in text
    panel = next(o for o in io.outputs if "✗" in o.data.get("text/plain", ""))
    plain = panel.data["text/plain"]
    assert "stage bishengir failed (exit code 1)" in plain
    assert "command:" in plain and "bishengir-compile" in plain and "--no-such-option=1" in plain
    assert "no-such-option" in plain.split("compiler output")[1]
    assert "border" in panel.data["text/html"]


def test_bad_argument_type_is_a_panel(
    shell: InteractiveShell, runs_dir: Path, vadd: tuple[Any, Any]
) -> None:
    result, io = run_cell(
        shell,
        f"%%triton_npu --runs-dir {runs_dir}\nadd_kernel[(1,)]('x', y, out, 3000, BLOCK=1024)",
    )
    assert isinstance(result.error_in_exec, LaunchFailedError) and "Traceback" not in shown(io)
    assert "argument x_ptr is a str" in shown(io)


def test_fine_vs_barrier_all_comparison(shell: InteractiveShell, matmuls: tuple[Any, Any]) -> None:
    fine, barrier = matmuls
    assert fine.name == "fine" and barrier.name == "barrier"
    result, io = run_cell(shell, "%ir_diff fine barrier")
    cmp = result.result
    assert set(cmp.substituted) == {("hivm-graph-sync-solver", "hivm-inject-sync")}
    assert not cmp.only_a and not cmp.only_b
    assert cmp.first_divergence is not None
    assert "fine runs hivm-graph-sync-solver where barrier runs hivm-inject-sync x4" in shown(io)


def test_ir_diff_pass_across_runs_uses_the_stand_in(
    shell: InteractiveShell, matmuls: tuple[Any, Any]
) -> None:
    result, io = run_cell(shell, "%ir_diff fine:hivm-graph-sync-solver#4 barrier")
    diff = result.result
    assert diff.kind == "diff" and "barrier #384 bishengir:hivm-inject-sync" in diff.title
    lines = diff.splitlines()
    assert any(ln.startswith("-") and "hivm.hir.set_flag" in ln for ln in lines)
    assert any(ln.startswith("+") and "hivm.hir.pipe_barrier[<PIPE_ALL>]" in ln for ln in lines)


def test_ir_diff_forms(shell: InteractiveShell, matmuls: tuple[Any, Any]) -> None:
    fine, _ = matmuls
    first_set_flag = fine.find("hivm.hir.set_flag").rows[0][0]
    result, _ = run_cell(shell, f"%ir_diff fine:{first_set_flag}")
    assert result.result.startswith("---") and "set_flag" in result.result
    result, _ = run_cell(shell, "%ir_diff 3 4")  # dump indices of the latest Run
    assert result.result.kind == "diff"
    result, io = run_cell(shell, "%ir_diff no_such_run")
    assert result.result is None and "✗" in shown(io) and "Traceback" not in shown(io)


def test_ir_load_opens_logs_and_runs(shell: InteractiveShell, matmuls: tuple[Any, Any]) -> None:
    data = Path(__file__).resolve().parents[1] / "data" / "ascend"
    result, _ = run_cell(shell, f"%ir_load {data / 'vadd.bishengir.tree'} --name tree")
    view = result.result
    assert isinstance(view, RunView) and view.status == "log" and len(view.timeline.dumps) > 50
    result, _ = run_cell(shell, f"%ir_load {matmuls[0].path}")
    assert result.result.run is not None and len(result.result.timeline.dumps) == len(
        matmuls[0].timeline.dumps
    )


def test_ir_cache_lists_newest_first_and_opens(
    shell: InteractiveShell, vadd: tuple[Any, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    run = vadd[0].result
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TRITON_DUMP_DIR", str(tmp_path / "dump"))
    for i, key in enumerate(("aaa111", "bbb222")):  # a cache as triton-ascend leaves it
        entry = tmp_path / "cache" / key
        entry.mkdir(parents=True)
        for name in ("add_kernel.ttir", "add_kernel.ttadapter"):
            (entry / name).write_bytes((run.path / "artifacts" / name).read_bytes())
            os.utime(entry / name, (1_000_000 + i, 1_000_000 + i))
    result, _ = run_cell(shell, "%ir_cache")
    table = result.result
    assert [row[0] for row in table] == ["bbb222", "aaa111"]
    assert table.rows[0][2] == "add_kernel" and table.rows[0][3] == "ttir ttadapter"
    result, _ = run_cell(shell, "%ir_cache aaa")
    assert isinstance(result.result, RunView) and len(result.result.timeline.dumps) >= 2


AUTOTUNED_CELL = """
import numpy as np, torch, triton, triton.language as tl
stray = np.ones(8)  # notebook namespaces hold arrays: the interpreter must not trip on them

@triton.autotune(configs=[triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 1024})], key=["n"])
@triton.jit
def add_tuned(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)

tx, ty, tout = torch.randn(4096), torch.randn(4096), torch.zeros(4096)
add_tuned[lambda meta: (triton.cdiv(4096, meta["BLOCK"]),)](tx, ty, tout, 4096)
"""


def test_autotuned_kernel_compiles_every_config_without_a_device(
    shell: InteractiveShell, tmp_path: Path
) -> None:
    result, io = run_cell(
        shell, f"%%triton_npu --interpret --runs-dir {tmp_path}\n{AUTOTUNED_CELL}"
    )
    assert result.success, shown(io)
    runs = sorted(p.name for p in tmp_path.iterdir())
    assert runs == ["add_tuned", "add_tuned-2"]  # one Run per config
    blocks = {
        json.loads((tmp_path / r / "run.json").read_text())["kernel"]["constexprs"]["BLOCK"]
        for r in runs
    }
    assert blocks == {256, 1024}
    assert "autotune: 2 configs compiled offline, none timed" in shown(io)
    ns = shell.user_ns
    assert (ns["tout"] == ns["tx"] + ns["ty"]).all(), shown(io)  # the interpreter ran it


def test_a_sweep_shows_one_table_and_records_open_with_their_passes(
    shell: InteractiveShell, tmp_path: Path
) -> None:
    result, io = run_cell(shell, f"%%triton_npu --runs-dir {tmp_path}\n{AUTOTUNED_CELL}")
    assert result.success, shown(io)
    text = shown(io)
    assert "2 kernel compiles; 1 cheap records (autotune configs)" in text
    assert "passes (sweep of 2)" in text and "record only" in text
    assert "config 2/2 (record only)" in text  # progress names the config being compiled
    assert "IR Dump" not in text
    view = result.result
    assert isinstance(view, RunView) and view.run.passes_captured
    assert view.payload()["capture"]["configs"][1]["passes_captured"] is False
    record = tmp_path / "add_tuned-2"
    opened, io = run_cell(shell, f"%ir_load {record}")
    assert opened.success, shown(io)
    assert opened.result.run.passes_captured and "capturing every pass" in shown(io)
    assert any(d.stage == "bishengir" for d in opened.result.timeline.dumps)


def test_a_sweep_interrupted_in_a_cell_leaves_no_compile_running(
    shell: InteractiveShell, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import threading

    from ascend_ir_lab.toolchains.ascend import autotune_offline

    noted = autotune_offline._note_config

    def interrupted(capture: Any, *args: Any) -> None:
        noted(capture, *args)
        if capture._pending:  # Ctrl-C while config 1's bishengir-compile runs beside
            raise KeyboardInterrupt

    def children() -> set[str]:  # this process's children, zombies included
        found = set()
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                if stat.read_text().rsplit(")", 1)[1].split()[1] == str(os.getpid()):
                    found.add(stat.parent.name)
            except (OSError, IndexError):
                continue
        return found

    monkeypatch.setattr(autotune_offline, "_note_config", interrupted)
    threads, before = set(threading.enumerate()), children()
    run_cell(shell, f"%%triton_npu --runs-dir {tmp_path}\n{AUTOTUNED_CELL}")
    assert set(threading.enumerate()) <= threads and children() <= before
    manifest = json.loads((tmp_path / "add_tuned" / "run.json").read_text())
    assert manifest["status"]["code"] == "interrupted"
    assert manifest["stages"][-1]["name"] == "bishengir"
    assert manifest["stages"][-1]["status"] == "interrupted"


def test_configs_names_the_sweep_configs_to_capture(
    shell: InteractiveShell, tmp_path: Path
) -> None:
    result, io = run_cell(
        shell, f"%%triton_npu --configs 1 --runs-dir {tmp_path}\n{AUTOTUNED_CELL}"
    )
    assert result.success, shown(io)
    first = json.loads((tmp_path / "add_tuned" / "run.json").read_text())
    second = json.loads((tmp_path / "add_tuned-2" / "run.json").read_text())
    assert first["extra"]["passes_captured"] is False  # ran, but not asked for
    assert second["extra"]["passes_captured"] is True
    assert second["kernel"]["constexprs"] == {"BLOCK": 1024}


SEVERAL_KERNELS_CELL = """
import torch, triton, triton.language as tl

@triton.jit
def scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr = 128):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)

@triton.jit
def shift(x_ptr, out_ptr, n, num_warps: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + num_warps, mask=mask)

sx, s1, s2 = torch.randn(1000), torch.zeros(1000), torch.zeros(1000)
grid = lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)
scale[grid](sx, s1, 1000, 3)
scale[grid](sx, s1, 1000, 3)
h = shift.warmup(sx, s2, 1000, num_warps=4, BLOCK=256, grid=(1,))
h[(4,)](sx, s2, 1000)
"""


def test_a_cell_returns_every_run_it_made(shell: InteractiveShell, tmp_path: Path) -> None:
    result, io = run_cell(
        shell, f"%%triton_npu --interpret --runs-dir {tmp_path}\n{SEVERAL_KERNELS_CELL}"
    )
    assert result.success, shown(io)
    runs = result.result
    assert [v.name for v in runs] == ["scale", "shift"]  # one Run per kernel, both returned
    assert runs["shift"].manifest["kernel"]["constexprs"] == {"num_warps": 4, "BLOCK": 256}
    assert runs["scale"].manifest["kernel"]["constexprs"]["BLOCK"] == 128
    assert len(runs["scale"].launches) == 2  # the second launch of the same call: no new Run
    ns = shell.user_ns
    assert torch_equal(ns["s1"], ns["sx"] * 3) and torch_equal(ns["s2"], ns["sx"] + 4)
    assert "OfflineKernel" not in shown(io)  # the launch's handle is not shown as a value
    assert "launch of shift[(4,)] skipped" in shown(io)


def test_a_launch_in_a_loop_counts_on_one_line(shell: InteractiveShell, tmp_path: Path) -> None:
    loop = "for i in range(4):\n    scale[grid](sx, s1, 1000, 3)\n"
    cell = SEVERAL_KERNELS_CELL.split("h = shift")[0].replace("scale[grid](sx, s1, 1000, 3)\n", "")
    result, io = run_cell(shell, f"%%triton_npu --interpret --runs-dir {tmp_path}\n{cell}{loop}")
    assert result.success, shown(io)
    notes = [o for o in io.outputs if o.data.get("text/plain", "").startswith("⏭")]
    lines = [o for o in notes if not o.update]  # what a frontend shows as lines
    assert [o.data["text/plain"] for o in lines] == [
        "⏭ no NPU: launch of scale[(8,)] skipped; ran in Triton's CPU interpreter"
        " (TRITON_INTERPRET=1) instead",
        "⏭ no NPU: launch of scale[(8,)] skipped; the same launch left this memory unchanged"
        " before: not interpreted again",
    ]
    # the first launch and the one after it (its output changed its input memory) are
    # interpreted, the last two are not: each line ends counting its launches
    updates = [o.data["text/plain"] for o in notes if o.update]
    assert len(updates) == 2, updates
    assert updates[0].endswith("instead × 2") and updates[1].endswith("again × 2"), updates


def torch_equal(a: Any, b: Any) -> bool:
    return bool((a - b).abs().max().item() < 1e-5)


def test_ir_diff_with_a_rebuild_sets_noise_apart(
    shell: InteractiveShell, matmuls: tuple[Any, Any]
) -> None:
    result, io = run_cell(shell, "%ir_diff fine barrier --rebuild")
    cmp = result.result
    assert cmp.noise is not None and cmp.noise.builds == 2
    first = cmp.first_real
    assert first is not None and (first.a.label, first.b.label) == (
        "hivm-graph-sync-solver", "hivm-inject-sync"
    )  # fmt: skip
    assert "first real divergence: hivm-graph-sync-solver" in shown(io)
    fine, _ = matmuls
    table = fine.sync_check()
    assert (
        "0 definite" in table.title
        and table.rows == []
        or all(r[2] == "possible" for r in table.rows)
    )
