"""What a pass changed: the two states of its scope that show it, or why there are not two.

One answer for every view: `ascend-ir-lab diff RUN PASS`, `%ir_diff RUN:PASS` and
`RunView.diff(PASS)` all ask `pass_change`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ascend_ir_lab.dumps import Dump, Timeline

__all__ = ["PassChange", "pass_change"]


@dataclass(frozen=True)
class PassChange:
    """The states before (`old`) and after (`new`) a pass, or `note` saying which is missing."""

    dump: Dump
    old: Dump | None
    new: Dump | None

    @property
    def note(self) -> str:
        """Empty when both states exist; else why there is nothing to compare."""
        d = self.dump
        if self.old is None:
            return f"#{d.index} {d.label} is the first state of {d.scope}: nothing before it"
        if self.new is None and d.options == "crash":
            return (
                f"#{d.index} {d.label} is the IR the pass crashed on (-print-on-crash): "
                "it printed no output"
            )
        if self.new is None:
            return (
                f"#{d.index} {d.label} is the last state of {d.scope}: nothing follows it "
                "(the pass's output was not printed)"
            )
        return ""


def pass_change(timeline: Timeline, dump: Dump) -> PassChange:
    """What `dump`'s pass did to its scope: an after-dump against the scope's previous state,
    a before-dump (upstream Triton prints only those) against the scope's next state."""
    old, new = timeline.change(dump)
    return PassChange(dump, old, new)
