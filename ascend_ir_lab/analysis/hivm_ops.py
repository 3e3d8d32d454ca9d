"""What each HIVM op does to the pipes and the buffers: the op table of the sync checker.

The pipes follow the op definitions of the HIVM dialect (AscendNPU-IR, `HIVMDMAOps.td`,
`HIVMVectorOps.td`, `HIVMMacroOps.td`, `HIVMOps.td` and `GetPipe.cpp`): `load`/`nd2nz`/
`load_scale` run on MTE2, `store`/`nz2nd` on MTE3, `l12ub` on MTE1, `fixpipe` on FIX, vector
ops on V (`vbrc` into L1 on MTE2), `copy` by its source and destination address spaces, and
the local matmuls (`mmadL1`...) are macro ops reading L1 on MTE1 and writing L0C on M, with
the waits and sets their `sync_related_args` name done inside the op.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ascend_ir_lab.analysis.canonical import split_top
from ascend_ir_lab.analysis.sync_ops import SYNC_OPS

__all__ = ["HivmOp", "parse_op"]

_NAME = re.compile(r"\bhivm\.hir\.(?P<name>[A-Za-z_][\w]*)")
_BRACKET = re.compile(r"^\s*\[(?P<args>[^\]]*)\]")
_FLAG = re.compile(r"\bflag\s*=\s*(?P<flag>%[\w$.-]+|-?\d+)")
_SPACE = re.compile(r"#hivm\.address_space<(\w+)>")
_SYNC_ARGS = re.compile(r"sync_related_args\((?P<vals>[^:)]*)")
_PIPE_ATTR = re.compile(r"\bPIPE_[A-Z0-9]+")

_FIXED = {
    "load": "PIPE_MTE2", "nd2nz": "PIPE_MTE2", "load_scale": "PIPE_MTE2",
    "store": "PIPE_MTE3", "nz2nd": "PIPE_MTE3", "l12ub": "PIPE_MTE1", "fixpipe": "PIPE_FIX",
    "gather_load": "PIPE_V", "scatter_store": "PIPE_V", "stride_load": "PIPE_V",
    "stride_store": "PIPE_V", "indirect_load": "PIPE_V", "indirect_store": "PIPE_V",
    "embedding_gather": "PIPE_V", "gatherT": "PIPE_V", "index_put": "PIPE_V", "scatterT": "PIPE_V",
}  # fmt: skip
_COPY = {("ub", "ub"): "PIPE_V", ("cc", "gm"): "PIPE_FIX", ("gm", "cbuf"): "PIPE_MTE2",
         ("ub", "cbuf"): "PIPE_MTE3"}  # fmt: skip
_MACRO = {"mmadL1", "batchMmadL1", "mmadMxL1", "Conv1dL1", "Conv2dL1", "Conv3dL1"}
# ops that touch no buffer through a pipe (scalar set-up, address casts, queries)
_NO_PIPE = {"pointer_cast", "get_block_idx", "get_block_num", "get_sub_block_idx",
            "get_sub_block_num", "get_sys_cnt", "set_mask_norm", "set_ffts_base_addr", "set_ctrl",
            "set_atomic", "bitcast", "convert_layout", "debug", "init_debug", "finish_debug",
            "multi_buffer_counter", "create_sync_block_lock", "sync_block_lock",
            "sync_block_unlock", "free_lock_var", "anchor", "dcci", "load_scalar"}  # fmt: skip


@dataclass
class HivmOp:
    """One HIVM op as the checker sees it."""

    name: str
    kind: str  # "sync", "access", "macro", "custom", "other"
    pipe: str = ""  # the pipe it runs on (macro ops: their input pipe)
    out_pipe: str = ""  # macro ops: the pipe that writes the result
    args: tuple[str, ...] = ()  # sync ops: the bracketed arguments, `<...>` stripped
    flag: str = ""  # sync_block_set/wait: the flag (a number or an SSA value)
    reads: list[tuple[str, str]] = field(default_factory=list)  # (value, address space)
    writes: list[tuple[str, str]] = field(default_factory=list)
    sync_args: list[str] = field(default_factory=list)  # macro ops: sync_related_args


_PARENS = re.compile(r"[()]")


def _operands(text: str, keyword: str) -> list[tuple[str, str]]:
    """`ins(%a, %b : T1, T2)` -> [(%a, space of T1), ...] (non-values left out)."""
    at = text.find(f"{keyword}(")
    if at < 0:
        return []
    depth, j = 0, len(text) - 1  # unbalanced: up to the last character
    for m in _PARENS.finditer(text, at + len(keyword)):
        depth += 1 if m.group() == "(" else -1
        if depth == 0:
            j = m.start()
            break
    inner = text[at + len(keyword) + 1 : j]
    values, _, types = inner.partition(" : ")
    names = split_top(values)
    kinds = split_top(types) if types else []
    out = []
    for k, name in enumerate(names):
        if not name.startswith("%"):
            continue
        space = _SPACE.search(kinds[k]) if k < len(kinds) else None
        if k < len(kinds) and not kinds[k].startswith("memref"):
            continue
        out.append((name, space.group(1) if space else "gm"))
    return out


def parse_op(line: str) -> HivmOp | None:
    """The HIVM op on this line, or None (a `hivm.hir.` that is no op, or none at all)."""
    m = _NAME.search(line)
    if not m:
        return None
    name, rest = m["name"], line[m.end() :]
    if name in SYNC_OPS:
        b = _BRACKET.match(rest)
        args = tuple(a.strip().strip("<>") for a in b["args"].split(",")) if b else ()
        f = _FLAG.search(rest)
        return HivmOp(name, "sync", args=args, flag=f["flag"] if f else "")
    if name in _NO_PIPE:
        return HivmOp(name, "other")
    reads, writes = _operands(rest, "ins"), _operands(rest, "outs")
    if name in _MACRO:
        s = _SYNC_ARGS.search(rest)
        sync_args = [v.strip() for v in s["vals"].split(",")] if s else []
        pipes = ("PIPE_MTE1", "PIPE_M")
        return HivmOp(name, "macro", pipes[0], pipes[1], reads=reads, writes=writes,
                      sync_args=sync_args)  # fmt: skip
    pipe = _pipe_of(name, rest, reads, writes)
    if name == "custom":
        return HivmOp(name, "custom", pipe, reads=reads, writes=writes)
    if not pipe:
        return HivmOp(name, "other", reads=reads, writes=writes)
    return HivmOp(name, "access", pipe, reads=reads, writes=writes)


def _pipe_of(
    name: str, rest: str, reads: list[tuple[str, str]], writes: list[tuple[str, str]]
) -> str:
    if name in _FIXED:
        return _FIXED[name]
    if name == "copy" and reads and writes:
        return _COPY.get((reads[0][1], writes[0][1]), "")
    if name == "vbrc":
        return "PIPE_MTE2" if writes and writes[0][1] == "cbuf" else "PIPE_V"
    if name.startswith("v"):
        return "PIPE_V"
    if name in ("custom", "custom_macro"):
        pipe = _PIPE_ATTR.search(rest)
        return pipe.group(0) if pipe else ""
    return ""
