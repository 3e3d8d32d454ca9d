"""Facts about this host for a bug report: NPU model (`npu-smi info`), CANN and tool versions.

Kept in toolchains/ because it starts a process and reads the environment.
"""

from __future__ import annotations

import os
import re
import shutil
from typing import Any

from ascend_ir_lab.toolchains.common.process import run_query

__all__ = ["host_facts", "npu_smi_model"]

# `npu-smi info` prints a table whose device rows read "| 0     910B3    | OK  | ...".
_MODEL = re.compile(r"^\|\s*\d+\s+([A-Za-z0-9][\w.-]*)\s+\|", re.MULTILINE)


def npu_smi_model(timeout: float = 20.0) -> str | None:
    """The NPU model named by `npu-smi info` (None when npu-smi is absent or says nothing)."""
    tool = shutil.which("npu-smi")
    if not tool:
        return None
    out = run_query([tool, "info"], timeout=timeout, env=os.environ)  # own group, killed whole
    if out is None:
        return None
    models = sorted(set(_MODEL.findall(out.stdout or "")))
    return ", ".join(models) if models else None


def host_facts() -> dict[str, Any]:
    """Versions of the Ascend toolchain here now, the CANN version and the NPU model."""
    from ascend_ir_lab.toolchains.common.tools import versions

    return {"versions": versions(), "npu_model": npu_smi_model()}
