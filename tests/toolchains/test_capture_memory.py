"""What a capture keeps of a launch that failed: its message, not the launch's tensors.

A long benchmark script makes and drops large tensors case after case; a compile or an
interpreter run that fails keeps its error in the capture for the report at the end. The
error's traceback would keep every frame it ran through alive, and with them the arguments
of the launch: each failed case's tensors, for as long as the script runs."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

from ascend_ir_lab.toolchains.ascend.launch import intercept_launches
from tests.toolchains.conftest import needs_ascend

pytestmark = [pytest.mark.ascend, needs_ascend]


@triton.jit
def misspelt(x_ptr, out_ptr, n):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, tl.sigmod(x), mask=offs < n)  # tl has no `sigmod`


@triton.jit
def copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def _case(kernel: str, raised: list[str]) -> weakref.ref[torch.Tensor]:
    """One case of a script: its tensors made, launched, dropped (a launch that raises,
    caught and dropped as a suite's `pytest.raises` drops it)."""
    x = torch.randn(64)
    out = torch.empty_like(x)
    try:
        if kernel == "misspelt":
            misspelt[(1,)](x, out, 64)
        else:
            copy[(1,)](x, out, 64, BLOCK=64, no_such_option=1)  # triton refuses the keyword
    except Exception as exc:  # noqa: BLE001 - what the launch raised, as triton's would
        raised.append(f"{type(exc).__name__}: {exc}")
    return weakref.ref(x)


def test_failed_launches_keep_their_message_not_their_tensors(tmp_path: Path) -> None:
    raised: list[str] = []
    with intercept_launches(interpret=True, runs_dir=tmp_path) as cap:
        refused, failed = _case("copy", raised), _case("misspelt", raised)
        again = _case("misspelt", raised)  # the kept error raised again, for another case
        gc.collect()
        assert refused() is None and failed() is None and again() is None
    said = [str(e) for e in cap.errors]
    assert f"a launch option of the installed triton ({triton.__version__})" in said[0], said
    # triton's frontend refuses `tl.sigmod`: raised from each launch, as triton's launch does
    assert len([r for r in raised if "sigmod" in r]) == 2, raised
    kept = [ln.error for ln in cap.launches if ln.kernel == "misspelt"]
    assert len(kept) == 2 and all(e is not None and e.__traceback__ is None for e in kept)
    assert all(e.frontend_error.__traceback__ is None for e in kept)  # type: ignore[union-attr]
