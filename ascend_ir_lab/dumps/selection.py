"""Which Dump a user means: an index (`12`, `-1`), `first`, `last`, or `[stage:]pass[#k]`,
and for a bare pass name run more than once, the occurrence worth showing first."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ascend_ir_lab.dumps.model import Dump
from ascend_ir_lab.errors import InputError

_WHICH = re.compile(r"^(?P<name>.+?)(?:\[?#(?P<k>-?\d+)\]?)?$")
# `changed` flags of every Dump, by index, computed only where a choice needs them.
Flags = Callable[[], Sequence[bool]]


def select(dumps: Sequence[Dump], stages: Sequence[str], changed: Flags, which: str | int) -> Dump:
    """A Dump by index (`12`, `-1`), `first`, `last`, or `[stage:]pass[#k]` (k from 1)."""
    if not dumps:
        raise InputError("the timeline has no dumps")
    if isinstance(which, int) or str(which).lstrip("-").isdigit():
        i = int(which)
        if not -len(dumps) <= i < len(dumps):
            raise InputError(f"dump index {i} out of range 0..{len(dumps) - 1}")
        return dumps[i]
    which = str(which).strip()
    if which in ("last", "first"):
        return dumps[-1 if which == "last" else 0]
    m = _WHICH.match(which)
    assert m is not None
    name = m["name"]
    hits = occurrences(dumps, stages, which)
    if m["k"] is None:
        return preferred_occurrence(hits, changed())
    k = int(m["k"])
    if not -len(hits) <= (k - 1 if k > 0 else k) < len(hits) or k == 0:
        raise InputError(f"pass {name!r} runs {len(hits)} times; #{k} does not exist")
    return hits[k - 1 if k > 0 else k]


def occurrences(dumps: Sequence[Dump], stages: Sequence[str], which: str) -> list[Dump]:
    """Every Dump of the pass `[stage:]pass` names (an occurrence `#k` is ignored)."""
    m = _WHICH.match(str(which).strip())
    assert m is not None
    name, stage = m["name"], None
    head, sep, rest = name.partition(":")
    if sep and head in stages:
        stage, name = head, rest
    hits = [d for d in dumps if _matches(d, name, stage)]
    if not hits:
        raise InputError(f"no dump of pass {name!r}" + (f" in stage {stage}" if stage else ""))
    return hits


def selection_note(
    dumps: Sequence[Dump], stages: Sequence[str], changed: Flags, which: str | int
) -> str:
    """For a bare pass name run more than once: which occurrence `select` took and what
    the others were ("" otherwise)."""
    text = str(which).strip()
    m = _WHICH.match(text)
    if isinstance(which, int) or text.lstrip("-").isdigit() or text in ("last", "first"):
        return ""
    if m is None or m["k"] is not None:
        return ""
    hits = occurrences(dumps, stages, text)
    if len(hits) < 2:
        return ""
    chosen, flags = select(dumps, stages, changed, text), changed()

    def describe(k: int, d: Dump) -> str:
        what = "changed it" if flags[d.index] else "no change"
        return f"#{k} (dump {d.index}, {d.scope}, {what})"

    others = [describe(k, d) for k, d in enumerate(hits, 1) if d is not chosen]
    if len(others) > 6:
        others = [*others[:6], f"... {len(others) - 6} more"]
    k = hits.index(chosen) + 1
    return f"{chosen.label}: took {describe(k, chosen)} of {len(hits)}; others: " + ", ".join(
        others
    )


def _matches(d: Dump, name: str, stage: str | None) -> bool:
    if stage is not None and d.stage != stage:
        return False
    low = name.lower()
    return d.arg.lower() == low or d.pass_name.lower() == low


def occurrence(dumps: Sequence[Dump], d: Dump) -> int:
    """k such that selecting `f"{label}#{k}"` gives this Dump."""
    return 1 + sum(1 for e in dumps[: d.index] if e.label == d.label)


_HELPER = re.compile(r"_infer_\w*_function$|_host\w*$|^_")


def _kernel_function(scope: str) -> int:
    """2: a half of a mix kernel (`_mix_aic`/`_mix_aiv`); 1: another device function; 0:
    a helper (`_infer_task_type_function`...) or not a function."""
    op, _, symbol = scope.partition(" @")
    if not symbol or op == "builtin.module":
        return 0
    if symbol.endswith(("_mix_aic", "_mix_aiv")):
        return 2
    return 0 if _HELPER.search(symbol) else 1


def preferred_occurrence(hits: Sequence[Dump], changed: Sequence[bool]) -> Dump:
    """What a bare pass name means: the first occurrence that changed a mix-kernel half,
    else one that changed another kernel function, else any that changed, else the first."""
    tiers: tuple[Callable[[Dump], bool], ...] = (
        lambda d: changed[d.index] and _kernel_function(d.scope) == 2,
        lambda d: changed[d.index] and _kernel_function(d.scope) == 1,
        lambda d: changed[d.index],
    )
    for tier in tiers:
        found = next((d for d in hits if tier(d)), None)
        if found is not None:
            return found
    return hits[0]
