"""The "sync" section of the bug report: is the wrong result a bug of the sync analysis?

Offline, from the fine-grained Run and its barrier-all twin: the two aligned pass by pass
across the swapped sync passes, in canonical form and with run-to-run noise set apart (when
a second build of the fine Run is given); the sync checker's findings on both; the flag
pairs the barrier-all build replaced with barriers; and the NPU verdict where one was
recorded on an NPU host.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ascend_ir_lab.analysis.compare import compare
from ascend_ir_lab.analysis.noise import Noise
from ascend_ir_lab.analysis.sync import sync_lens
from ascend_ir_lab.analysis.sync_timeline import check_timeline, final_hivm
from ascend_ir_lab.dumps import Timeline
from ascend_ir_lab.safe_text import markdown_code, markdown_fenced, markdown_text

__all__ = ["sync_markdown", "sync_section"]

_MAX_LISTED = 12


def sync_section(
    fine: Timeline, barrier: Timeline | None, *, noise: Noise | None = None,
    verdict: dict[str, Any] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The section as plain data (`sync/report.json` in the bundle)."""
    out: dict[str, Any] = {
        "findings": _findings(fine),
        "barrier_all_findings": _findings(barrier) if barrier is not None else None,
        "comparison": _comparison(fine, barrier, noise) if barrier is not None else None,
        "replaced": _replaced(fine, barrier) if barrier is not None else None,
        "npu_verdict": verdict,
    }
    out["verdict"] = _offline_verdict(out)
    return out


def _findings(tl: Timeline) -> dict[str, Any]:
    checked = check_timeline(tl)
    return {
        "dumps": {
            str(i): {"pass": tl.dumps[i].label, "scope": tl.dumps[i].scope,
                     "definite": len(r.definite), "possible": len(r.findings) - len(r.definite),
                     "findings": [f.as_json() for f in r.findings][:_MAX_LISTED]}
            for i, r in checked.items()
        },
        "definite": sum(len(r.definite) for r in checked.values()),
        "possible": sum(len(r.findings) - len(r.definite) for r in checked.values()),
        # a scalar access of a vector result with nothing between (docs/sync-checker.md)
        "scalar": sum(1 for r in checked.values() for f in r.definite
                      if f.kind == "hazard" and "PIPE_S" in f.pipes),
    }  # fmt: skip


def _comparison(fine: Timeline, barrier: Timeline, noise: Noise | None) -> dict[str, Any]:
    result = compare(fine, barrier, "fine", "barrier-all", noise=noise)
    first = result.first_real if noise is not None else result.first_divergence

    def row(p: Any) -> dict[str, Any]:
        return {"pass": p.label, "scope": p.a.scope, "fine": p.a.index, "barrier_all": p.b.index}

    return {
        "aligned": len(result.pairs), "differing": len(result.differing),
        "noise_measured": noise is not None,
        "noisy": len(result.noisy), "real": len(result.real), "inherited": len(result.inherited),
        "substituted": [f"{a} -> {b} x{len(v)}" for (a, b), v in result.substituted.items()],
        "first_real_divergence": row(first) if first is not None else None,
        "real_passes": [row(p) for p in result.real[:_MAX_LISTED]],
        "text": result.lines(limit=8),
    }  # fmt: skip


def _replaced(fine: Timeline, barrier: Timeline) -> dict[str, Any]:
    """set/wait pairs of the fine final IR by pipe pair, and the barriers standing for them."""
    out: dict[str, Any] = {}
    for name, tl in (("fine", fine), ("barrier_all", barrier)):
        d = final_hivm(tl)
        if d is None:
            out[name] = None
            continue
        lens = sync_lens(tl.lines(d))
        pairs = Counter(f"{a.args[0]}->{a.args[1]}" for a, _ in lens.pairs if len(a.args) >= 2)
        out[name] = {"dump": d.index, "pairs": dict(sorted(pairs.items())),
                     "counts": dict(sorted(lens.counts().items()))}  # fmt: skip
    return out


def _offline_verdict(section: dict[str, Any]) -> str:
    """One sentence for people."""
    if section.get("npu_verdict"):
        v = section["npu_verdict"]
        return f"NPU check: {v.get('text') or v.get('verdict')}"
    definite = section["findings"]["definite"]
    if definite:
        return (
            f"the sync checker finds {definite} definite problem(s) in the fine-grained IR: "
            "a sync-analysis bug is likely; compare with the barrier-all run on an NPU"
        )
    return (
        "the sync checker finds no definite problem in the fine-grained IR; whether "
        "barrier-all changes the result needs an NPU run"
    )


def sync_markdown(section: dict[str, Any] | None) -> list[str]:
    """The section in the report's Markdown (IR text, pass names and messages escaped)."""
    if not section:
        return []
    f = section["findings"]
    out = ["## Sync", "", f"Verdict: {markdown_text(section['verdict'])}.", "",
           f"Sync checker (fine-grained): {f['definite']} definite, {f['possible']} possible "
           "finding(s)."]  # fmt: skip
    for idx, d in f["dumps"].items():
        out.append(f"- dump {idx} {markdown_code(d['pass'])} ({markdown_code(d['scope'])}): "
                   f"{d['definite']} definite, {d['possible']} possible")  # fmt: skip
        out += [f"  - {_finding(x)}" for x in d["findings"][:5]]
    b = section.get("barrier_all_findings")
    if b is not None:
        out += ["", f"Sync checker (barrier-all): {b['definite']} definite, {b['possible']} "
                    "possible."]  # fmt: skip
        if b.get("scalar"):
            out[-1] += (f" {b['scalar']} of them: a scalar memref.load/store of a vector "
                        "result with no barrier between; bishengir's barrier-all mode before "
                        "AscendNPU-IR 249e119f2 puts none there, so the barrier-all build is no "
                        "clean reference at those lines.")  # fmt: skip
    cmp = section.get("comparison")
    if cmp:
        noise = ", run-to-run noise set apart" if cmp["noise_measured"] else ""
        out += ["", f"Fine vs barrier-all, pass by pass (canonical form{noise}):", "",
                markdown_fenced("\n".join(cmp["text"]))]  # fmt: skip
    rep = section.get("replaced")
    if rep and rep.get("fine") and rep.get("barrier_all"):
        pairs = ", ".join(f"{k} x{n}" for k, n in rep["fine"]["pairs"].items()) or "none"
        bar = ", ".join(f"{k} x{n}" for k, n in rep["barrier_all"]["counts"].items())
        out += ["", markdown_text(f"Flag pairs of the fine final IR: {pairs}; the barrier-all "
                                  f"final IR has {bar} instead.")]  # fmt: skip
    return [*out, ""]


def _finding(x: dict[str, Any]) -> str:
    src = f", python line {x['source_line']}" if x.get("source_line") else ""
    return markdown_text(
        f"line {x['line']}: {x['severity']} {x['kind']} {x['pipes'][0]}->{x['pipes'][1]} "
        f"{x['buffer']}: {x['message']}{src}"
    )
