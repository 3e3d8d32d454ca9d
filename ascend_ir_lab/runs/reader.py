"""The one reader of Run folders: `Run(path)` validates run.json and confines its paths."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.runs.manifest import has_our_format, read_manifest
from ascend_ir_lab.runs.paths import inside, regular_file

__all__ = ["Run", "has_our_format", "read_manifest"]


class Run:
    """One compilation kept as a folder: `.path`, `.manifest` (validated), `.warnings`,
    `.timeline` (read lazily)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.manifest, self.warnings = read_manifest(self.path)
        self._timeline: Any = None

    def __repr__(self) -> str:
        return f"Run({str(self.path)!r}, status={self.status!r})"

    @property
    def name(self) -> str:
        """The Run's name."""
        return str(self.manifest.get("name", self.path.name))

    @property
    def status(self) -> str:
        """The status code (ok, ir-complete-no-binary, compile-error, interrupted)."""
        return str((self.manifest.get("status") or {}).get("code", "interrupted"))

    @property
    def stages(self) -> list[dict[str, Any]]:
        """The stage records, in order."""
        return list(self.manifest.get("stages", []))

    def stage(self, name: str) -> dict[str, Any]:
        """The record of the stage called `name`."""
        for record in self.stages:
            if record.get("name") == name:
                return record
        known = ", ".join(s.get("name", "?") for s in self.stages) or "none"
        raise InputError(f"{self.path}: no stage {name!r} (stages: {known})")

    def log(self, stage: str) -> bytes:
        """Everything the stage's tool printed, as printed (a `.log.zst` decompressed)."""
        from ascend_ir_lab.dumps.builder import read_bytes

        record = self.stage(stage)
        path = inside(self.path, record.get("log")) if record.get("log") else None
        if path is None or not regular_file(path):
            return b""
        return bytes(read_bytes(path))

    @property
    def passes_captured(self) -> bool:
        """False for a cheap record (compiled without per-pass dumps; see `capture`)."""
        return bool((self.manifest.get("extra") or {}).get("passes_captured", True))

    def capture(self, progress: Any = None) -> Run:
        """Recompile this cheap record with every pass printed (same folder): the new Run.

        The kernel is the one this session compiled, else the file the Run names, which is
        imported to compile it (so: only for Runs you trust). A convenience: the work is
        `share.capture.capture_passes`, imported only when this is called."""
        from ascend_ir_lab.share.capture import capture_passes

        return capture_passes(self, progress=progress)

    def file(self, relative: str) -> Path:
        """A path inside the Run folder (InputError for one that would leave it)."""
        path = inside(self.path, relative)
        if path is None:
            raise InputError(f"{self.path}: {relative!r} is not a path inside the Run folder")
        return path

    @property
    def timeline(self) -> Any:
        """The Run's Timeline (all stages joined in order), read on first use."""
        if self._timeline is None:
            from ascend_ir_lab.dumps.sources import open_timeline

            self._timeline = open_timeline(str(self.path))
        return self._timeline
