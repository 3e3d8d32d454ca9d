"""What the sync checker reports: findings, and what it recognised in a snapshot."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Finding", "SyncCheck"]


@dataclass(frozen=True)
class Finding:
    """One problem: where (0-based line), how sure, what, which pipes and buffer."""

    line: int
    severity: str  # "definite" or "possible"
    kind: str  # "hang", "leak", "reuse", "hazard", "cross-core-hang", "cross-core-unwaited"
    message: str
    pipes: tuple[str, str]
    buffer: str = ""
    other_line: int | None = None  # the other op (the earlier access, the pending set)
    function: str = ""
    source_line: int | None = None

    def sort_key(self) -> tuple[int, str, int, tuple[str, str], str, str, str, str]:
        """Where a finding is listed: by line, kind, the other op's line, then the rest of
        its content (a total order, so the list never follows the order the checker's sets
        were visited in)."""
        other = -1 if self.other_line is None else self.other_line
        return (self.line, self.kind, other, self.pipes, self.severity, self.message,
                self.buffer, self.function)  # fmt: skip

    def as_json(self) -> dict[str, Any]:
        """The viewer's and `sync --check --json`'s record (lines 1-based)."""
        return {
            "line": self.line + 1, "severity": self.severity, "kind": self.kind,
            "message": self.message, "pipes": list(self.pipes), "buffer": self.buffer,
            "other_line": None if self.other_line is None else self.other_line + 1,
            "function": self.function, "source_line": self.source_line,
        }  # fmt: skip


@dataclass
class SyncCheck:
    """The findings for one snapshot, and what was recognised in it."""

    findings: list[Finding] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)
    cross_core: list[int] = field(default_factory=list)  # lines of sync_block_set/wait
    distributed: list[int] = field(default_factory=list)  # lines of distributed primitives

    @property
    def definite(self) -> list[Finding]:
        """The findings that are surely bugs (as far as the model sees)."""
        return [f for f in self.findings if f.severity == "definite"]

    def lines(self, text: Sequence[str] = ()) -> list[str]:
        """The result for people."""
        out = [
            f"sync check of {', '.join('@' + f for f in self.functions) or 'no function'}: "
            f"{len(self.definite)} definite, {len(self.findings) - len(self.definite)} possible; "
            f"{len(self.cross_core)} cross-core sync ops, {len(self.distributed)} distributed"
        ]
        for f in self.findings:
            src = f" (python line {f.source_line})" if f.source_line else ""
            other = f", with line {f.other_line + 1}" if f.other_line is not None else ""
            out.append(
                f"  line {f.line + 1:>5}: {f.severity:<8} {f.kind:<9} {f.pipes[0]}->{f.pipes[1]}"
                f" {f.buffer} {f.message}{other}{src}"
            )
        return out
