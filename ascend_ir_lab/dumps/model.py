"""The nouns of the engine: Dump and Message, as offsets into a log, never copies of it."""

from __future__ import annotations

from ascend_ir_lab.record import Record

PHASES = ("start", "before", "after", "failed", "artifact")


class Dump(Record):
    """One `IR Dump Before/After` block (or one tree-dir file, or one stage artifact).

    Offsets point into the log the Dump was read from (`Timeline.log_of(dump)`); the IR text
    is only sliced out when asked for.
    """

    __slots__ = (
        "index", "stage", "pass_name", "arg", "options", "phase", "scope", "family", "log_id",
        "start", "body_start", "body_end", "end", "truncated", "holds",
    )  # fmt: skip

    def __init__(
        self, index: int, stage: str, pass_name: str, arg: str, options: str, phase: str,
        scope: str, family: str, log_id: int, start: int, body_start: int, body_end: int,
        end: int, truncated: bool = False, holds: str = "",
    ) -> None:  # fmt: skip
        self.index = index
        self.stage = stage
        self.pass_name = pass_name
        self.arg = arg
        self.options = options
        self.phase = phase
        self.scope = scope
        self.family = family
        self.log_id = log_id
        self.start = start  # first byte of the header line (== body_start without a header)
        self.body_start = body_start
        self.body_end = body_end  # one past the last byte of IR (its final newline included)
        self.end = end  # one past the segment: IR plus the blank lines that follow it
        self.truncated = truncated
        # The op the IR text holds: differs from `scope` under module-scope printing, where
        # a function pass's Dump shows the whole module. Predecessors are found by this.
        self.holds = holds

    @property
    def span(self) -> tuple[int, int]:
        """Byte span of the whole segment (header, IR, trailing blank lines) in its log."""
        return (self.start, self.end)

    @property
    def label(self) -> str:
        """`arg` when the pass has one (what a pipeline spells), else the pass name."""
        return self.arg or self.pass_name


class Message(Record):
    """A non-IR line of a log (a diagnostic, a tool's own output), kept in order."""

    __slots__ = ("stage", "after", "level", "text", "log_id", "start", "end", "pass_name", "banner")

    def __init__(
        self, stage: str, after: int, level: str, text: str, log_id: int, start: int, end: int,
        pass_name: str = "", banner: str = "",
    ) -> None:  # fmt: skip
        self.stage = stage
        self.after = after  # index of the Dump this message follows (-1: before the first)
        self.level = level  # "error", "warning", "note", "info" or "text"
        self.text = text
        self.log_id = log_id
        self.start = start
        self.end = end
        # A banner names a pass that printed no IR: its pass and what the banner says
        # ("unchanged" for LLVM's `omitted because no change`, "filtered", "ignored",
        # "invalidated", "deleted"); both empty for any other line.
        self.pass_name = pass_name
        self.banner = banner


class Segment(Record):
    """A byte range of a log; a log's segments, in order, reassemble it byte for byte."""

    __slots__ = ("kind", "start", "end", "dump")

    def __init__(self, kind: str, start: int, end: int, dump: int = -1) -> None:
        self.kind = kind  # "dump" or "text"
        self.start = start
        self.end = end
        self.dump = dump  # the Dump's index for kind "dump"


class LogInfo(Record):
    """One source of text a Timeline reads from (a log file, a tree-dir file, an artifact)."""

    __slots__ = ("path", "stage", "size", "segments", "prefix", "compiles")

    def __init__(
        self, path: str, stage: str, size: int, segments: list[Segment] | None = None,
        prefix: str = "", compiles: list[int] | None = None,
    ) -> None:  # fmt: skip
        self.path = path
        self.stage = stage
        self.size = size
        self.segments: list[Segment] = [] if segments is None else segments
        # The prefix every line of this log's text carries in the file (`[rank0]: `, a CI
        # timestamp), stripped from its IR; "" for none. Two logs of one file with other
        # prefixes are two streams, interleaved line by line: their segments cover their lines.
        self.prefix = prefix
        # The Dumps (by index) where another compile starts in this log (a log appended to).
        self.compiles: list[int] = [] if compiles is None else compiles
