"""Stage records of a Run, and the in-process `ttir` stage written into a Run."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ascend_ir_lab.dumps.stage_timings import stage_timings
from ascend_ir_lab.toolchains.common.process import ToolInterrupted, ToolResult
from ascend_ir_lab.toolchains.common.run import RunWriter


def stage_record(
    writer: RunWriter, name: str, result: ToolResult, artifact: Path | None, **more: Any
) -> dict[str, Any]:
    """The run.json record of a finished stage."""
    return {
        "name": name,
        "log": writer.relative(result.log),
        "artifact": writer.relative(artifact),
        "command": list(result.command),
        "returncode": result.returncode,
        "seconds": round(result.seconds, 4),
        **more,
    }


def ttir_command(
    spec: str | None,
    writer: RunWriter,
    kernel_name: str,
    sig: Mapping[str, str],
    consts: Mapping[str, Any],
    target: str,
    options: Mapping[str, Any],
    attrs: Mapping[str, Any] | None = None,
) -> list[str]:
    """The stand-alone command that redoes the ttir stage (what the Run records)."""
    if spec is not None:
        file_part, _, kname = spec.rpartition("::")
        spec = f"{Path(file_part).resolve()}::{kname}"
    else:
        spec = f"{writer.path.resolve() / 'source.py'}::{kernel_name}"
    command = [
        sys.executable,
        "-m",
        "ascend_ir_lab.toolchains.ascend.ttir_stage",
        spec,
        "--signature",
        ",".join(f"{k}={v}" for k, v in sig.items()),
    ]
    command += [f"--constexpr={k}={json.dumps(v, default=str)}" for k, v in consts.items()]
    command += [f"--option={k}={json.dumps(v, default=str)}" for k, v in options.items()]
    if attrs is not None:
        command += ["--attrs", json.dumps(attrs)]
    return [*command, "--target", target, "--out", str(writer.path.resolve() / "artifacts")]


def add_ttir_stage(
    writer: RunWriter,
    fn: Any,
    spec: str | None,
    sig: Mapping[str, str],
    consts: Mapping[str, Any],
    target: str,
    options: Mapping[str, Any],
    attrs: Mapping[str, Any] | None = None,
    dumps: bool = True,
) -> Path | None:
    """Run stage 1 into the Run; returns the .ttir artifact, or None if there is none."""
    from ascend_ir_lab.toolchains.ascend.ttir_stage import run_ttir_stage

    log = writer.log_path("ttir")
    out = writer.path / "artifacts"
    kernel_name = writer.manifest["kernel"]["name"]
    command = ttir_command(spec, writer, kernel_name, sig, consts, target, options, attrs)
    start = time.perf_counter()
    try:
        result = run_ttir_stage(
            fn,
            sig,
            consts,
            target=target,
            options=options,
            log=log,
            out_dir=out,
            attrs=attrs,
            dumps=dumps,
        )
    except KeyboardInterrupt:
        seconds = time.perf_counter() - start
        raise ToolInterrupted(ToolResult(command, -2, seconds, log, "interrupted")) from None
    ok = result.ttir is not None
    tool = ToolResult(command, 0 if ok else 1, result.seconds, log)
    record = stage_record(writer, "ttir", tool, result.ttir, timings=stage_timings(log))
    with writer.held():
        writer.add_stage(record)
        writer.set_extra("triton_files", sorted(writer.relative(p) for p in result.files.values()))
        writer.set_extra("triton_binary_step", result.binary_step)
        if not ok:
            writer.set_extra("ttir_error", result.error)
    # in this process only, for the launch to raise what triton's own launch raises
    writer.frontend_error = None if ok else result.exception  # type: ignore[attr-defined]
    return result.ttir
