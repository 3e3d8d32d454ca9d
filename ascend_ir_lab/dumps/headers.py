"""Recognise the header line of every pass-dump family MLIR and LLVM print.

Each family is one regular expression; `parse_header` turns a header line into a `Header`.
A line that merely mentions "IR Dump" (a diagnostic, a comment in the IR) matches none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Every family contains this literal: the reader finds candidates with a plain byte search.
MARKER = b"IR Dump"


@dataclass(frozen=True, slots=True)
class Header:
    """What a header line says about the Dump that follows it."""

    family: str  # "mlir", "mlir-internal", "llvm", "llvm-legacy"
    phase: str  # "before", "after" or "failed"
    pass_name: str
    arg: str
    options: str
    scope: str  # "" when the header carries none (old MLIR form): inferred from the body


_MLIR = re.compile(
    r"^// -----// IR Dump (?P<phase>Before|After) (?P<body>.*?)"
    r"(?: \('(?P<op>[^']+)' operation(?:: @(?P<sym>[^)]*))?\))? //----- //\s*$"
)
_MLIR_INTERNAL = re.compile(
    r"^// -----// (?P<owner>\S+) internal IR Dump (?P<phase>Before|After):? (?P<what>.*?)"
    r"(?: //----- //)?\s*$"
)
# One greedy group, split with string search after: nested lazy groups here backtracked
# quadratically over a long line (47 s for one 512 KB header).
_LLVM = re.compile(r"^; \*\*\* IR Dump (?P<phase>Before|After) (?P<rest>.+) \*\*\*\s*$")
_INVALIDATED = " (invalidated)"
_LLVM_LEGACY = re.compile(
    r"^(?:# )?\*\*\* IR Dump (?P<phase>Before|After) (?P<name>.+?)"
    r"(?: \((?P<arg>[\w.<>,:-]*)\))?(?: on (?P<on>\S+))? \*\*\*:?\s*$"
)
# "Name: arg{options}" (newer MLIR) or "Name (arg)" (older MLIR), each optionally " Failed".
_PASS_NEW = re.compile(r"^(?P<name>.+?)(?P<failed> Failed)?: (?P<arg>[^\s{]*)(?P<opts>\{.*\})?$")
_PASS_OLD = re.compile(r"^(?P<name>.+?)(?P<failed> Failed)? \((?P<arg>[^()]*)\)$")
_PASS_BARE = re.compile(r"^(?P<name>.+?)(?P<failed> Failed)?$")


def parse_header(line: str) -> Header | None:
    """Parse one header line (without its newline); None if it is not a header."""
    if line.startswith("// -----// "):
        return _parse_mlir(line)
    if line.startswith("; *** "):
        return _parse_llvm(line)
    if line.startswith("*** ") or line.startswith("# *** "):
        return _parse_legacy(line)
    return None


def _parse_mlir(line: str) -> Header | None:
    m = _MLIR.match(line)
    if m is None:
        m = _MLIR_INTERNAL.match(line)
        if m is None:
            return None
        owner, what = m["owner"], m["what"].strip()
        return Header("mlir-internal", m["phase"].lower(), f"{owner}: {what}", owner, "", "")
    body = m["body"]
    p = _PASS_NEW.match(body) or _PASS_OLD.match(body) or _PASS_BARE.match(body)
    assert p is not None  # _PASS_BARE matches any non-empty body
    groups = p.groupdict()
    phase = "failed" if groups.get("failed") else m["phase"].lower()
    scope = ""
    if m["op"]:
        scope = f"{m['op']} @{m['sym']}" if m["sym"] else m["op"]
    opts = (groups.get("opts") or "").removeprefix("{").removesuffix("}")
    return Header("mlir", phase, p["name"], groups.get("arg") or "", opts, scope)


def _parse_llvm(line: str) -> Header | None:
    m = _LLVM.match(line)
    if m is None:
        return None
    name, on, invalid = _split_llvm(m["rest"])
    # "(invalidated)": the pass deleted or invalidated the unit; nothing follows the header.
    options = "invalidated" if invalid else ""
    return Header("llvm", m["phase"].lower(), name, name, options, _llvm_scope(on))


def _split_llvm(rest: str) -> tuple[str, str | None, bool]:
    """'NAME[ on UNIT][ (invalidated)]' -> (NAME, UNIT, invalidated), the first ' on ' ending
    the name, in linear time."""
    at = rest.find(" on ", 1)
    if at >= 0 and len(rest) > at + 4:
        on = rest[at + 4 :]
        invalid = on.endswith(_INVALIDATED) and len(on) > len(_INVALIDATED)
        return rest[:at], on[: -len(_INVALIDATED)] if invalid else on, invalid
    invalid = rest.endswith(_INVALIDATED) and len(rest) > len(_INVALIDATED)
    return (rest[: -len(_INVALIDATED)] if invalid else rest), None, invalid


def _parse_legacy(line: str) -> Header | None:
    m = _LLVM_LEGACY.match(line)
    if m is None:
        return None
    return Header(
        "llvm-legacy", m["phase"].lower(), m["name"], m["arg"] or "", "", _llvm_scope(m["on"])
    )


def _llvm_scope(on: str | None) -> str:
    if not on:
        return ""
    if on in ("[module]", "module"):
        return "module"
    return f"function @{on.strip('()')}"
