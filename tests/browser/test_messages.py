"""Messages where they belong, on the offline page of real Runs. bishengir's normal offline
end (every pass printed, then no hivmc without CANN) is a muted line, its messages on
bishengir's passes, never on an adapter pass; a real failure (ub overflow in
hivm-plan-memory) gets the failure-first header: the stage, its errors, the pass to look at."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.export.files import payload_of, save_html
from tests.browser.conftest import KERNELS, open_offline

pytestmark = pytest.mark.browser


def test_messages_sit_on_their_stage_and_failure_comes_first(
    browser: Any, dot_run: Any, tmp_path: Path
) -> None:
    payload = payload_of(dot_run)
    stages = [s["name"] for s in payload["stages"]]
    adapter = [d["i"] for d in payload["dumps"] if stages[d["stage"]] == "adapter"]
    bishengir = [d["i"] for d in payload["dumps"] if stages[d["stage"]] == "bishengir"]
    page, fetched = open_offline(browser, save_html(dot_run, tmp_path / "dot.html"))

    def messages_at(i: int) -> list[str]:
        page.keyboard.press("g")
        page.keyboard.type(f"#{i}")
        page.keyboard.press("Enter")
        return page.locator(".air-passinfo .air-msg").all_inner_texts()

    assert not any("hivmc" in m for m in messages_at(adapter[-1]))  # the pass before bishengir
    assert any("Cannot find hivmc" in m for m in messages_at(bishengir[0]))  # printed at its start
    assert page.locator(".air-failures").count() == 0  # not a failure of the passes
    note = page.locator(".air-stage-notes")
    assert note.inner_text() == (
        f"bishengir: binary step skipped: hivmc not found (needs CANN); "
        f"all {len(bishengir)} passes captured"
    )
    assert note.evaluate("e => getComputedStyle(e).color") != "rgb(207, 34, 46)"  # muted
    stage = page.locator(".air-pl-stage[data-stage='2']")
    assert "no binary (needs CANN)" in stage.inner_text()
    assert "air-pl-stage-failed" not in (stage.get_attribute("class") or "")
    page.locator(f".air-pl-row[data-dump='{bishengir[-1]}']").click()
    assert page.inner_text(".air-pos").startswith(f"#{bishengir[-1]} ")
    assert any(
        "Failed to run BiShengIR pipeline" in m for m in page.locator(".air-msg").all_inner_texts()
    )
    row = page.locator(f".air-pl-row[data-dump='{bishengir[0]}']")
    assert "air-pl-msgs" in (row.get_attribute("class") or "")
    assert fetched == []
    page.close()


@pytest.fixture(scope="module")
def ub_overflow_run(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """tests/kernels/matmul.py with 64x64 tiles, compiled by the real tools: bishengir's
    hivm-plan-memory fails with "ub overflow" (its failed-pass dumps are printed)."""
    from ascend_ir_lab.toolchains.common.tools import triton_ascend_available

    if not triton_ascend_available():
        pytest.skip("triton-ascend is not importable: pip install -e '.[ascend]'")
    from ascend_ir_lab.toolchains.ascend.compile import compile_kernel
    from tests.kernels import matmul

    c = matmul.COMPILE_UB_OVERFLOW
    out = tmp_path_factory.mktemp("ub") / "run"
    return compile_kernel(f"{KERNELS / 'matmul.py'}::{c['kernel']}", signature=c["signature"],
                          constexprs=c["constexprs"], out=out, check=False)  # fmt: skip


def test_a_real_failure_keeps_the_failure_first_header(
    browser: Any, ub_overflow_run: Any, tmp_path: Path
) -> None:
    assert ub_overflow_run.status == "compile-error"
    payload = payload_of(ub_overflow_run)
    failed = [d["i"] for d in payload["dumps"] if d["phase"] == "failed"]
    assert failed
    page, fetched = open_offline(browser, save_html(ub_overflow_run, tmp_path / "ub.html"))
    header = page.locator(".air-failures")
    what = header.locator(".air-failure-what").inner_text()
    assert what == "✗ stage bishengir failed (exit code 1)"
    assert "ub overflow" in header.inner_text()
    assert "hivmc" not in header.inner_text()  # the offline baseline is no part of the failure
    assert page.locator(".air-stage-notes").count() == 0
    header.locator("button", has_text=f"failed pass #{failed[0]}").click()
    assert page.inner_text(".air-pos").startswith(f"#{failed[0]} ")
    stage = page.locator(".air-pl-stage[data-stage='2']")
    assert "✗ failed" in stage.inner_text()
    assert "air-pl-stage-failed" in (stage.get_attribute("class") or "")
    strip_stage = page.locator(".air-strip .air-stage[data-stage='2'] .air-stage-status")
    assert strip_stage.inner_text() == "✗ failed"
    assert fetched == []
    page.close()
