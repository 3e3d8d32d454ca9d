"""The stages of an Ascend compile that are one tool call each, and how a failed stage ends
its Run: triton-adapter-opt (run with every pass printed, or taken from what triton-ascend
wrote while compiling), where bishengir-compile leaves its binary, and `StageFailedError` /
`RunInterrupted`, which carry the Run. `compile.py` strings them together."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ascend_ir_lab.dumps.zstd_log import stored_log
from ascend_ir_lab.errors import CompilerError
from ascend_ir_lab.toolchains.ascend import options as opts_mod
from ascend_ir_lab.toolchains.ascend.stages import stage_record
from ascend_ir_lab.toolchains.common.process import ToolResult, run_logged
from ascend_ir_lab.toolchains.common.run import Run, RunWriter
from ascend_ir_lab.toolchains.common.tool_log import first_located_error
from ascend_ir_lab.toolchains.common.tools import find_tool

__all__ = [
    "RunInterrupted",
    "StageFailedError",
    "adapter_from_triton",
    "adapter_stage",
    "binary_output",
    "fail_stage",
    "ttir_artifact",
]


class StageFailedError(CompilerError):
    """A stage of a compile failed; the Run (with the tool's full log) is in `.run`."""

    def __init__(self, result: ToolResult, stage: str, run: Run) -> None:
        tail = result.tail(40)
        said = first_located_error(result.log)
        if said and said not in tail:  # the compiler's reason, above the module it printed
            tail = f"{said}\n...\n{tail}"
        if result.status == "timed-out":
            tail = f"{result.status}: the whole process group was killed\n{tail}"
        super().__init__(result.command, result.returncode, tail, stage=stage)
        self.run = run
        # the ttir stage's: the exception triton's frontend raised (a CompilationError), in
        # this process, which a launch raises as triton's own launch does
        self.frontend_error: BaseException | None = None
        log = stored_log(result.log)
        self.args = (f"{self.args[0]}\n  full log: {log}\n  run: {run.path}",)


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a compile: the Run, with the stopped stage and its log, is in `.run`."""

    def __init__(self, run: Run, stage: str) -> None:
        where = f" in stage {stage}" if stage else ""
        super().__init__(f"interrupted{where}; the Run so far: {run.path}")
        self.run = run
        self.stage = stage


def adapter_command(ttir: Path, npu_opts: Any, env: Mapping[str, str], output: Path) -> list[str]:
    return [
        str(find_tool("triton-adapter-opt")),
        str(ttir),
        *opts_mod.adapter_args(npu_opts, env),
        "-o",
        str(output),
    ]


def adapter_from_triton(
    writer: RunWriter, ttir: Path, npu_opts: Any, env: Mapping[str, str]
) -> bool:
    """A cheap record's adapter stage: the .ttadapter triton-ascend wrote while compiling
    (the same triton-adapter-opt call), with the command that makes it; False if none."""
    made = [p for p in ttir.parent.iterdir() if p.suffix in (".ttadapter", ".bcmlir")]
    if not made:
        return False
    command = adapter_command(ttir, npu_opts, env, made[0])
    writer.add_stage(
        {"name": "adapter", "log": None, "artifact": writer.relative(made[0]),
         "command": command, "returncode": 0, "seconds": 0.0, "made_by": "triton"}
    )  # fmt: skip
    return True


def adapter_stage(
    writer: RunWriter,
    ttir: Path,
    npu_opts: Any,
    env: Mapping[str, str],
    timeout: float,
    dumps: bool = True,
) -> ToolResult:
    """triton-adapter-opt with triton-ascend's options plus --mlir-print-ir-after-all."""
    output = writer.artifact_path("adapter.mlir")
    command = adapter_command(ttir, npu_opts, env, output)
    if dumps:
        command.insert(-2, opts_mod.PRINT_AFTER_ALL)
    result = run_logged(
        command, log=writer.log_path("adapter"), env=env, timeout=timeout, package="triton-ascend"
    )
    artifact = output if output.is_file() and result.returncode == 0 else None
    writer.add_stage(stage_record(writer, "adapter", result, artifact))
    return result


def binary_output(stem: Path) -> Path | None:
    for candidate in (stem.with_name("kernel.o"), stem.with_name("kernel_reloc.o"), stem):
        if candidate.is_file():
            return candidate
    return None


def ttir_artifact(writer: RunWriter) -> Path | None:
    art = writer.manifest["stages"][0].get("artifact") if writer.manifest["stages"] else None
    return writer.path / art if art else None


def fail_stage(writer: RunWriter, stage: str, check: bool, result: ToolResult | None = None) -> Run:
    record = next(s for s in writer.manifest["stages"] if s["name"] == stage)
    text = f"stage {stage} failed with exit code {record['returncode']}"
    run = writer.finish("compile-error", text)
    if check:
        if result is None:
            log = writer.path / record["log"]
            result = ToolResult(record["command"], record["returncode"], record["seconds"], log)
        error = StageFailedError(result, stage, run)
        if stage == "ttir":
            error.frontend_error = getattr(writer, "frontend_error", None)
        raise error
    return run
