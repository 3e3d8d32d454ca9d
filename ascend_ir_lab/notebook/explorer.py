"""A Run (or any Timeline) as a notebook value: the explorer when displayed, helpers to call.

`RunView` is what `%%triton_npu` and `%ir_load` return (`run = _`): `.timeline`, `.run`,
`.show(which)`, `.diff(a, b)`, `.find(op)`, `.compare(other)`. Displayed in a live kernel it
is the explorer widget; in terminal IPython or any plain-text frontend, a compact summary.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ascend_ir_lab.analysis.align import counterpart
from ascend_ir_lab.analysis.change import pass_change
from ascend_ir_lab.analysis.compare import compare
from ascend_ir_lab.analysis.normalize import Normalization, normalize_lines
from ascend_ir_lab.analysis.ops import Census, lifecycle
from ascend_ir_lab.dumps import Dump, Timeline, open_timeline
from ascend_ir_lab.errors import InputError
from ascend_ir_lab.notebook.compare_view import ComparisonView
from ascend_ir_lab.notebook.explorer_text import diff_text, lifecycle_table, summary_text
from ascend_ir_lab.notebook.glue import widget_frontend
from ascend_ir_lab.notebook.text import IRText, Table

__all__ = ["RunView"]


class RunView:
    """One Run or Timeline in a notebook; displays as the explorer."""

    def __init__(
        self,
        timeline: Timeline,
        *,
        run: Any = None,
        name: str | None = None,
        launches: Sequence[Any] = (),
    ) -> None:
        self.timeline = timeline
        self.run = run
        self.name = name or (
            run.name if run is not None else Path(timeline.path or "timeline").name
        )
        self.launches = list(launches)
        self._widget: Any = None

    @classmethod
    def of(cls, run: Any, launches: Sequence[Any] = ()) -> RunView:
        """The view of a toolchains Run."""
        return cls(run.timeline, run=run, launches=launches)

    @classmethod
    def load(cls, path: str | Path, name: str | None = None) -> RunView:
        """A log, tree-dir, cache/dump folder or Run folder."""
        from ascend_ir_lab.toolchains.common.run import MANIFEST, Run

        path = Path(path).expanduser()
        if (path / MANIFEST).is_file():
            run = Run(path)
            if not run.passes_captured:
                run = _captured(run)
            return cls(run.timeline, run=run, name=name)
        return cls(open_timeline(str(path)), name=name or path.name)

    def __getattr__(self, attr: str) -> Any:
        # the Run's own fields (path, manifest, status, stages...) read through the view
        run = self.__dict__.get("run")
        if run is None or attr.startswith("_"):
            raise AttributeError(attr)
        return getattr(run, attr)

    @property
    def status(self) -> str:
        """The Run's status code, or 'log' for a Timeline read from a log or folder."""
        return self.run.status if self.run is not None else "log"

    # -- helpers ---------------------------------------------------------------------------
    def dump(self, which: str | int | Dump) -> Dump:
        """The Dump `which` names: an index, 'last', or a pass argument 'cse#2'."""
        if isinstance(which, Dump):
            return which
        return self.timeline.select(which)

    def show(self, which: str | int = "last", *, normalize: str | None = None) -> IRText:
        """The IR of one Dump (highlighted in HTML frontends)."""
        d = self.dump(which)
        lines = normalize_lines(self.timeline.lines(d), Normalization.parse(normalize))
        return _noted(IRText("\n".join(lines), title=self.dump_label(d)), self.timeline, which)

    def diff(
        self,
        a: str | int,
        b: str | int | RunView | None = None,
        *,
        normalize: str | None = None,
        context: int = 3,
    ) -> IRText:
        """What pass `a` changed (b omitted), `a` against `b` in this Run, or against the same
        pass of another RunView `b` (or what stands in its place there: align.counterpart)."""
        da = self.dump(a)
        other = self
        if isinstance(b, RunView):
            other = b
            db = counterpart(self.timeline, da, b.timeline)
            if db is None:
                raise InputError(f"{b.name} never runs {da.label} on {da.scope}")
        elif b is not None:
            db = self.dump(b)
        else:
            change = pass_change(self.timeline, da)
            if change.note:
                return IRText(change.note, title=self.dump_label(da), kind="diff")
            assert change.old is not None and change.new is not None
            da, db = change.old, change.new
        result = diff_text(self, da, other, db, normalize=normalize, context=context)
        return _noted(result, self.timeline, a)

    def find(self, op: str) -> Table:
        """Op lifecycle: every pass that changes how many `op` there are."""
        changes = lifecycle(self.timeline, op, Census(self.timeline))
        return lifecycle_table(self.name, op, changes)

    def ops(self, which: str | int = "last") -> Table:
        """Op census of one Dump, most frequent first."""
        d = self.dump(which)
        counts = Census(self.timeline).of(d)
        return Table(
            f"{self.dump_label(d)}: {sum(counts.values())} ops",
            ["count", "op"],
            [[n, op] for op, n in counts.most_common()],
        )

    # -- sharing ---------------------------------------------------------------------------
    def notes(self) -> list[dict[str, Any]]:
        """Notes made in the explorer (live widget) or saved with the Run (1-based `ir_line`)."""
        from ascend_ir_lab.export.files import notes_or_warning
        from ascend_ir_lab.export.notes import clean_notes

        if self._widget is not None and self._widget.notes:
            raw = list(self._widget.notes)
        else:
            # a broken notes.json gives no notes (the page and report say why), never an error
            raw = notes_or_warning(self.run.path)[0] if self.run is not None else []
        return clean_notes(raw, [d.label for d in self.timeline.dumps])[0]

    def save_html(self, path: str | Path, *, title: str | None = None) -> Path:
        """One self-contained offline page of this Run, notes included; returns its path."""
        from ascend_ir_lab.export.files import save_html

        source = self.run if self.run is not None else self.timeline
        return save_html(source, path, title=title or self.title(), notes=self.notes())

    def report(
        self, out: str | Path, *, which: str | int | None = None, against: RunView | None = None
    ) -> Any:
        """The bug-report bundle (zip + Markdown); `against` a barrier-all Run to compare with."""
        from ascend_ir_lab.share.report import make_report
        from ascend_ir_lab.toolchains.ascend.rebuild import sibling_builds

        if self.run is None:
            raise InputError(f"{self.name} is not a Run folder: compile it to make a report")
        other = against.run if against is not None else None
        again = sibling_builds(self.run)
        return make_report(
            self.run, which=which, against=other, out=out, notes=self.notes(),
            again=again[0] if again else None,
        )  # fmt: skip

    def compare(
        self, other: RunView, *, normalize: str | None = None, noise: Any = None
    ) -> ComparisonView:
        """Pass-aligned comparison with another Run (e.g. fine vs barrier-all), in canonical
        form; `noise` (other builds of this Run, or `determinism()`'s result) sets apart the
        passes that vary between identical compiles. Shown as the two Runs side by side
        (notebook.compare_view); every attribute of the analysis.compare Comparison reads
        through."""
        from ascend_ir_lab.analysis.noise import Noise, measure_noise

        if noise is not None and not isinstance(noise, Noise):
            builds = noise if isinstance(noise, list | tuple) else [noise]
            noise = measure_noise([self.timeline, *(as_timeline(b) for b in builds)])
        norm = Normalization.parse(normalize) if normalize else None
        result = compare(self.timeline, other.timeline, self.name, other.name, norm, noise)
        return ComparisonView(result, self.timeline, other.timeline)

    def sync_check(self, which: str | int | None = None) -> Table:
        """The sync checker's findings: on Dump `which`, or after the sync pass and on the
        final IR (analysis.sync_check)."""
        from ascend_ir_lab.analysis.sync_timeline import check_timeline

        dumps = [self.dump(which)] if which is not None else None
        checked = check_timeline(self.timeline, dumps)
        rows = [
            [i, f.line + 1, f.severity, f.kind, f"{f.pipes[0]}->{f.pipes[1]}", f.buffer,
             f.source_line, f.message]
            for i, r in checked.items() for f in r.findings
        ]  # fmt: skip
        definite = sum(len(r.definite) for r in checked.values())
        title = (
            f"{self.name}: sync check of dumps {', '.join(map(str, checked))}: {definite} "
            f"definite, {len(rows) - definite} possible"
        )
        return Table(
            title, ["dump", "line", "severity", "kind", "pipes", "buffer", "python", "what"], rows
        )

    def determinism(self, n: int = 5) -> Any:
        """Compile this Run's kernel until there are `n` builds (reusing those kept in
        RUN/noise/) and report which passes give different output (analysis.noise)."""
        from ascend_ir_lab.analysis.noise import measure_noise
        from ascend_ir_lab.toolchains.ascend.rebuild import rebuild, sibling_builds

        if self.run is None:
            raise InputError(f"{self.name} is not a Run folder: it cannot be compiled again")
        builds = [self.timeline]
        for k in range(1, n):
            kept = sibling_builds(self.run)
            path = kept[k - 1] if k <= len(kept) else None
            if path is None:
                path = rebuild(self.run, self.run.path / "noise" / f"again-{k}").path
            builds.append(open_timeline(path))
        return measure_noise(builds)

    def dump_label(self, d: Dump) -> str:
        """How a dump of this Run is named in titles: `name #index stage:pass (scope)`."""
        return f"{self.name} #{d.index} {d.stage}:{d.label} ({d.scope})"

    # -- display ---------------------------------------------------------------------------
    def payload(self) -> dict[str, Any]:
        """The timeline payload the viewer reads (with the kernel source and notes of a Run)."""
        from ascend_ir_lab.export.files import payload_of

        return payload_of(self.run if self.run is not None else self.timeline, title=self.title())

    def widget(self) -> Any:
        """The explorer widget (made once, so notes made in it stay with this view)."""
        if self._widget is None:
            from ascend_ir_lab.notebook.widget import TimelineWidget

            capture = None
            if self.run is not None:
                from ascend_ir_lab.notebook.capture_button import capture_from_viewer

                run = self.run

                def capture(name: str, say: Any) -> dict[str, Any]:
                    return capture_from_viewer(run, name, say, RunView.of)

            self._widget = TimelineWidget(self.payload(), capture=capture)
            if self.run is not None:
                self._widget.observe(self._keep_notes, names="notes")
        return self._widget

    def _keep_notes(self, change: dict[str, Any]) -> None:
        """Notes made in the page go to the Run folder's notes.json, where reports find them."""
        from ascend_ir_lab.errors import InputError
        from ascend_ir_lab.export.notes import write_notes

        if self.run is not None:
            try:
                write_notes(self.run.path, self.notes(), self.title())
            except (
                OSError,
                InputError,
            ) as exc:  # a read-only or hostile Run: notes stay in the page
                import warnings

                warnings.warn(f"notes not saved into {self.run.path}: {exc}", stacklevel=2)

    def title(self) -> str:
        """'vadd (Ascend910B3)' for a Run, the Timeline's title otherwise."""
        target = self.run.manifest.get("target") if self.run is not None else None
        return f"{self.name} ({target})" if target else (self.timeline.title or self.name)

    def summary(self) -> str:
        """A compact text summary: stages, dumps, changed passes, status, sync ops."""
        return summary_text(self)

    def __repr__(self) -> str:
        return self.summary()

    def _repr_mimebundle_(
        self, **kwargs: Any
    ) -> tuple[dict[str, Any], dict[str, Any]] | dict[str, Any]:
        if not widget_frontend():
            return {"text/plain": self.summary()}
        data, meta = self.widget()._repr_mimebundle_(**kwargs)
        return {**data, "text/plain": self.summary()}, meta


def _captured(run: Any) -> Any:
    """A cheap record opened: its passes are captured now when its kernel is at hand (this
    session compiled it, or its file is unchanged); otherwise it opens as it is."""
    from ascend_ir_lab.notebook.progress import CompileProgress
    from ascend_ir_lab.share.capture import capture_on_open

    run, note = capture_on_open(run, progress=CompileProgress())
    if note:
        print(note, file=sys.stderr)
    return run


def as_timeline(value: Any) -> Timeline:
    """The Timeline of a RunView, a Run, a Timeline or a path."""
    if isinstance(value, RunView):
        return value.timeline
    if isinstance(value, Timeline):
        return value
    if hasattr(value, "timeline"):
        return value.timeline  # type: ignore[no-any-return]
    return open_timeline(value)


def _noted(text: IRText, tl: Timeline, which: Any) -> IRText:
    """Add to the title which occurrence a bare pass name took (Timeline.selection_note)."""
    note = tl.selection_note(which) if isinstance(which, str | int) else ""
    if note:
        text.title = f"{text.title} [{note}]"
    return text
