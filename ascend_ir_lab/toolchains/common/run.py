"""Run folders for the toolchains: the format lives in `ascend_ir_lab.runs`; this module adds
where new Runs go by default ($ASCEND_IR_LAB_RUNS, read here because only toolchains read the
environment) and keeps the names the toolchains have always imported."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ascend_ir_lab import runs
from ascend_ir_lab.dumps.zstd_log import compress_log
from ascend_ir_lab.runs import (
    FORMAT,
    MANIFEST,
    STATUS_TEXT,
    Run,
    safe_name,
    status_record,
    write_manifest,
)

__all__ = [
    "FORMAT",
    "MANIFEST",
    "RUNS_DIR_ENV",
    "STATUS_TEXT",
    "Run",
    "RunWriter",
    "default_runs_dir",
    "prepare_folder",
    "safe_name",
    "status_record",
    "update_extra",
    "write_manifest",
]

RUNS_DIR_ENV = "ASCEND_IR_LAB_RUNS"
# the stage files kept compressed once a Run is finished (binaries and metadata stay plain)
IR_SUFFIXES = (".ttir", ".ttadapter", ".bcmlir", ".mlir", ".ttgir", ".llir", ".ll", ".ptx",
               ".amdgcn", ".source")  # fmt: skip


def pack_level(size: int) -> int:
    """The zstd level a Run file of `size` bytes is kept at: hard for small files (level
    19 takes milliseconds there), 9 up to 32 MB (about 30 MB/s), 3 above (log speed)."""
    return 19 if size <= 64 << 10 else 9 if size <= 32 << 20 else 3


def default_runs_dir() -> Path:
    """Where Runs go when no folder is given: $ASCEND_IR_LAB_RUNS or ./.ascend_ir_lab/runs."""
    return Path(os.environ.get(RUNS_DIR_ENV) or Path.cwd() / ".ascend_ir_lab" / "runs")


def prepare_folder(name: str, out: str | os.PathLike[str] | None) -> Path:
    """An empty folder for a new Run (see RunWriter.create)."""
    return runs.prepare_folder(name, out, None if out is not None else default_runs_dir())


class RunWriter(runs.RunWriter):
    """runs.RunWriter whose Runs go to the default runs folder when no `out` is given, and
    whose stage logs are kept compressed."""

    compress = True  # stage logs kept as .log.zst (False: plain .log, as older Runs)

    def add_stage(self, record: Mapping[str, Any]) -> None:
        """Append a finished stage record and save; its log is kept as seekable zstd
        (`.log.zst`, see dumps/zstd_log.py), with its plain size as `log_bytes`."""
        entry = dict(record)
        log = self.path / entry["log"] if isinstance(entry.get("log"), str) else None
        if log is not None and log.suffix == ".log" and log.is_file() and self.compress:
            packed = log.with_name(log.name + ".zst")
            entry["log_bytes"] = compress_log(log, packed, pack_level(log.stat().st_size))
            log.unlink()
            entry["log"] = self.relative(packed)
        super().add_stage(entry)

    def finish(self, code: str, text: str | None = None) -> Run:
        """Set the final status (see runs.RunWriter.finish); a cheap record (no per-pass
        dumps: its IR files are all it holds, and a sweep makes many) keeps its IR files
        compressed, `artifacts/X.ttir.zst`, the manifest naming them so. A Run with its
        passes keeps them plain: its logs are most of its size, and tools read its files."""
        if self.compress and not self.manifest["extra"].get("passes_captured", True):
            self._compress_artifacts()
        return super().finish(code, text)

    def _compress_artifacts(self) -> None:
        folder = self.path / "artifacts"
        renamed: dict[str, str] = {}
        for path in sorted(folder.iterdir()) if folder.is_dir() else ():
            if path.suffix not in IR_SUFFIXES or path.is_symlink() or not path.is_file():
                continue
            packed = path.with_name(path.name + ".zst")
            compress_log(path, packed, pack_level(path.stat().st_size))
            path.unlink()
            renamed[self.relative(path) or ""] = self.relative(packed) or ""
        if renamed:
            _rename_in(self.manifest, renamed)

    @classmethod
    def create(
        cls,
        name: str,
        manifest: Mapping[str, Any],
        out: str | os.PathLike[str] | None = None,
        *,
        root: str | os.PathLike[str] | None = None,
    ) -> RunWriter:
        """Start a Run: in `out` exactly (an old Run of this format there is replaced), or a
        new folder `<default runs dir>/<name>[-N]`."""
        if out is None and root is None:
            root = default_runs_dir()
        writer = super().create(name, manifest, out, root=root)
        assert isinstance(writer, RunWriter)
        return writer


def _rename_in(manifest: dict[str, Any], renamed: Mapping[str, str]) -> None:
    """Point every record of `manifest` that names a file of `renamed` at its new name."""
    for stage in manifest.get("stages", []):
        if stage.get("artifact") in renamed:
            stage["artifact"] = renamed[stage["artifact"]]
    extra = manifest.get("extra") or {}
    inputs = extra.get("stage_inputs")
    if isinstance(inputs, dict):
        extra["stage_inputs"] = {k: renamed.get(v, v) for k, v in inputs.items()}
    if isinstance(extra.get("triton_files"), list):
        extra["triton_files"] = [renamed.get(v, v) for v in extra["triton_files"]]
    for planned in extra.get("planned_stages") or []:
        if planned.get("input_from") in renamed:
            planned["input_from"] = renamed[planned["input_from"]]


def update_extra(run: Run, fields: Mapping[str, Any]) -> Run:
    """Merge `fields` into the Run's `extra` (written atomically)."""
    manifest = dict(run.manifest)
    manifest["extra"] = {**(manifest.get("extra") or {}), **fields}
    write_manifest(run.path, manifest)
    return Run(run.path)
