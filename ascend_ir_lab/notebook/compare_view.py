"""A Comparison of two Runs as the notebook shows it: the viewer's side-by-side view of the
pass-aligned pairs (live widget, or the saved notebook's renderer with no kernel) beside the
text lines; every attribute of the Comparison reads through."""

from __future__ import annotations

from typing import Any

from ascend_ir_lab.analysis.compare import Comparison
from ascend_ir_lab.dumps import Timeline

__all__ = ["ComparisonView"]


class ComparisonView:
    """`run.compare(other)` and `%ir_diff A B`: the Comparison, shown as two Runs side by side."""

    def __init__(self, comparison: Comparison, a: Timeline, b: Timeline) -> None:
        self.comparison = comparison
        self._timelines = (a, b)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.comparison, name)

    def payload(self) -> dict[str, Any]:
        """The comparison payload the viewer reads (`ascend-ir-lab/compare@1`)."""
        from ascend_ir_lab.export.compare_payload import build_comparison_payload

        return build_comparison_payload(self.comparison, *self._timelines)

    def widget(self) -> Any:
        """The viewer widget of the two Runs side by side."""
        from ascend_ir_lab.notebook.widget import TimelineWidget

        return TimelineWidget(self.payload())

    def save_html(self, path: str) -> Any:
        """Write the offline page of the two Runs side by side; returns its path."""
        from ascend_ir_lab.export.html import render_html
        from ascend_ir_lab.runs.outputs import write_output

        payload = self.payload()
        return write_output(path, render_html(payload, title=str(payload["title"])), "page")

    def __repr__(self) -> str:
        return repr(self.comparison)

    def _repr_html_(self) -> str:
        from ascend_ir_lab.notebook.text import comparison_html

        return comparison_html(self.comparison)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        from ascend_ir_lab.notebook.glue import widget_frontend

        if not widget_frontend():
            return {"text/plain": repr(self.comparison)}
        data, meta = self.widget()._repr_mimebundle_(**kwargs)
        return {**data, "text/plain": repr(self.comparison)}, meta
