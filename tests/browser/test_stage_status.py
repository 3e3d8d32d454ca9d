"""Each stage's status where the stage is listed: real Runs of the real tools, on the offline
page. A bishengir stopped by its time limit is a failure (header first, its badge in the pass
list and the strip); a cheap record's planned bishengir step is listed as skipped, no failure."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.export.files import payload_of, save_html
from tests.browser.conftest import KERNELS, open_offline

pytestmark = pytest.mark.browser


def _compile(module: str, out: Path, **options: Any) -> Any:
    from ascend_ir_lab.toolchains.common.tools import triton_ascend_available

    if not triton_ascend_available():
        pytest.skip("triton-ascend is not importable: pip install -e '.[ascend]'")
    import importlib

    from ascend_ir_lab.toolchains.ascend.compile import compile_kernel

    c = importlib.import_module(f"tests.kernels.{module}").COMPILE
    return compile_kernel(f"{KERNELS / (module + '.py')}::{c['kernel']}", signature=c["signature"],
                          constexprs=c["constexprs"], out=out, check=False, **options)  # fmt: skip


def _stage_badges(page: Any, where: str) -> dict[str, str]:
    """Stage name -> the status badge's text (empty: none) as the list or the strip shows it."""
    out = {}
    for row in page.locator(where).all():
        name = row.locator(".air-pl-stagename, .air-stage-name").inner_text()
        badge = row.locator(".air-stage-status")
        out[name] = badge.inner_text() if badge.count() else ""
    return out


def test_a_timed_out_stage_says_so_everywhere_it_is_listed(browser: Any, tmp_path: Path) -> None:
    # printing every IR before and after each pass, with locations, keeps the real bishengir
    # busy for about 2 s on matmul (0.8 s without), while its adapter stage takes 0.07 s
    slow = ["--mlir-print-ir-before-all", "--mlir-print-debuginfo"]
    run = _compile("matmul", tmp_path / "run", timeout=1, bishengir_flags=slow)
    payload = payload_of(run)
    assert [s.get("status") for s in payload["stages"]] == [None, None, "timed-out"]
    last = max(d["i"] for d in payload["dumps"] if d["stage"] == 2)
    page, fetched = open_offline(browser, save_html(run, tmp_path / "t.html"))
    page.wait_for_selector(".air-pl-stage")
    want = {"ttir": "", "adapter": "", "bishengir": "⏱ timed out"}
    assert _stage_badges(page, ".air-pl-stage") == want
    assert _stage_badges(page, ".air-strip .air-stage") == want
    header = page.locator(".air-failures .air-failure-what")
    assert header.inner_text() == "✗ stage bishengir timed out"
    page.locator(".air-failures button", has_text=f"last pass #{last}").click()
    assert page.inner_text(".air-pos").startswith(f"#{last} ")
    assert fetched == []
    page.close()


# a compile in a process of its own, as a person runs it from a terminal (Ctrl-C sends SIGINT)
_COMPILE = """
import json, sys
from ascend_ir_lab.toolchains.ascend.compile import RunInterrupted, compile_kernel
spec, sig, consts, out, flags = json.loads(sys.argv[1])
try:
    compile_kernel(spec, signature=sig, constexprs=consts, out=out, check=False,
                   bishengir_flags=flags)
except RunInterrupted as e:
    print(json.dumps({"run": str(e.run.path)}))
    sys.exit(130)
"""


def _interrupted_in_bishengir(out: Path) -> Path:
    """The Run of a real matmul compile stopped by Ctrl-C while the real bishengir prints."""
    from ascend_ir_lab.toolchains.common.tools import triton_ascend_available

    if not triton_ascend_available():
        pytest.skip("triton-ascend is not importable: pip install -e '.[ascend]'")
    from tests.kernels import matmul

    c = matmul.COMPILE
    spec = f"{KERNELS / 'matmul.py'}::{c['kernel']}"
    slow = ["--mlir-print-ir-before-all", "--mlir-print-debuginfo"]  # busy for seconds
    args = json.dumps([spec, c["signature"], c["constexprs"], str(out), slow])
    proc = subprocess.Popen([sys.executable, "-c", _COMPILE, args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.monotonic() + 300
    while proc.poll() is None and time.monotonic() < deadline:
        logs = list(out.rglob("*-bishengir.log"))
        if logs and logs[0].stat().st_size > 0:  # bishengir has started printing
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the compile ended before bishengir printed"
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr[-3000:]
    return Path(json.loads(stdout.strip().splitlines()[-1])["run"])


def test_an_interrupted_stage_says_so_everywhere_it_is_listed(browser: Any, tmp_path: Path) -> None:
    run_path = _interrupted_in_bishengir(tmp_path / "run")
    payload = payload_of(run_path)
    assert [s.get("status") for s in payload["stages"]] == [None, None, "interrupted"]
    page, fetched = open_offline(browser, save_html(run_path, tmp_path / "i.html"))
    page.wait_for_selector(".air-pl-stage")
    want = {"ttir": "", "adapter": "", "bishengir": "■ interrupted"}
    assert _stage_badges(page, ".air-pl-stage") == want
    assert _stage_badges(page, ".air-strip .air-stage") == want
    assert page.locator(".air-failures .air-failure-what").inner_text() == (
        "✗ stage bishengir interrupted"
    )
    assert fetched == []
    page.close()


def test_a_cheap_record_lists_its_planned_stage_as_skipped(browser: Any, tmp_path: Path) -> None:
    run = _compile("vadd", tmp_path / "run", dumps=False)
    payload = payload_of(run)
    assert payload["stages"][-1] == {
        "name": "bishengir", "command": payload["stages"][-1]["command"], "returncode": None,
        "status": "skipped",
    }  # fmt: skip
    page, fetched = open_offline(browser, save_html(run, tmp_path / "c.html"))
    page.wait_for_selector(".air-pl-stage")
    list_badges = _stage_badges(page, ".air-pl-stage")
    assert list_badges["bishengir"] == "– skipped (not run)"
    assert _stage_badges(page, ".air-strip .air-stage")["bishengir"] == "– skipped (not run)"
    assert "no passes" in page.locator(".air-pl-stage-empty").inner_text()
    assert page.locator(".air-failures").count() == 0
    assert fetched == []
    page.close()
