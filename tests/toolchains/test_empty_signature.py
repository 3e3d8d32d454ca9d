"""A kernel of no parameters, launched as test suites launch it, makes a complete Run and
runs in the CPU interpreter (real triton-ascend, real compilers)."""

from __future__ import annotations

from pathlib import Path

import pytest
import triton
import triton.language as tl

from ascend_ir_lab.toolchains.ascend.launch import intercept_launches
from ascend_ir_lab.toolchains.ascend.virtual_npu import virtual_npu
from tests.toolchains.conftest import needs_ascend

pytestmark = [
    pytest.mark.ascend,
    needs_ascend,
    pytest.mark.filterwarnings("ignore:.*ccec:UserWarning"),
]


@triton.jit
def nothing_to_do():
    pid = tl.program_id(0)
    tl.static_assert(pid.dtype == tl.int32)


def test_a_kernel_without_parameters_makes_a_run(tmp_path: Path) -> None:
    with virtual_npu(), intercept_launches(interpret=True, runs_dir=tmp_path) as cap:
        nothing_to_do[(1,)]()
    (launch,) = cap.launches
    assert launch.error is None and launch.interpreted, launch.note
    (run,) = cap.runs
    assert run.manifest["status"]["code"] == "ir-complete-no-binary"
    assert [s["name"] for s in run.stages] == ["ttir", "adapter", "bishengir"]
    assert run.manifest["kernel"]["signature"] == {}
