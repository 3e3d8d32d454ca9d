"""The Python side of the twins: diff, normalisation, the sync lens and payload validation
against the golden corpus in tests/data/golden, which the viewer's tests read too
(labextension/tests/golden.test.ts). Both must give the answers written there."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.analysis.diff import apply, opcodes
from ascend_ir_lab.analysis.normalize import Normalization, normalize_lines
from ascend_ir_lab.analysis.sync import sync_lens
from ascend_ir_lab.analysis.sync_ops import recognise
from ascend_ir_lab.export import validate_payload

GOLDEN = Path(__file__).parent / "data" / "golden"


def corpus(name: str) -> Any:
    """One file of the golden corpus."""
    return json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))


def _named(cases: list[dict[str, Any]]) -> list[Any]:
    return [pytest.param(c, id=c["name"]) for c in cases]


@pytest.mark.parametrize("case", corpus("sync")["lines"], ids=lambda c: c["line"].strip()[:40])
def test_sync_op_recognised_as_written(case: dict[str, Any]) -> None:
    found = recognise(case["line"])
    got = None if found is None else found[0]
    assert got == case["kind"]
    if found is not None:
        assert list(found[1]) == case["args"]
    assert [op.kind for op in sync_lens([case["line"]]).ops] == (
        [case["kind"]] if case["kind"] else []
    )


@pytest.mark.parametrize("case", _named(corpus("sync")["snapshots"]))
def test_set_and_wait_pair_as_written(case: dict[str, Any]) -> None:
    lens = sync_lens(case["lines"])
    pairs = sorted([s.line, w.line] for s, w in lens.pairs)
    assert pairs == sorted(case["pairs"])
    assert [op.line for op in lens.unpaired] == case["unpaired"]


@pytest.mark.parametrize("case", _named(corpus("diff")["cases"]))
def test_diff_keeps_the_common_lines(case: dict[str, Any]) -> None:
    ops = opcodes(case["a"], case["b"])
    assert sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal") == case["equal"]
    assert apply(case["a"], case["b"], ops) == case["b"]


@pytest.mark.parametrize("case", _named(corpus("normalize")["cases"]))
def test_normalisation_as_written(case: dict[str, Any]) -> None:
    norm = Normalization(locations=case["locations"], ssa=case["ssa"])
    assert normalize_lines(case["lines"], norm) == case["expected"]


def payload_case(case: dict[str, Any], base: dict[str, Any]) -> Any:
    """`base` with the case's `set` applied ([path, value]; None deletes), or its `payload`."""
    if "payload" in case:
        return case["payload"]
    out = copy.deepcopy(base)
    for path, value in case["set"]:
        at = out
        for key in path[:-1]:
            at = at[key]
        if value is None:
            del at[path[-1]]
        else:
            at[path[-1]] = value
    return out


PAYLOADS = corpus("payload")


@pytest.mark.parametrize("case", _named(PAYLOADS["valid"]))
def test_valid_payload_passes(case: dict[str, Any]) -> None:
    assert validate_payload(payload_case(case, PAYLOADS["base"])) == []


@pytest.mark.parametrize("case", _named(PAYLOADS["invalid"]))
def test_invalid_payload_is_refused(case: dict[str, Any]) -> None:
    problems = validate_payload(payload_case(case, PAYLOADS["base"]))
    assert problems and all(isinstance(p, str) and p for p in problems)
