"""The structure checks of a payload that the viewer makes too (labextension/src/viewer/payload.ts):
IR lines are text, stages a list of named objects, each Dump's stage and predecessor exist,
each note names a Dump. tests/data/golden/payload.json pins both sides."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard

__all__ = ["structure_problems"]


def _is_int(v: object) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _line_problems(lines: object) -> list[str]:
    if not isinstance(lines, list):
        return ["lines is not a list"]
    bad = next((k for k, s in enumerate(lines) if not isinstance(s, str)), None)
    return [] if bad is None else [f"line {bad} is not text"]


def _stage_problems(stages: object) -> list[str]:
    if not isinstance(stages, list):
        return ["stages is not a list"]
    for k, s in enumerate(stages):
        if not isinstance(s, Mapping) or not isinstance(s.get("name"), str):
            return [f"stage {k} is not an object with a name"]
    return []


def _dump_problems(dumps: object, n_stages: int) -> list[str]:
    if not isinstance(dumps, list):
        return ["dumps is not a list"]
    problems = []
    for k, d in enumerate(dumps):
        if not isinstance(d, Mapping):
            problems.append(f"dump {k} is not an object")
            continue
        stage, prev = d.get("stage"), d.get("prev")
        if "stage" in d and not (_is_int(stage) and 0 <= stage < n_stages):
            problems.append(f"dump {k} refers to stage {stage!r}, which does not exist")
        if "prev" in d and not (_is_int(prev) and -1 <= prev < k):
            problems.append(f"dump {k} has predecessor {prev!r}, not an earlier dump")
        if "pass" in d and not isinstance(d.get("pass"), str):
            problems.append(f"dump {k} has a pass name that is not text")
    return problems


def _note_problems(notes: object, n_dumps: int) -> list[str]:
    if notes is None:
        return []
    if not isinstance(notes, list):
        return ["notes is not a list"]
    for k, n in enumerate(notes):
        dump = n.get("dump") if isinstance(n, Mapping) else None
        if not (_is_int(dump) and 0 <= dump < n_dumps):
            return [f"note {k} names dump {dump!r}, which does not exist"]
    return []


def structure_problems(payload: Mapping[str, Any]) -> list[str]:
    """Problems with the payload's lines, stages, dumps and notes; empty when sound."""
    stages = payload.get("stages")
    dumps = payload.get("dumps")
    n_stages = len(stages) if isinstance(stages, list) else 0
    n_dumps = len(dumps) if isinstance(dumps, list) else 0
    return (
        _line_problems(payload.get("lines"))
        + _stage_problems(stages)
        + _dump_problems(dumps, n_stages)
        + _note_problems(payload.get("notes"), n_dumps)
    )
