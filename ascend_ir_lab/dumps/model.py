"""The nouns of the engine: Dump and Message, as offsets into a log, never copies of it."""

from __future__ import annotations

from dataclasses import dataclass, field

PHASES = ("start", "before", "after", "failed", "artifact")


@dataclass(slots=True)
class Dump:
    """One `IR Dump Before/After` block (or one tree-dir file, or one stage artifact).

    Offsets point into the log the Dump was read from (`Timeline.log_of(dump)`); the IR text
    is only sliced out when asked for.
    """

    index: int
    stage: str
    pass_name: str
    arg: str
    options: str
    phase: str
    scope: str
    family: str
    log_id: int
    start: int  # first byte of the header line (== body_start for header-less dumps)
    body_start: int
    body_end: int  # one past the last byte of IR (its final newline included)
    end: int  # one past the segment: IR plus the blank lines that follow it
    truncated: bool = False
    # The op the IR text holds: differs from `scope` under module-scope printing, where a
    # function pass's Dump shows the whole module. Predecessors are found by this.
    holds: str = ""

    @property
    def span(self) -> tuple[int, int]:
        """Byte span of the whole segment (header, IR, trailing blank lines) in its log."""
        return (self.start, self.end)

    @property
    def label(self) -> str:
        """`arg` when the pass has one (what a pipeline spells), else the pass name."""
        return self.arg or self.pass_name


@dataclass(slots=True)
class Message:
    """A non-IR line of a log (a diagnostic, a tool's own output), kept in order."""

    stage: str
    after: int  # index of the Dump this message follows (-1: before the first)
    level: str  # "error", "warning", "note", "info" or "text"
    text: str
    log_id: int
    start: int
    end: int
    # A banner names a pass that printed no IR: its pass and what the banner says
    # ("unchanged" for LLVM's `omitted because no change`, "filtered", "ignored",
    # "invalidated", "deleted"); both empty for any other line.
    pass_name: str = ""
    banner: str = ""


@dataclass(slots=True)
class Segment:
    """A byte range of a log; a log's segments, in order, reassemble it byte for byte."""

    kind: str  # "dump" or "text"
    start: int
    end: int
    dump: int = -1  # the Dump's index for kind "dump"


@dataclass(slots=True)
class LogInfo:
    """One source of text a Timeline reads from (a log file, a tree-dir file, an artifact)."""

    path: str
    stage: str
    size: int
    segments: list[Segment] = field(default_factory=list)
    # The prefix every line of this log's text carries in the file (`[rank0]: `, a CI
    # timestamp), stripped from its IR; "" for none. Two logs of one file with other
    # prefixes are two streams, interleaved line by line: their segments cover their lines.
    prefix: str = ""
    # The Dumps (by index) where another compile starts in this log (a log appended to).
    compiles: list[int] = field(default_factory=list)
