"""Does barrier-all change the outcome? A fine-grained Run against its barrier-all twin.

Compared offline: the final status of each, the sync ops of each final IR, and the
pass-aligned divergence (where the pipelines part, and which passes were substituted). On an
NPU host, the verdict `toolchains.ascend.npu_host.sync_check` recorded is the answer that counts.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ascend_ir_lab.analysis.align import align
from ascend_ir_lab.analysis.ops import Census
from ascend_ir_lab.analysis.sync_ops import SYNC_OPS
from ascend_ir_lab.dumps import Timeline
from ascend_ir_lab.runs import inside, regular_file
from ascend_ir_lab.runs.paths import small_json

__all__ = ["SYNC_OPS", "compare_barrier_all", "recorded_verdict", "sync_counts"]

_VERDICT_MAX_BYTES = 16 << 20


def sync_counts(timeline: Timeline) -> dict[str, int]:
    """Sync ops (hivm set_flag, wait_flag, pipe_barrier, ...) in the Timeline's final IR."""
    if not timeline.dumps:
        return {}
    last = timeline.dumps[-1]
    counts: Counter[str] = Census(timeline).of(last)
    return {op: n for op, n in sorted(counts.items()) if op.rsplit(".", 1)[-1] in SYNC_OPS}


def recorded_verdict(run: Any) -> dict[str, Any] | None:
    """The NPU sync-check verdict a Run carries (extra.sync_check, or a verdict.json in the
    Run folder or in the capture folder it came from), None when it has none."""
    extra = (getattr(run, "manifest", None) or {}).get("extra") or {}
    for key in ("sync_check", "verdict"):
        if isinstance(extra.get(key), dict):
            return dict(extra[key])
    folders = ["."] + (
        [extra["captured_from"]] if isinstance(extra.get("captured_from"), str) else []
    )
    for folder in folders:
        path = inside(run.path, f"{folder}/verdict.json")  # only files inside the Run
        if path is not None and regular_file(path):
            # read bounded and without blocking: a FIFO or 20 GB of holes is no verdict
            data = small_json(path, _VERDICT_MAX_BYTES)
            if isinstance(data, dict):
                return data
    return None


def compare_barrier_all(fine: Any, barrier: Any) -> dict[str, Any]:
    """Plain data: statuses, sync-op counts, aligned passes that differ, first divergence."""
    a, b = fine.timeline, barrier.timeline
    pairs = align(a, b)
    differing = [p for p in pairs if p.differs]
    first = differing[0] if differing else None
    swaps = Counter(f"{p.a.label} → {p.b.label}" for p in pairs if p.substituted and p.a and p.b)
    substituted = [f"{k} (×{n})" if n > 1 else k for k, n in swaps.items()]
    fine_sync, barrier_sync = sync_counts(a), sync_counts(b)
    status_a, status_b = fine.status, barrier.status
    verdict = recorded_verdict(fine) or recorded_verdict(barrier)
    return {
        "fine": {"path": str(fine.path), "status": status_a, "sync_ops": fine_sync},
        "barrier_all": {"path": str(barrier.path), "status": status_b, "sync_ops": barrier_sync},
        "status_changes": status_a != status_b,
        "aligned_passes": len(pairs),
        "differing_passes": len(differing),
        "only_fine": [p.label for p in pairs if p.b is None],
        "only_barrier_all": [p.label for p in pairs if p.a is None],
        "substituted": substituted,
        "first_divergence": None if first is None else {
            "pass": first.label, "fine_dump": first.a.index if first.a else None,
            "barrier_all_dump": first.b.index if first.b else None,
            "stage": _stage_of(first.a, first.b),
        },
        "npu_verdict": verdict,
        "outcome": _outcome(status_a, status_b, verdict),
    }  # fmt: skip


def _stage_of(a: Any, b: Any) -> str | None:
    d = a or b
    return None if d is None else str(d.stage)


def _outcome(fine: str, barrier: str, verdict: dict[str, Any] | None) -> str:
    """One sentence: what barrier-all did to the result."""
    if verdict:
        return f"NPU check: {verdict.get('text') or verdict.get('verdict')}"
    if fine != barrier:
        return f"barrier-all changes the compile outcome: {fine} → {barrier}"
    return (
        f"barrier-all compiles the same way ({fine}); whether it fixes wrong results needs an "
        "NPU run (npu_host.sync_check)"
    )
