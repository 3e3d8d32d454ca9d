"""Small displayable values: IR or diff text, tables, and the panels the magics show.

Each has a `text/plain` form (terminal IPython, nbconvert to text) and an HTML form (Jupyter),
like rich's renderables. IR is highlighted with the shared `mlir` Pygments lexer.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

__all__ = ["ErrorPanel", "IRText", "Table", "comparison_html"]

_PRE = "max-height:32em;overflow:auto;font-size:12px;line-height:1.35"


class IRText(str):
    """IR or a unified diff: a str (so it can be searched, printed, split) that displays
    highlighted in HTML frontends."""

    # the heading shown above the text; it shadows str.title() on purpose
    title: str  # type: ignore[assignment]
    kind: str

    def __new__(cls, text: str, *, title: str = "", kind: str = "ir") -> IRText:
        obj = super().__new__(cls, text)
        obj.title = title
        obj.kind = kind
        return obj

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text((f"# {self.title}\n" if self.title else "") + str(self))

    def _repr_html_(self) -> str:
        return (
            f"<div><b>{html.escape(self.title)}</b>"
            f"{highlight(str(self), 'diff' if self.kind == 'diff' else 'mlir')}</div>"
        )


def highlight(text: str, language: str) -> str:
    """HTML for `text` with inline styles (no stylesheet needed; safe to save)."""
    try:
        from pygments import highlight as _highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import DiffLexer

        from ascend_ir_lab.lexer import MLIRLexer

        lexer = DiffLexer() if language == "diff" else MLIRLexer()
        return _highlight(text, lexer, HtmlFormatter(noclasses=True, cssstyles=_PRE))
    except Exception:  # noqa: BLE001 - highlighting is cosmetic; plain text always works
        return f'<pre style="{_PRE}">{html.escape(text)}</pre>'


class Table:
    """Rows under a title; text columns aligned, HTML as a table."""

    def __init__(self, title: str, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        self.title = title
        self.header = list(header)
        self.rows = [list(r) for r in rows]

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Any:
        return iter(self.rows)

    def text(self) -> str:
        """Aligned plain text."""
        cells = [self.header, *[[str(c) for c in r] for r in self.rows]]
        widths = [max(len(row[i]) for row in cells) for i in range(len(self.header))]
        body = [
            "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
            for row in cells
        ]
        return "\n".join([self.title, *(body if self.rows else [])])

    def __repr__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in self.header)
        rows = "".join(
            "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>"
            for r in self.rows
        )
        return f"<div><b>{html.escape(self.title)}</b><table><tr>{head}</tr>{rows}</table></div>"


class ErrorPanel:
    """A compile failure as a readable panel: what failed, the command, the compiler's stderr."""

    def __init__(self, error: BaseException, kernel: str = "") -> None:
        self.error = error
        self.kernel = kernel

    @property
    def headline(self) -> str:
        """One line: what failed."""
        stage = getattr(self.error, "stage", "")
        code = getattr(self.error, "returncode", None)
        what = f"{self.kernel}: " if self.kernel else ""
        if stage:
            return f"{what}stage {stage} failed (exit code {code})"
        return f"{what}{type(self.error).__name__}: {str(self.error).splitlines()[0]}"

    def parts(self) -> list[tuple[str, str]]:
        """(label, text) sections under the headline."""
        err = self.error
        out: list[tuple[str, str]] = []
        command = getattr(err, "command", None)
        if command:
            out.append(("command", " ".join(map(str, command))))
        stderr = getattr(err, "stderr", None)
        if stderr:
            out.append(
                ("compiler output (last lines)", "\n".join(str(stderr).rstrip().splitlines()[-30:]))
            )
        elif not command:
            out.append(("message", str(err)))
        run = getattr(err, "run", None)
        if run is not None:
            out.append(("run", f"{run.path}  (status {run.status}; open it with %ir_load)"))
        return out

    def __repr__(self) -> str:
        lines = [f"✗ {self.headline}"]
        for label, text in self.parts():
            lines.append(f"  {label}:")
            lines.extend("    " + ln for ln in text.splitlines())
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        body = "".join(
            f"<div style='margin-top:4px'><b>{html.escape(label)}</b>"
            f"<pre style='{_PRE};white-space:pre-wrap'>{html.escape(text)}</pre></div>"
            for label, text in self.parts()
        )
        return (
            "<div style='border:1px solid #d33;border-left:4px solid #d33;padding:6px 10px;"
            "background:rgba(221,51,51,.06)'>"
            f"<div style='color:#b00;font-weight:bold'>✗ {html.escape(self.headline)}</div>"
            f"{body}</div>"
        )


def comparison_html(comparison: Any) -> str:
    """HTML of an `analysis.compare.Comparison`: its headline in bold, the rest as text."""
    head, *rest = comparison.lines()
    return (
        f"<div><b>{html.escape(head)}</b><pre style='margin:2px 0'>"
        f"{html.escape(chr(10).join(rest))}</pre></div>"
    )
