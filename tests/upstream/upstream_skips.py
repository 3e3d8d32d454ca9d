"""Skip reasons for the upstream-Triton, GPU and opt-tool tests (imported by the tests here)."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "tests" / "kernels" / "upstream"
DATA = ROOT / "tests" / "data" / "triton"


def upstream_triton_reason() -> str | None:
    """Why upstream Triton cannot be used here, or None when it can."""
    if importlib.util.find_spec("triton") is None:
        return "upstream triton not installed (extra 'gpu', its own venv: .venv-gpu)"
    if importlib.util.find_spec("triton.backends.ascend") is not None:
        return "`triton` here is triton-ascend; upstream triton tests run in .venv-gpu"
    if importlib.util.find_spec("triton.backends.nvidia") is None:
        return "this triton has no nvidia backend"
    return None


def cuda_device_reason() -> str | None:
    """Why no kernel can be launched here, or None on a CUDA host with torch."""
    reason = upstream_triton_reason()
    if reason:
        return reason
    if importlib.util.find_spec("torch") is None:
        return "torch not installed (the GPU checks compare against torch)"
    import torch

    if not torch.cuda.is_available():
        return "no CUDA device on this host (CI has none; run scripts/gpu_check.py on a GPU)"
    return None


def bishengir_opt_reason() -> str | None:
    """Why bishengir-opt cannot be run here, or None."""
    if shutil.which("bishengir-opt"):
        return None
    if importlib.util.find_spec("ascendnpuir") is None:
        return "bishengir-opt not found: pip install ascendnpu-ir (the Ascend venv .venv)"
    return None


needs_upstream = pytest.mark.skipif(
    upstream_triton_reason() is not None, reason=upstream_triton_reason() or ""
)
needs_cuda = pytest.mark.skipif(cuda_device_reason() is not None, reason=cuda_device_reason() or "")
needs_bishengir_opt = pytest.mark.skipif(
    bishengir_opt_reason() is not None, reason=bishengir_opt_reason() or ""
)
