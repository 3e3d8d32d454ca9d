"""Pygments lexer for MLIR, built from the grammar the viewer uses (static/mlir-grammar.json)."""

from __future__ import annotations

import json
import re
from typing import Any

from pygments.lexer import RegexLexer
from pygments.token import _TokenType, string_to_tokentype

from ascend_ir_lab.package_data import static_text

__all__ = ["MLIRLexer", "load_grammar"]

GRAMMAR_FILE = "mlir-grammar.json"


def load_grammar() -> dict[str, Any]:
    """Return the shared MLIR grammar (rules in match order) as parsed JSON."""
    grammar: dict[str, Any] = json.loads(static_text(GRAMMAR_FILE))
    return grammar


def _root_rules() -> list[tuple[str, _TokenType]]:
    return [(rule["regex"], string_to_tokentype(rule["token"])) for rule in load_grammar()["rules"]]


class MLIRLexer(RegexLexer):
    """MLIR (and MLIR-like IR dumps: TTIR, TTGIR, HIVM) from the shared viewer grammar.

    Every input round-trips: the grammar's last rule takes any single character, so no
    ``Error`` token is ever produced.
    """

    name = "MLIR"
    aliases = ["mlir"]
    filenames = ["*.mlir", "*.ttir", "*.ttgir", "*.ttadapter"]
    mimetypes = ["text/x-mlir"]
    url = "https://mlir.llvm.org/docs/LangRef/"
    flags = re.MULTILINE
    tokens = {"root": _root_rules()}

    def __init__(self, **options: Any) -> None:
        # Keep leading/trailing blank lines: dumps are compared line by line.
        options.setdefault("stripnl", False)
        super().__init__(**options)
