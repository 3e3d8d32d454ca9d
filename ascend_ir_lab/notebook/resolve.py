"""The Runs of a notebook session, and what `%ir_diff` arguments name.

A reference is a Run — a notebook variable (RunView, Run or Timeline) or the name of a Run
made or loaded in this session — optionally followed by `:PASS` (`cse#2`, `last`, a dump
index). A bare pass or dump index means the latest Run.
"""

from __future__ import annotations

from typing import Any

from ascend_ir_lab.analysis.align import counterpart
from ascend_ir_lab.errors import InputError
from ascend_ir_lab.notebook.explorer import RunView
from ascend_ir_lab.notebook.explorer_text import diff_text

__all__ = ["Session"]


class Session:
    """Runs made or loaded in this IPython session, newest last."""

    def __init__(self, shell: Any = None) -> None:
        self.shell = shell
        self.views: list[RunView] = []

    def add(self, view: RunView) -> RunView:
        """Remember `view` (its name refers to it from now on) and return it."""
        self.views.append(view)
        return view

    def names(self) -> list[str]:
        """Names of the session's Runs, oldest first."""
        return [v.name for v in self.views]

    def run(self, ref: str) -> RunView | None:
        """The Run `ref` names (a variable, or a session Run's name), or None."""
        ns = getattr(self.shell, "user_ns", {}) if self.shell is not None else {}
        value = ns.get(ref)
        view = as_view(value) if value is not None else None
        if view is not None:
            return view
        for v in reversed(self.views):
            if v.name == ref:
                return v
        return None

    def _run_named(self, ref: str) -> RunView:
        view = self.run(ref)
        if view is None:
            raise InputError(f"{ref!r} is not a Run (variable or name) of this session")
        return view

    def latest(self) -> RunView:
        """The newest Run of the session."""
        if not self.views:
            raise InputError(
                "no Run in this session yet: compile one with %%triton_npu or "
                "open one with %ir_load PATH"
            )
        return self.views[-1]

    def ref(self, text: str) -> tuple[RunView, str | None]:
        """(Run, pass or None) for `RUN`, `RUN:PASS` or a bare PASS of the latest Run."""
        view = self.run(text)
        if view is not None:
            return view, None
        head, sep, tail = text.partition(":")
        if sep:
            view = self.run(head)
            if view is not None:
                return view, tail or "last"
        known = ", ".join(self.names()) or "none yet"
        if not self.views:
            raise InputError(
                f"{text!r} is not a Run (variable or name); Runs in this session: {known}"
            )
        return self.latest(), text

    def diff(
        self, a: str, b: str | None, *, normalize: str | None = None, context: int = 3,
        noise: list[str] | None = None, rebuild: bool = False,
    ) -> Any:  # fmt: skip
        """What `%ir_diff A [B]` shows (see the module docstring); for two whole Runs,
        `noise` names other builds of A and `rebuild` compiles (or reuses) one."""
        va, pa = self.ref(a)
        if b is None:
            if pa is None:
                raise InputError(f"{a} is a whole Run: give a pass ({a}:PASS) or a second Run")
            return va.diff(pa, normalize=normalize, context=context)
        vb, pb = self.ref(b)
        if pa is None and pb is None:
            builds = [self._run_named(n) for n in noise or []]
            if rebuild:
                return va.compare(vb, normalize=normalize, noise=va.determinism(2))
            return va.compare(vb, normalize=normalize, noise=builds or None)
        if pa is not None and pb is not None:
            return diff_text(va, va.dump(pa), vb, vb.dump(pb), normalize=normalize, context=context)
        if pa is not None:
            return va.diff(pa, vb, normalize=normalize, context=context)
        assert pb is not None
        db = vb.dump(pb)
        da = counterpart(vb.timeline, db, va.timeline)
        if da is None:
            raise InputError(f"{va.name} never runs {db.label} on {db.scope}")
        return diff_text(va, da, vb, db, normalize=normalize, context=context)


def as_view(value: Any) -> RunView | None:
    """A RunView of a notebook value (RunView, toolchains Run, Timeline), else None."""
    from ascend_ir_lab.dumps import Timeline
    from ascend_ir_lab.toolchains.common.run import Run

    if isinstance(value, RunView):
        return value
    if isinstance(value, Run):
        return RunView.of(value)
    if isinstance(value, Timeline):
        return RunView(value)
    return None
