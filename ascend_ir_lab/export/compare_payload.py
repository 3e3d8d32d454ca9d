"""The payload of two Runs side by side (`ascend-ir-lab/compare@1`, docs/formats.md): each
Run's timeline payload over one shared line table, and the pass-aligned pairs of
analysis.compare with what each pair is (same, a real difference, noise, inherited, one side
only), so the viewer draws the aligned pass lists and the two IRs of a pair side by side."""

from __future__ import annotations

from typing import Any

from ascend_ir_lab.analysis.compare import Comparison
from ascend_ir_lab.dumps import Timeline
from ascend_ir_lab.export.payload import build_payload

__all__ = ["COMPARE_FORMAT", "PAIR_KINDS", "build_comparison_payload"]

COMPARE_FORMAT = "ascend-ir-lab/compare@1"
# what a pair is: same output; a real difference; a difference that varies between identical
# compiles of A (noise); the same change made to different inputs (inherited); one side only
PAIR_KINDS = ("same", "real", "noise", "inherited", "only-a", "only-b")


def build_comparison_payload(
    cmp: Comparison, a: Timeline, b: Timeline, *, title: str | None = None
) -> dict[str, Any]:
    """The comparison `cmp` of Timelines `a` and `b` as one payload for the viewer."""
    pa = build_payload(a, title=cmp.a_name, sync_check=False)
    pb = build_payload(b, title=cmp.b_name, sync_check=False)
    lines = list(pa.pop("lines"))
    ids = {text: k for k, text in reversed(list(enumerate(lines)))}
    remap = []
    for text in pb.pop("lines"):
        if text not in ids:
            ids[text] = len(lines)
            lines.append(text)
        remap.append(ids[text])
    pb["snapshots"] = [[remap[i] for i in snap] for snap in pb["snapshots"]]
    pairs = [_pair(cmp, p.a, p.b, p.differs) for p in cmp.pairs]
    return {
        "format": COMPARE_FORMAT,
        "title": title or f"{cmp.a_name} vs {cmp.b_name}",
        "names": [cmp.a_name, cmp.b_name],
        "lines": lines,
        "a": pa,
        "b": pb,
        "pairs": pairs,
        "first_divergence": _index(cmp, cmp.first_divergence),
        "first_real": _index(cmp, cmp.first_real),
        "noise_builds": cmp.noise.builds if cmp.noise is not None else 0,
        "summary": cmp.lines(limit=8),
    }


def _pair(cmp: Comparison, x: Any, y: Any, differs: bool) -> list[Any]:
    """[A's dump index or -1, B's or -1, kind]."""
    if y is None:
        kind = "only-a"
    elif x is None:
        kind = "only-b"
    elif not differs:
        kind = "same"
    elif x.index in cmp.unsteady:
        kind = "noise"
    elif x.index in cmp.inherited:
        kind = "inherited"
    else:
        kind = "real"
    return [x.index if x is not None else -1, y.index if y is not None else -1, kind]


def _index(cmp: Comparison, pair: Any) -> int | None:
    return None if pair is None else next(k for k, p in enumerate(cmp.pairs) if p is pair)


def comparison_static_html(payload: dict[str, Any]) -> str:
    """A static fallback of the comparison (nbviewer, GitHub): its summary, escaped."""
    import html

    lines = "\n".join(str(s) for s in payload.get("summary") or [])
    return (
        '<div class="ascend-ir-lab-static"><pre style="margin:2px 0">'
        f"{html.escape(lines)}</pre><p>Open this notebook in JupyterLab with ascend-ir-lab "
        "installed for the two Runs side by side.</p></div>"
    )
