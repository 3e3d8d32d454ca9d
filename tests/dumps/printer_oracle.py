"""What a real printer printed, worked out from how it prints, not from the reader: the
Dumps (header line, body) and the other lines of a log, to hold the reader's Timeline against.

- LLVM (`opt`, `llc`): a header line, then the unit's IR up to the next header (so is a
  stage's output a driver prints after them, Triton's `NVPTX Dump`); the lines of
  the known non-IR kinds (`MESSAGES`: pass-manager tracing, opt-bisect, a timing report to the
  next header, anything before the first header) are messages. The legacy CGSCC printer
  writes its IR on the header line, after the stars.
- MLIR (`--mlir-print-ir-*`): a header line, the IR, then two more newlines: the IR ends at
  the first `\\n\\n\\n` (or, where a message came first, at the top-level op's last `}`);
  whatever follows up to the next header is messages.
- `--mlir-print-ir-tree-dir`: one file per Dump (header line, IR): the same pass printed to
  stderr must give the same header and body (matched as a multiset: threads reorder them).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from ascend_ir_lab.dumps import Timeline

_LLVM_HEADER = re.compile(rb"^(?:; |# )?\*\*\* IR (Dump|Pass|Deleted) [^\n]*?\*\*\*(?P<rest>.*)$")
_NO_IR = (
    b" omitted because no change ***",
    b" filtered out ***",
    b" ignored ***",
    b" invalidated ***",
)
MESSAGES = re.compile(
    rb"^(?:Running |Invalidating |Clearing |Skipping |Starting |Finished |BISECT: |\[\d{4}-\d\d-\d\d "
    rb"|Printing <null> Function"
    # the legacy pass manager's -debug-pass=Details: ` -*- 'P' is the last user of ...`,
    # ` -- 'P' is not preserving 'Q'`, `0x55d0...   Required Analyses: ...`
    rb"| -\*- '| -- '|0x[0-9a-f]+ )"
)


# A stage's output a compiler driver prints after the LLVM passes: Triton's
# `print("// -----// NVPTX Dump //----- //"); print(ptx)` (NVPTX_ENABLE_DUMP=1).
_STAGE_HEADER = re.compile(rb"^// -----// [A-Za-z][^\n]* Dump //----- //$")


def _header(line: bytes) -> tuple[bool, bool] | None:
    """(is a Dump header, IR starts on the line) or None for any other line."""
    if _STAGE_HEADER.match(line):
        return (True, False)
    m = _LLVM_HEADER.match(line)
    if m is None:
        return None
    if m[1] != b"Dump" or line.rstrip().endswith(_NO_IR):
        return (False, False)  # a banner: no IR
    rest = m["rest"].strip()
    return (True, bool(rest) and not rest.startswith((b"(", b":")))


def split_llvm(data: bytes) -> tuple[list[bytes], list[bytes]]:
    """(bodies, messages) of an LLVM printer's log."""
    bodies: list[list[bytes]] = []
    messages: list[bytes] = []
    current: list[bytes] | None = None
    in_report = False
    for raw in data.splitlines(keepends=True):
        line = raw.rstrip(b"\r\n")
        kind = _header(line)
        if kind is not None:
            in_report = False
            if kind[0]:
                current = []
                bodies.append(current)
                if kind[1]:
                    stars = line.find(b"***", 4) + 3
                    current.append(raw[stars:])
            else:
                messages.append(line)
                current = None
            continue
        if line.startswith(b"===---"):
            in_report = True
        if in_report or current is None or MESSAGES.match(line):
            if line.strip():
                messages.append(line)
            continue
        current.append(raw)
        if line.startswith(b"# End machine code for function "):
            current = None  # a function's machine code ends so: what follows is output
    return [b"".join(b) for b in bodies], messages


_MLIR_HEADER = re.compile(rb"^// -----// [^\n]*IR Dump[^\n]*$", re.M)
_MLIR_DONE = re.compile(rb"\n\n(?:\n|(?=[^\s{]))")


def split_mlir(data: bytes) -> tuple[list[bytes], list[bytes]]:
    """(bodies, messages) of an MLIR printer's log."""
    heads = list(_MLIR_HEADER.finditer(data))
    messages = [
        ln for ln in data[: heads[0].start() if heads else len(data)].splitlines() if ln.strip()
    ]
    bodies = []
    for k, m in enumerate(heads):
        end = heads[k + 1].start() if k + 1 < len(heads) else len(data)
        region = data[m.end() + 1 : end]
        # a module's IR ends in two blank lines, a function's in one before the next output
        done = _MLIR_DONE.search(region)
        cut = done.start() + 1 if done else 0
        if not cut:  # the trailing newlines came after other output: the op's `}` ends it
            brace = region.rfind(b"\n}\n")
            cut = brace + 3 if brace >= 0 else len(region)
        bodies.append(region[:cut])
        messages += [ln for ln in region[cut:].splitlines() if ln.strip()]
    return bodies, messages


def misreads(tl: Timeline, bodies: list[bytes], messages: list[bytes]) -> list[str]:
    """How the reader's Timeline differs from the printer's output ([] when it does not)."""
    out = []
    if len(tl.dumps) != len(bodies):
        out.append(f"{len(tl.dumps)} dumps read, {len(bodies)} printed")
    for d, body in zip(tl.dumps, bodies, strict=False):
        if tl.raw(d).rstrip() != body.rstrip():
            out.append(f"dump {d.index} ({d.pass_name}): its text is not the body printed")
        if d.truncated:
            out.append(f"dump {d.index} ({d.pass_name}) read as truncated")
    got = [m.text.encode() for m in tl.messages]
    if got != [ln.decode("utf-8", "replace").encode() for ln in messages]:
        extra = [m for m in got if m not in messages][:2]
        lost = [m for m in messages if m not in got][:2]
        out.append(f"messages differ: {len(got)} read, {len(messages)} printed; "
                   f"read as messages {extra}, not read as messages {lost}")  # fmt: skip
    return out


def tree_misreads(tl: Timeline, tree: Path) -> list[str]:
    """How a stderr log's Dumps differ from the tree-dir files the same run printed."""
    files = [p for p in tree.rglob("*.mlir") if p.is_file()]
    pool: Counter[tuple[bytes, bytes, str]] = Counter()
    for f in files:
        head, _, body = f.read_bytes().partition(b"\n")
        pool[(head, body.rstrip(), f.parent.name.removesuffix("_no-symbol-name"))] += 1
    out = [] if len(files) == len(tl.dumps) else [f"{len(tl.dumps)} dumps, {len(files)} files"]
    for d in tl.dumps:
        data = tl.log_bytes(d.log_id)
        head = bytes(data[d.start : d.body_start]).rstrip(b"\r\n")
        # the tree names the folder of the op the pass ran on: `func_func_vadd`
        where = d.scope.replace(".", "_").replace(" @", "_")
        key = (head, tl.raw(d).rstrip(), where)
        if pool[key] <= 0:
            out.append(f"dump {d.index} ({d.pass_name}, scope {d.scope}): no such file in the tree")
        pool[key] -= 1
        if d.truncated:
            out.append(f"dump {d.index} ({d.pass_name}) read as truncated")
    return out
