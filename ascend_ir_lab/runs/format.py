"""The Run folder format `ascend-ir-lab/run@1` (docs/formats.md): names, records, statuses."""

from __future__ import annotations

import re
from typing import Any, TypedDict

FORMAT = "ascend-ir-lab/run@1"
MANIFEST = "run.json"
KEY_ORDER = (
    "format",
    "name",
    "created",
    "toolchain",
    "target",
    "kernel",
    "status",
    "env",
    "versions",
    "stages",
    "extra",
)

STATUS_TEXT = {
    "ok": "binary produced",
    "ir-complete-no-binary": "IR complete, no binary (hivmc ships with CANN)",
    "compile-error": "a tool failed",
    "interrupted": "the compile did not finish",
}
# How one stage ended when its tool did not finish on its own (stages[].status).
STAGE_STATUS = ("timed-out", "interrupted")


class KernelRecord(TypedDict, total=False):
    """`kernel`: what was compiled and where its source is kept."""

    name: str
    source: str  # a file inside the Run folder
    file: str  # the file name the IR's locations carry
    first_line: int
    signature: dict[str, str]
    constexprs: dict[str, Any]


class StatusRecord(TypedDict):
    """`status`: one code of STATUS_TEXT and its text."""

    code: str
    text: str


class StageRecord(TypedDict, total=False):
    """`stages[]`: one tool invocation, its log and output (paths inside the Run folder)."""

    name: str
    log: str | None
    artifact: str | None
    command: list[str]
    returncode: int | None
    seconds: float | None
    timings: dict[str, float]
    status: str  # one of STAGE_STATUS, only when the tool was stopped


class Manifest(TypedDict, total=False):
    """The whole `run.json`."""

    format: str
    name: str
    created: str | None
    toolchain: str | None
    target: str | None
    kernel: KernelRecord | None
    status: StatusRecord
    env: dict[str, str]
    versions: dict[str, str | None]
    stages: list[StageRecord]
    extra: dict[str, Any]


def status_record(code: str, text: str | None = None) -> dict[str, str]:
    """A status object with the standard text for `code` unless `text` is given."""
    if code not in STATUS_TEXT:
        raise ValueError(f"unknown status code {code!r}; expected one of {sorted(STATUS_TEXT)}")
    return {"code": code, "text": text or STATUS_TEXT[code]}


def safe_name(name: str) -> str:
    """A folder-safe form of a Run name: one path component, no dots at either end."""
    cleaned = re.sub(r"[^A-Za-z0-9._+-]+", "_", str(name)).strip("._")
    return cleaned[:120] or "run"
