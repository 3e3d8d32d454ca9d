"""One answer to "which toolchain compiles for this target"."""

from __future__ import annotations

import pytest

from ascend_ir_lab.toolchains.common.targets import toolchain_for
from ascend_ir_lab.toolchains.triton.environment import is_upstream_target


@pytest.mark.parametrize(
    ("target", "toolchain"),
    [
        ("cuda:90", "triton"),
        ("cuda:80", "triton"),
        ("hip:gfx942", "triton"),
        ("Ascend910B3", "ascend"),
        ("Ascend910_9391", "ascend"),
        (None, "ascend"),
        ("", "ascend"),
        ("cuda", "ascend"),  # no arch: not a target upstream Triton takes either
        ("npu:0", "ascend"),
    ],
)
def test_toolchain_for(target: str | None, toolchain: str) -> None:
    assert toolchain_for(target) == toolchain
    assert is_upstream_target(target) == (toolchain == "triton")
