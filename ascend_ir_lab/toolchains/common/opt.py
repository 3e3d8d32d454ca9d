"""Any MLIR `*-opt` tool (bishengir-opt, triton-opt, mlir-opt, iree-opt...) into a Run.

>>> run = run_opt("bishengir-opt", "k.mlir", "builtin.module(canonicalize,cse)")
>>> [d.label for d in run.timeline.dumps]

The tool runs once with `--mlir-print-ir-after-all` (and `--mlir-timing` where its --help
lists it); the Run has one stage named after the tool, whose log is everything the tool
printed and whose artifact is its output (`-o`). The input is copied into the Run.
"""

from __future__ import annotations

import functools
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from ascend_ir_lab.dumps.builder import read_bytes
from ascend_ir_lab.dumps.stage_timings import stage_timings
from ascend_ir_lab.dumps.zstd_log import stored_log
from ascend_ir_lab.errors import CompilerError, InputError, ToolNotFoundError
from ascend_ir_lab.toolchains.common.env import relevant_env, tool_env
from ascend_ir_lab.toolchains.common.process import (
    DEFAULT_TIMEOUT_S,
    ToolInterrupted,
    ToolTimeoutError,
    run_logged,
)
from ascend_ir_lab.toolchains.common.run import Run, RunWriter
from ascend_ir_lab.toolchains.common.tools import find_tool, first_line, query

PRINT_AFTER_ALL = "--mlir-print-ir-after-all"
TIMING = "--mlir-timing"
# Where an opt tool comes from when it is not on $PATH (named in the error).
PACKAGES = {
    "bishengir-opt": "ascendnpu-ir",
    "triton-opt": "triton (built from source)",
    "mlir-opt": "mlir (an LLVM build)",
    "iree-opt": "iree-base-compiler",
}


def find_opt_tool(tool: str | os.PathLike[str]) -> Path:
    """`tool` as a path, from $PATH, or from the pip package that ships it."""
    path = Path(tool)
    if path.parent != Path(".") or path.is_file():
        if path.is_file() and os.access(path, os.X_OK):
            return path
        raise InputError(f"{path}: not an executable file")
    found = shutil.which(str(tool))
    if found:
        return Path(found)
    try:
        return find_tool(str(tool))
    except ToolNotFoundError:
        raise ToolNotFoundError(str(tool), PACKAGES.get(str(tool), str(tool))) from None


@functools.cache
def tool_flags(tool: Path) -> frozenset[str]:
    """The `--flags` the tool's --help lists (empty when --help cannot be run)."""
    words = (w.split("=", 1)[0] for w in (query(tool, "--help") or "").split())
    return frozenset(w for w in words if w.startswith("--"))


@functools.cache
def tool_version(tool: Path) -> str | None:
    """First line of `tool --version`."""
    return first_line(query(tool, "--version"))


def pipeline_arg(pass_pipeline: str) -> str:
    """--pass-pipeline's value; a bare list ('canonicalize,cse') is anchored on the module."""
    text = pass_pipeline.strip()
    if not text:
        raise InputError("--pass-pipeline is empty: give e.g. 'builtin.module(canonicalize,cse)'")
    return text if "(" in text else f"builtin.module({text})"


def run_opt(
    tool: str | os.PathLike[str],
    input_path: str | os.PathLike[str],
    pass_pipeline: str | None,
    *,
    extra_args: Sequence[str] = (),
    timing: bool = True,
    name: str | None = None,
    out: str | os.PathLike[str] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    check: bool = True,
) -> Run:
    """Run `tool INPUT --pass-pipeline=... --mlir-print-ir-after-all` into a Run folder.

    `pass_pipeline` may be None when `extra_args` select the passes (`-canonicalize -cse`).
    With `check`, a failing tool raises CompilerError (the Run is still written: its log
    holds the `IR Dump After ... Failed` and the diagnostics).
    """
    exe = find_opt_tool(tool)
    source = Path(input_path)
    if not source.is_file():
        raise InputError(f"{source}: no such MLIR file")
    stage = exe.name
    writer = RunWriter.create(
        name or f"{source.stem}-{stage}",
        {
            "toolchain": "opt",
            "target": stage,
            "kernel": {"name": source.stem, "source": None},
            "versions": {stage: tool_version(exe)},
        },
        out,
    )
    copied = writer.artifact_path(f"input{source.suffix or '.mlir'}")
    shutil.copyfile(source, copied)
    output = writer.artifact_path(f"output{source.suffix or '.mlir'}")
    flags = tool_flags(exe)
    use_timing = timing and TIMING in flags
    command = [str(exe), str(copied)]
    if pass_pipeline is not None:
        command.append(f"--pass-pipeline={pipeline_arg(pass_pipeline)}")
    command += [*extra_args, PRINT_AFTER_ALL, *([TIMING] if use_timing else []), "-o", str(output)]
    env = tool_env()
    writer.set("env", relevant_env(env))
    writer.set_extra("input", source.name)
    writer.set_extra("timing", "on" if use_timing else ("not supported" if timing else "off"))
    try:
        result = run_logged(
            command,
            log=writer.log_path(stage),
            env=env,
            timeout=timeout,
            package=PACKAGES.get(stage, stage),
        )
    except (ToolTimeoutError, ToolInterrupted) as exc:
        result = exc.result  # recorded below, before anything is raised
    except BaseException:
        writer.release()
        raise
    ok = result.returncode == 0 and output.is_file() and result.status is None
    writer.add_stage(
        {
            "name": stage,
            "log": writer.relative(result.log),
            "artifact": writer.relative(output) if ok else None,
            "command": result.command,
            "returncode": result.returncode,
            "seconds": round(result.seconds, 4),
            "timings": stage_timings(result.log),
            **({"status": result.status} if result.status else {}),
        }
    )
    if ok:
        return writer.finish("ok", "pipeline finished")
    if result.status == "interrupted":
        writer.finish("interrupted", f"{stage} interrupted")
        raise KeyboardInterrupt
    how = "timed out" if result.status else f"exited with code {result.returncode}"
    run = writer.finish("compile-error", f"{stage} {how}")
    if check:
        raise CompilerError(
            result.command,
            result.returncode,
            f"{_diagnostics(result.log)}{result.tail(12)}\n  run: {run.path}",
            stage=stage,
        )
    return run


def _diagnostics(log: Path, limit: int = 10) -> str:
    """The tool's `error:` lines (a timing report may follow them and fill the tail)."""
    found: list[str] = []
    try:
        text = read_bytes(stored_log(log))
    except InputError:
        return ""
    pos = text.find(b"error:")
    while pos >= 0 and len(found) < limit:
        start = text.rfind(b"\n", 0, pos) + 1
        end = text.find(b"\n", pos)
        end = len(text) if end < 0 else end
        raw = bytes(text[start:end])
        if not raw.startswith((b" ", b"\t")):
            found.append(raw.decode("utf-8", "replace").rstrip())
        pos = text.find(b"error:", end)
    return "".join(line + "\n" for line in found)
