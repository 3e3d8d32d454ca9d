"""Orchestration that needs processes and files together: the bug report.

`make_report` gathers what only a running toolchain can tell (the pass reproducer run again,
this host's NPU and tool versions) and hands plain data to `export/`, which writes the files.
"""

from ascend_ir_lab.share.report import Report, make_report

__all__ = ["Report", "make_report"]
