"""`inspect --json` writes its Dump and Message records as text of its own (the strings a log
repeats encoded once): each record reads back as the Timeline says, whatever its strings hold."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from ascend_ir_lab.cli.common import dump_record_texts, message_record_texts
from ascend_ir_lab.cli.jsonout import number
from ascend_ir_lab.dumps import open_timeline
from tests.conftest import ASCEND, DATA

_STATES = {"changed": True, "unchanged": False, "unknown": None}
# A pass name and a message that hold what JSON must escape or a terminal acts on: a quote,
# backslashes, a C1 control, a bidi override, an invalid byte, an escape sequence.
ODD = (
    b'// -----// IR Dump After Odd"Pass\\\\x \xc2\x9b\xe2\x80\xae\xed\xa0\x80 (odd) //----- //\n'
    b"module {\n  func.func @f() {\n    return\n  }\n}\n\n\n"
    b"// -----// IR Dump After CSE (cse) //----- //\n"
    b"module {\n  func.func @f() {\n    return\n  }\n}\n\n"
    b'error: a message "quoted" \\ back \x1b[31m red \xff bad\n'
)


@pytest.fixture(params=["odd", "matmul", "changed"])
def log(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    if request.param == "odd":
        path = tmp_path / "odd.log"
        path.write_bytes(ODD)
        return path
    return (
        ASCEND / "matmul.bishengir.log.gz"
        if request.param == "matmul"
        else DATA / "llvm" / "changed.log"
    )


def test_each_record_reads_back_as_the_timeline_says(log: Path) -> None:
    tl = open_timeline(log)
    states = tl.change_states()
    texts = list(dump_record_texts(tl, tl.dumps, states))
    assert len(texts) == len(tl.dumps) > 1
    for d, text in zip(tl.dumps, texts, strict=True):
        assert json.loads(text) == {
            "index": d.index, "stage": d.stage, "pass": d.pass_name, "arg": d.arg,
            "scope": d.scope, "phase": d.phase, "changed": _STATES[states[d.index]],
            "lines": tl.line_count(d), "truncated": d.truncated, "options": d.options,
            "span": [d.start, d.end], "seconds": tl.seconds(d),
        }  # fmt: skip
    messages = list(message_record_texts(tl.messages))
    for m, text in zip(tl.messages, messages, strict=True):
        assert json.loads(text) == {
            "stage": m.stage,
            "after": m.after,
            "level": m.level,
            "text": m.text,
            "pass": m.pass_name,
            "banner": m.banner,
        }
    assert len(messages) == len(tl.messages)


def test_the_odd_strings_come_back_whole(tmp_path: Path) -> None:
    path = tmp_path / "odd.log"
    path.write_bytes(ODD)
    tl = open_timeline(path)
    first = json.loads(next(dump_record_texts(tl, tl.dumps, tl.change_states())))
    assert (
        first["pass"] == tl.dumps[0].pass_name
        and '"' in first["pass"]
        and "\u202e" in first["pass"]
    )
    (text,) = [json.loads(t) for t in message_record_texts(tl.messages) if "quoted" in t]
    assert "\x1b[31m" in text["text"] and "\ufffd" in text["text"]


@pytest.mark.parametrize(
    "value", [None, 0.0, 1e-05, 0.1, 2.5, 1e300, math.nan, math.inf, -math.inf]
)
def test_a_number_is_written_as_the_encoders_write_it(value: float | None) -> None:
    finite = value is not None and math.isfinite(value)
    assert number(value) == (json.dumps(value) if finite else "null")
