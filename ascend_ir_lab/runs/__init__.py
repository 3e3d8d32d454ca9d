"""The Run folder (`ascend-ir-lab/run@1`, docs/formats.md): its format, the typed manifest
and stage records, the one reader (`Run`, which validates) and the one writer (`RunWriter`),
and path confinement. Every room may use it; a Run from someone else is untrusted input."""

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
from ascend_ir_lab.runs.paths import inside, is_inside, refuse_special, regular_file, safe_arcname
from ascend_ir_lab.runs.reader import Run, has_our_format, read_manifest
from ascend_ir_lab.runs.validate import ManifestError, is_cache_entry
from ascend_ir_lab.runs.writer import FolderLock, RunWriter, prepare_folder, write_manifest

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
    "has_our_format",
    "inside",
    "is_cache_entry",
    "is_inside",
    "prepare_folder",
    "read_manifest",
    "refuse_special",
    "regular_file",
    "safe_arcname",
    "safe_name",
    "status_record",
    "write_manifest",
]
