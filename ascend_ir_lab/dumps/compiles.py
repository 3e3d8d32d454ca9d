"""Where one log holds several compiles (a log appended to run after run, every kernel or
autotune config of a script through the same pipeline): each compile's first pass has no
predecessor in the compile before it.

A compile starts where the log's opening run of passes starts again, in order and on the
same scopes (a function pipeline run on the next function names another scope): at least
MIN_RUN passes (fewer are too common to say so), or an `IR Dump At Start`, which only a
compile's start prints. An opening run that repeats itself (`canonicalize, cse,
canonicalize, cse`) cannot tell a restart from its own next round: no split then.
"""

from __future__ import annotations

from collections.abc import Sequence

from ascend_ir_lab.dumps.model import Dump, LogInfo

MIN_RUN = 3
MAX_RUN = 8


def compile_starts(dumps: Sequence[Dump]) -> list[int]:
    """The indices (`Dump.index`) of the Dumps after the first where a compile starts."""
    passes = [d for d in dumps if d.phase != "artifact" and d.family != "mlir-internal"]
    if len(passes) < 2:
        return []
    starts = [d.index for d in passes[1:] if d.phase == "start"]
    if starts or passes[0].phase == "start":
        return starts
    labels = [(d.phase, d.label, d.scope) for d in passes]
    run = labels[: min(MAX_RUN, len(labels) // 2)]
    if len(run) < MIN_RUN or _periodic(run):
        return []
    width, first = len(run), run[0]
    out, k = [], width
    while k + width <= len(labels):
        if labels[k] == first and labels[k : k + width] == run:
            out.append(passes[k].index)
            k += width
        else:
            k += 1
    return out


def _periodic(run: list[tuple[str, str, str]]) -> bool:
    """Whether `run` repeats a shorter run of its own (then its restart is no sign)."""
    n = len(run)
    return any(run[p:] == run[: n - p] for p in range(1, n // 2 + 1))


def state_chains(logs: Sequence[LogInfo], dumps: Sequence[Dump]) -> list[int] | None:
    """For every Dump, the chain of states it belongs to (a Dump's predecessor is in its
    chain): one per stream of a line-prefixed file and per compile of a log; a stage file
    joins the last chain of its stage. None where the whole Timeline is one chain."""
    if not any(info.prefix or info.compiles for info in logs):
        return None
    ids: dict[tuple[str, int], int] = {}
    latest: dict[str, int] = {}
    count = [0] * len(logs)
    starts = [set(info.compiles) for info in logs]
    out = []
    for d in dumps:
        if d.phase == "artifact" and d.stage in latest:
            out.append(latest[d.stage])
            continue
        if d.index in starts[d.log_id]:
            count[d.log_id] += 1
        chain = ids.setdefault((logs[d.log_id].prefix, count[d.log_id]), len(ids))
        latest[d.stage] = chain
        out.append(chain)
    return out
