"""The MLIR Pygments lexer: built from the viewer's grammar, round-trips any input, no Error."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments.token import STANDARD_TYPES, Error, string_to_tokentype

from ascend_ir_lab.lexer import MLIRLexer, load_grammar

DATA = Path(__file__).resolve().parent / "data" / "ascend"
FIXTURES = [
    "vadd.ttir",
    "matmul.ttadapter",
    "attention.ttir",
    "failed.log",
    "vadd.bishengir.log.gz",
]


def read(name: str) -> str:
    raw = (DATA / name).read_bytes()
    if name.endswith(".gz"):
        raw = gzip.decompress(raw)
    return raw.decode("utf-8", errors="replace")


def roundtrip(text: str) -> list[tuple[object, str]]:
    tokens = list(MLIRLexer().get_tokens(text))
    expected = text.replace("\r\n", "\n").replace("\r", "\n")
    if not expected.endswith("\n"):
        expected += "\n"
    assert "".join(v for _, v in tokens) == expected
    assert not [v for t, v in tokens if t in Error]
    return tokens


@pytest.mark.parametrize("name", FIXTURES)
def test_real_dumps_round_trip_without_error_tokens(name: str) -> None:
    roundtrip(read(name)[:400_000])


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_round_trips(text: str) -> None:
    roundtrip(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(['%arg0', '^bb1', '@k', '#loc3', '!tt.ptr<f32>', '"s\\"x"', '// c', '0x1F',
                                 '-1.5e3', 'memref<4xf16>', 'hivm.hir.set_flag', '[', ']', '->', ' ', '\n',
                                 '"unterminated', '\\', '\t', 'é', '\u2028']), max_size=40))  # fmt: skip
def test_mlir_like_fragments_round_trip(parts: list[str]) -> None:
    roundtrip("".join(parts))


def kinds(line: str) -> list[tuple[str, str]]:
    return [(str(t), v) for t, v in MLIRLexer().get_tokens(line) if v.strip()]


def test_tokens_of_a_hivm_line() -> None:
    line = "  hivm.hir.set_flag[<PIPE_M>, <PIPE_FIX>, <EVENT_ID0>] loc(#loc3) // sync"
    got = kinds(line)
    assert got[0] == ("Token.Name.Builtin", "hivm.hir.set_flag")
    assert ("Token.Keyword", "loc") in got
    assert ("Token.Name.Constant", "#loc3") in got
    assert got[-1] == ("Token.Comment.Single", "// sync")


def test_tokens_of_an_op_with_ssa_symbols_and_types() -> None:
    got = kinds('%0 = tt.call @f(%arg0) : (!tt.ptr<f32>) -> i32 ^bb2 "str" 42 1.5')
    assert got[0] == ("Token.Name.Variable", "%0")
    assert ("Token.Name.Builtin", "tt.call") in got
    assert ("Token.Name.Function", "@f") in got
    assert ("Token.Keyword.Type", "!tt.ptr") in got
    assert ("Token.Keyword.Type", "i32") in got
    assert ("Token.Name.Label", "^bb2") in got
    assert ("Token.Literal.String.Double", '"str"') in got
    assert ("Token.Literal.Number.Integer", "42") in got
    assert ("Token.Literal.Number.Float", "1.5") in got


def test_grammar_is_portable_to_javascript() -> None:
    # The viewer compiles the same regexes in JavaScript: keep to the common subset.
    for rule in load_grammar()["rules"]:
        rx = rule["regex"]
        re.compile(rx)
        assert "(?P" not in rx and "(?<" not in rx and "\\b" not in rx and "\\A" not in rx, rule[
            "name"
        ]
        assert re.compile(rx).groups == 0, (
            f"{rule['name']}: capture groups break the combined regex"
        )
        assert not re.fullmatch(rx, ""), f"{rule['name']} matches the empty string"
        token = string_to_tokentype(rule["token"])
        assert token in STANDARD_TYPES, f"{rule['name']}: {rule['token']} is no Pygments token type"
    assert load_grammar()["rules"][-1]["regex"] == "[\\s\\S]"


def test_registered_as_pygments_entry_point() -> None:
    from importlib.metadata import entry_points

    eps = [e for e in entry_points(group="pygments.lexers") if e.name == "mlir"]
    if not eps:
        pytest.skip("ascend-ir-lab is not installed (pip install -e .): entry point not visible")
    from pygments.lexers import get_lexer_by_name

    assert isinstance(get_lexer_by_name("mlir"), MLIRLexer)
