"""The Python side of the canonical form's twin: canonical_lines (every line kept where it is,
the form the viewer's diffs show) gives the golden corpus's `expected`
(tests/data/golden/canonical.json, read by the viewer's tests too); an argument inserted
first changes the signature line only, in comparable_lines too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ascend_ir_lab.analysis.canonical import canonical_lines, comparable_lines

CASES = json.loads(
    (Path(__file__).parents[1] / "data" / "golden" / "canonical.json").read_text("utf-8")
)["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_canonical_form_as_written(case: dict[str, Any]) -> None:
    assert canonical_lines(case["lines"]) == case["expected"]


def test_an_inserted_argument_changes_only_the_signature() -> None:
    before, after = (c["expected"] for c in CASES[:2])
    assert len(before) == len(after)
    differing = [k for k, (x, y) in enumerate(zip(before, after, strict=True)) if x != y]
    assert len(differing) == 1 and after[differing[0]].startswith("func.func @vadd(%i64_0: i64")


def test_the_full_form_also_keeps_an_inserted_argument_to_the_signature() -> None:
    before, after = (comparable_lines(c["lines"]) for c in CASES[:2])
    assert len(before) == len(after)
    assert sum(x != y for x, y in zip(before, after, strict=True)) == 1
