"""One compact payload of a Timeline for every front end, and the files made from it."""

from ascend_ir_lab.export.payload import FORMAT, MIME_TYPE, build_payload, validate_payload

__all__ = ["FORMAT", "MIME_TYPE", "build_payload", "validate_payload"]
