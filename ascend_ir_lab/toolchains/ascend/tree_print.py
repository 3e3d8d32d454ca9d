"""bishengir-compile with every pass printed into a tree-dir, its stage log made from it.

MLIR prints its IR dumps to stderr a token at a time, one write(2) each: ~700 000 system calls
for a small kernel's 250 dumps, 0.3-0.8 s of kernel time, more than the compile and printing
together. `--mlir-print-ir-tree-dir` prints the same dumps, byte for byte and each with its
header, through buffered files: the stage takes a third of the time. The stage's log is then
those files in the order MLIR printed them (`dumps.walk.tree_order`), followed by what the
tool printed to stderr, as its record says (`print_to`).

A tree-dir does not keep where a message came among the passes, and it loses a print when an
op's counter restarts (a second pass manager, a retry after a UB overflow). So the log is made
from the tree only when the tree's counters are whole and the tool printed nothing but lines
that belong to no pass (the search for hivmc, the binary step CANN ships): otherwise the
stage runs again as before, printing to stderr, and its record says why.
"""

from __future__ import annotations

import re
import shutil
import signal
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ascend_ir_lab.dumps.walk import tree_inconsistency, tree_order, walk_tree
from ascend_ir_lab.toolchains.common.process import (
    LoggedTool,
    ToolInterrupted,
    ToolResult,
    ToolTimeoutError,
    run_logged,
)

__all__ = ["TREE_FLAG", "TreePrinted", "prints_to_tree"]

TREE_FLAG = "--mlir-print-ir-tree-dir"
_HEADER = b"// -----// IR Dump "
# what bishengir-compile prints outside every pass with no CANN: the search for hivmc
# before the passes, the binary step after them
_OUTSIDE_PASSES = re.compile(rb"hivmc|Failed to run BiShengIR pipeline")
# the last line of the version check it makes before the first pass
_STARTUP_END = re.compile(rb"hivmc --version|detect hivmc version")


def _split_startup(said: bytes) -> tuple[bytes, bytes]:
    """The tool's stderr cut where its start-up check (before any pass) ends: that part goes
    before the dumps, as it comes in the stderr log; the binary step's lines after them."""
    lines = said.splitlines(keepends=True)
    last = max((k for k, ln in enumerate(lines) if _STARTUP_END.search(ln)), default=-1)
    return b"".join(lines[: last + 1]), b"".join(lines[last + 1 :])


def prints_to_tree(flags: Sequence[str]) -> bool:
    """Whether a compile printing with `flags` may print into a tree-dir: every pass after
    it ran, and no printing of the user's own choosing (before-passes, a file, a filter)."""
    printing = [f for f in flags if f.lstrip("-").startswith("mlir-print-ir")]
    return printing == ["--mlir-print-ir-after-all"] or sorted(printing) == sorted(
        ["--mlir-print-ir-after-all", "--mlir-print-ir-module-scope"]
    )


class TreePrinted:
    """A bishengir-compile started printing into `tree` (its stderr into `messages`), with
    the LoggedTool's `wait`/`stop`: each leaves the stage's log at `log` and says in
    `record` how it was printed."""

    def __init__(self, tool: LoggedTool, tree: Path, messages: Path, log: Path,
                 classic: list[str], env: Mapping[str, str]) -> None:  # fmt: skip
        self._tool, self._tree, self._messages, self._log = tool, tree, messages, log
        self._classic, self._env = classic, env
        self.record: dict[str, Any] = {}

    def wait(self, timeout: float) -> ToolResult:
        try:
            result = self._tool.wait(timeout)
        except (ToolTimeoutError, ToolInterrupted) as exc:
            exc.result = self._made(exc.result, self._files()[0])
            raise
        files, skipped = self._files()
        reason = self._whole(result, files, skipped)
        if reason is None:
            made = self._made(result, files)
            odd = self.record.get("tree_files_without_one_header")
            if not odd:
                return made
            reason = f"{odd} tree-dir files without exactly one header"
        else:
            self._cleanup()  # not made into a log: the stage prints again below
        # printed again to stderr: the log then says everything in its place
        left = max(1.0, timeout - result.seconds)
        again = run_logged(self._classic, log=self._log, env=self._env, timeout=left)
        self.record = {"print_to": "log", "tree_dir_not_used": reason,
                       "tree_dir_seconds": round(result.seconds, 4)}  # fmt: skip
        return again

    def stop(self, first: int = signal.SIGKILL) -> ToolResult:
        return self._made(self._tool.stop(first), self._files()[0])

    def _files(self) -> tuple[list[Path], list[str]]:
        return walk_tree(self._tree) if self._tree.is_dir() else ([], [])

    def _whole(self, result: ToolResult, files: list[Path], skipped: list[str]) -> str | None:
        """Why the tree may not give the log exactly (None: it does)."""
        said = self._messages.read_bytes() if self._messages.is_file() else b""
        odd = [ln for ln in said.splitlines() if ln.strip() and not _OUTSIDE_PASSES.search(ln)]
        if odd:
            text = odd[0].decode("utf-8", "replace")[:200]
            return (
                f"the tool printed a message whose place among the passes a tree-dir loses: {text}"
            )
        if result.returncode != 0 and not said:
            return f"exit code {result.returncode} with nothing said"
        if skipped:
            return skipped[0]
        return tree_inconsistency(self._tree, files)

    def _made(self, result: ToolResult, files: list[Path]) -> ToolResult:
        """The stage log from the tree (as far as it got) and the tool's messages after it."""
        odd = 0
        said = self._messages.read_bytes() if self._messages.is_file() else b""
        before, after = _split_startup(said)
        with open(self._log, "wb") as out:
            out.write(before)
            for f in tree_order(self._tree, files):
                with open(f, "rb") as one:
                    data = one.read()
                odd += not data.startswith(_HEADER) or data.count(b"\n" + _HEADER) != 0
                out.write(data)
            out.write(after)
        self._cleanup()
        self.record = {"print_to": "tree-dir",
                       "messages": "hivmc check before the dumps, the rest after"}  # fmt: skip
        if odd:
            self.record["tree_files_without_one_header"] = odd
        return ToolResult(result.command, result.returncode, result.seconds, self._log,
                          result.status)  # fmt: skip

    def _cleanup(self) -> None:
        shutil.rmtree(self._tree, ignore_errors=True)
        self._messages.unlink(missing_ok=True)
