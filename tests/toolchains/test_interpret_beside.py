"""Under the virtual NPU with the interpreter, a launch whose specialisation is new runs in
Triton's CPU interpreter while its compile's tools (triton-adapter-opt, bishengir-compile)
run, not after them: the in-process ttir stage first, then both at once (real triton-ascend,
real compilers, real CPU interpreter, a script in the NPU-host style)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
import triton
import triton.language as tl

from ascend_ir_lab.toolchains.ascend import launch as ascend_launch
from ascend_ir_lab.toolchains.ascend.launch import intercept_launches
from ascend_ir_lab.toolchains.ascend.virtual_npu import virtual_npu
from tests.toolchains.conftest import needs_ascend

pytestmark = [
    pytest.mark.ascend,
    needs_ascend,
    pytest.mark.filterwarnings("ignore:.*ccec:UserWarning"),
]


@triton.jit
def add_rows(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def _stages(runs_dir: Path) -> list[list[str]]:
    found = []
    for manifest in sorted(runs_dir.glob("*/run.json")):
        found.append([s["name"] for s in json.loads(manifest.read_text())["stages"]])
    return found


def _spied(monkeypatch: pytest.MonkeyPatch, runs_dir: Path) -> list[dict[str, Any]]:
    """Watch each interpreted launch as it starts (the real interpreter still runs it)."""
    seen: list[dict[str, Any]] = []
    real = ascend_launch.interpret_launch

    def spy(*args: Any, **kwargs: Any) -> None:
        threads = [t.name for t in threading.enumerate()]
        seen.append({"compiling": "ascend-ir-lab-compile" in threads,
                     "stages": _stages(runs_dir)})  # fmt: skip
        real(*args, **kwargs)

    monkeypatch.setattr(ascend_launch, "interpret_launch", spy)
    return seen


def test_a_new_launch_is_interpreted_while_its_compile_tools_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch

    seen = _spied(monkeypatch, tmp_path)
    with virtual_npu(), intercept_launches(interpret=True, runs_dir=tmp_path) as cap:
        x = torch.randn(1000, device="npu")
        y = torch.randn(1000, device="npu")
        out = torch.empty_like(x)
        add_rows[(triton.cdiv(1000, 256),)](x, y, out, 1000, BLOCK=256)
        torch.npu.synchronize()
        assert torch.equal(out.cpu(), (x + y).cpu())
    # the ttir stage was done, the tools were still running
    assert seen == [{"compiling": True, "stages": [["ttir"]]}]
    (launch,) = cap.launches
    assert launch.interpreted and launch.interpret_error is None
    assert launch.note.startswith("no NPU: launch of add_rows[(4,)] skipped; ran in Triton's")
    (run,) = cap.runs
    assert [s["name"] for s in run.stages] == ["ttir", "adapter", "bishengir"]
    assert run.status == "ir-complete-no-binary" and run.passes_captured


def test_a_launch_compiled_before_is_interpreted_on_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch

    seen = _spied(monkeypatch, tmp_path)
    with virtual_npu(), intercept_launches(interpret=True, runs_dir=tmp_path) as cap:
        x = torch.randn(512, device="npu")
        y = torch.randn(512, device="npu")
        first, second = torch.empty_like(x), torch.empty_like(x)
        add_rows[(2,)](x, y, first, 512, BLOCK=256)
        add_rows[(2,)](y, y, second, 512, BLOCK=256)  # the same specialisation: no compile
        assert torch.equal(first, x + y) and torch.equal(second, y + y)
    assert [s["compiling"] for s in seen] == [True, False]
    assert len(cap.runs) == 1 and all(ln.interpreted for ln in cap.launches)
    assert all(ln.note.endswith("(TRITON_INTERPRET=1) instead") for ln in cap.launches)
