"""The Run folder (`ascend-ir-lab/run@1`, docs/formats.md): its format, the typed manifest
and stage records, the one reader (`Run`, which validates) and the one writer (`RunWriter`),
and path confinement. Every room may use it; a Run from someone else is untrusted input.

A name is imported from its module when first used, so a command that only confines paths
does not pay for the reader, the validator and the writer at start-up."""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from typing import Any

    from ascend_ir_lab.runs.format import (
        FORMAT,
        MANIFEST,
        STAGE_STATUS,
        STATUS_TEXT,
        KernelRecord,
        Manifest,
        StageRecord,
        StatusRecord,
        safe_name,
        status_record,
    )
    from ascend_ir_lab.runs.outputs import check_output, output_file, write_output
    from ascend_ir_lab.runs.paths import (
        inside,
        is_inside,
        not_own_file,
        refuse_special,
        regular_file,
        run_file,
        safe_arcname,
    )
    from ascend_ir_lab.runs.reader import Run, has_our_format, read_manifest
    from ascend_ir_lab.runs.validate import ManifestError, is_cache_entry
    from ascend_ir_lab.runs.writer import FolderLock, RunWriter, prepare_folder, write_manifest

_HOME = {
    "FORMAT": "ascend_ir_lab.runs.format",
    "MANIFEST": "ascend_ir_lab.runs.format",
    "STAGE_STATUS": "ascend_ir_lab.runs.format",
    "STATUS_TEXT": "ascend_ir_lab.runs.format",
    "KernelRecord": "ascend_ir_lab.runs.format",
    "Manifest": "ascend_ir_lab.runs.format",
    "StageRecord": "ascend_ir_lab.runs.format",
    "StatusRecord": "ascend_ir_lab.runs.format",
    "safe_name": "ascend_ir_lab.runs.format",
    "status_record": "ascend_ir_lab.runs.format",
    "check_output": "ascend_ir_lab.runs.outputs",
    "output_file": "ascend_ir_lab.runs.outputs",
    "write_output": "ascend_ir_lab.runs.outputs",
    "inside": "ascend_ir_lab.runs.paths",
    "is_inside": "ascend_ir_lab.runs.paths",
    "refuse_special": "ascend_ir_lab.runs.paths",
    "not_own_file": "ascend_ir_lab.runs.paths",
    "run_file": "ascend_ir_lab.runs.paths",
    "regular_file": "ascend_ir_lab.runs.paths",
    "safe_arcname": "ascend_ir_lab.runs.paths",
    "Run": "ascend_ir_lab.runs.reader",
    "has_our_format": "ascend_ir_lab.runs.reader",
    "read_manifest": "ascend_ir_lab.runs.reader",
    "ManifestError": "ascend_ir_lab.runs.validate",
    "is_cache_entry": "ascend_ir_lab.runs.validate",
    "FolderLock": "ascend_ir_lab.runs.writer",
    "RunWriter": "ascend_ir_lab.runs.writer",
    "prepare_folder": "ascend_ir_lab.runs.writer",
    "write_manifest": "ascend_ir_lab.runs.writer",
}


def __getattr__(name: str) -> Any:
    """The exported `name`, imported from its module on first use."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value


__all__ = [
    "FORMAT",
    "MANIFEST",
    "STAGE_STATUS",
    "STATUS_TEXT",
    "FolderLock",
    "KernelRecord",
    "Manifest",
    "ManifestError",
    "Run",
    "RunWriter",
    "StageRecord",
    "StatusRecord",
    "check_output",
    "has_our_format",
    "inside",
    "is_cache_entry",
    "is_inside",
    "output_file",
    "prepare_folder",
    "read_manifest",
    "not_own_file",
    "refuse_special",
    "regular_file",
    "run_file",
    "safe_arcname",
    "safe_name",
    "status_record",
    "write_manifest",
    "write_output",
]
