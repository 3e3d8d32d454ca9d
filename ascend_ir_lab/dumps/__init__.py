"""Read compiler output into a Timeline, losslessly (`open_timeline` is the one entry point)."""

from ascend_ir_lab.dumps.headers import Header, parse_header
from ascend_ir_lab.dumps.model import Dump, LogInfo, Message, Segment
from ascend_ir_lab.dumps.reader import LogIndex, index_log
from ascend_ir_lab.dumps.sources import open_timeline, read_log
from ascend_ir_lab.dumps.timeline import Timeline

__all__ = [
    "Dump",
    "Header",
    "LogIndex",
    "LogInfo",
    "Message",
    "Segment",
    "Timeline",
    "index_log",
    "open_timeline",
    "parse_header",
    "read_log",
]
