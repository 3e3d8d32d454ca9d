"""On an NPU host (torch_npu + CANN): capture the real compiles and run the guide's sync check.

`capture_npu_compiles(folder)` puts a `bishengir-compile` wrapper first on PATH (triton-ascend
looks there before TRITON_NPU_COMPILER_PATH, and only adds its hfusion/hivm flags when the
tool is called `bishengir-compile`). The wrapper records argv and a copy of the input, adds
`--mlir-print-ir-after-all`, keeps stdout for triton-ascend (it parses "UB size" from it) and
sends the IR dumps to a log. `sync_check(launch, folder)` is the guide's workflow in one call.

Verified here (no NPU): the wrapper, the barrier-all command, the binary swap and the verdict.
The launch itself needs an NPU.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ascend_ir_lab.toolchains.ascend.options import PRINT_AFTER_ALL, with_barrier_all
from ascend_ir_lab.toolchains.common.env import patched_environ, tool_env
from ascend_ir_lab.toolchains.common.process import run_logged
from ascend_ir_lab.toolchains.common.tools import find_tool

# `-S`: the wrapper is a tool, not one of the script's Pythons (no capture's sitecustomize)
_WRAPPER = '''#!{python} -S
"""Written by ascend-ir-lab: records this bishengir-compile call, then runs the real one."""
import json, os, shutil, subprocess, sys, time
REAL, RECORD = {real!r}, {record!r}
argv = sys.argv[1:]
inputs = [a for a in argv if a.endswith((".mlir", ".ttadapter", ".bcmlir")) and os.path.isfile(a)]
if not inputs:
    os.execv(REAL, [REAL, *argv])
n = len(os.listdir(RECORD))
here = os.path.join(RECORD, "%03d" % n)
os.makedirs(here)
shutil.copy(inputs[0], os.path.join(here, "input.mlir"))
cmd = [REAL, *argv] + ([] if "{flag}" in argv else ["{flag}"])
start = time.time()
with open(os.path.join(here, "compile.log"), "wb") as log:
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=log)
sys.stdout.buffer.write(proc.stdout)
out = argv[argv.index("-o") + 1] if "-o" in argv else None
for cand in ([out + ".o", out + "_reloc.o", out] if out else []):
    if os.path.isfile(cand):
        shutil.copy(cand, os.path.join(here, "kernel.o"))
        break
with open(os.path.join(here, "call.json"), "w") as fh:
    json.dump({{"argv": [REAL, *argv], "command": cmd, "input": inputs[0], "output": out,
               "returncode": proc.returncode, "seconds": time.time() - start,
               "cwd": os.getcwd()}}, fh, indent=1)
if proc.returncode:
    with open(os.path.join(here, "compile.log"), "rb") as log:
        sys.stderr.buffer.write(log.read()[-8192:])
sys.exit(proc.returncode)
'''


@dataclass(frozen=True)
class Invocation:
    """One recorded bishengir-compile call of triton-ascend."""

    folder: Path
    argv: list[str]  # exactly as triton-ascend called it (the wrapper's flag not included)
    command: list[str]  # what ran (with --mlir-print-ir-after-all)
    returncode: int
    log: Path
    input: Path  # a copy of the adapter IR it compiled
    binary: Path | None


def write_wrapper(folder: Path, real: Path | None = None) -> Path:
    """Create `folder/bin/bishengir-compile` recording into `folder/calls`; returns bin dir."""
    real = real or find_tool("bishengir-compile")
    bin_dir, record = folder / "bin", folder / "calls"
    bin_dir.mkdir(parents=True, exist_ok=True)
    record.mkdir(exist_ok=True)
    script = bin_dir / "bishengir-compile"
    script.write_text(
        _WRAPPER.format(
            python=sys.executable, real=str(real), record=str(record), flag=PRINT_AFTER_ALL
        )
    )
    script.chmod(0o755)
    return bin_dir


def wrapper_env(bin_dir: Path) -> dict[str, str]:
    """The variables that make triton-ascend call the wrapper (and always recompile)."""
    return {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "TRITON_NPU_COMPILER_PATH": str(bin_dir),
        "TRITON_ALWAYS_COMPILE": "1",
    }


@contextlib.contextmanager
def capture_npu_compiles(folder: str | os.PathLike[str]) -> Iterator[Path]:
    """Within the block, every bishengir-compile call of triton-ascend is recorded in
    `folder`; read them afterwards with `invocations(folder)`."""
    bin_dir = write_wrapper(Path(folder))
    with patched_environ(wrapper_env(bin_dir)):
        yield Path(folder)


def invocations(folder: str | os.PathLike[str]) -> list[Invocation]:
    """The calls the wrapper recorded, in order."""
    calls = sorted(p for p in (Path(folder) / "calls").glob("*") if (p / "call.json").is_file())
    result = []
    for here in calls:
        meta = json.loads((here / "call.json").read_text())
        binary = here / "kernel.o"
        result.append(
            Invocation(
                here,
                meta["argv"],
                meta["command"],
                meta["returncode"],
                here / "compile.log",
                here / "input.mlir",
                binary if binary.is_file() else None,
            )
        )
    return result


def barrier_all_command(inv: Invocation, output_stem: Path) -> list[str]:
    """The recorded call with barrier-all sync, on the saved input, writing `output_stem`."""
    args = list(inv.argv[1:])
    if "-o" in args:
        at = args.index("-o")
        del args[at : at + 2]
    args = [str(inv.input) if a == _recorded_input(inv) else a for a in args]
    return [inv.argv[0], *with_barrier_all(args), "-o", str(output_stem)]


def _recorded_input(inv: Invocation) -> str:
    return str(json.loads((inv.folder / "call.json").read_text())["input"])


def build_barrier_all(inv: Invocation, timeout: float = 600.0) -> Path:
    """Compile the barrier-all variant of a recorded call; returns its binary."""
    stem = inv.folder / "barrier-all" / "kernel"
    result = run_logged(
        barrier_all_command(inv, stem),
        log=stem.with_suffix(".log"),
        env=tool_env(),
        timeout=timeout,
    )
    for cand in (stem.with_suffix(".o"), stem.with_name("kernel_reloc.o"), stem):
        if result.returncode == 0 and cand.is_file():
            return cand
    raise result.error("barrier-all")


def cached_binaries(cache_dir: Path, binary: Path) -> list[Path]:
    """The files in the Triton cache whose bytes are this compiled binary."""
    data = binary.read_bytes()
    return [p for p in cache_dir.rglob("*.npubin") if p.read_bytes() == data]


@contextlib.contextmanager
def swapped(target: Path, replacement: Path) -> Iterator[Path]:
    """Put `replacement`'s bytes in place of `target`; the original comes back on exit."""
    backup = target.with_name(target.name + ".ascend-ir-lab.orig")
    shutil.copy2(target, backup)
    try:
        shutil.copyfile(replacement, target)
        yield backup
    finally:
        os.replace(backup, target)


Launch = Callable[[Mapping[str, str]], Sequence[Any]]

VERDICTS = {
    "sync": "barrier-all fixes it: suspect the compiler's sync analysis",
    "not-sync": "not a sync bug: barrier-all gives wrong results too",
    "no-bug": "the fine-grained build matches the reference: nothing to fix",
}


def verdict(
    fine: Sequence[Any],
    barrier: Sequence[Any],
    reference: Sequence[Any],
    *,
    rtol: float = 1e-3,
    atol: float = 1e-3,
) -> tuple[str, str]:
    """(code, text): compare both builds' outputs with the CPU interpreter's."""
    fine_ok = _close(fine, reference, rtol, atol)
    if fine_ok:
        return "no-bug", VERDICTS["no-bug"]
    code = "sync" if _close(barrier, reference, rtol, atol) else "not-sync"
    return code, VERDICTS[code]


def _close(a: Sequence[Any], b: Sequence[Any], rtol: float, atol: float) -> bool:
    import numpy as np

    if len(a) != len(b):
        return False
    return all(
        np.allclose(
            np.asarray(x, dtype=float),
            np.asarray(y, dtype=float),
            rtol=rtol,
            atol=atol,
            equal_nan=True,
        )
        for x, y in zip(a, b, strict=True)
    )


def sync_check(launch: Launch, folder: str | os.PathLike[str]) -> dict[str, Any]:
    """The guide's sync check: fine-grained run, CPU-interpreter reference, barrier-all run
    with the barrier-all binaries swapped into the cache (restored afterwards), verdict.

    `launch(env)` runs the user's kernel launch with `env` as its whole environment (for
    example a subprocess running their script) and returns the output arrays.
    """
    folder = Path(folder)
    cache = folder / "triton-cache"
    bin_dir = write_wrapper(folder)
    fine = launch(tool_env({**wrapper_env(bin_dir), "TRITON_CACHE_DIR": str(cache)}))
    reference = launch(tool_env({"TRITON_INTERPRET": "1", "TRITON_CACHE_DIR": str(cache)}))
    swaps = [
        (target, build_barrier_all(inv))
        for inv in invocations(folder)
        if inv.binary
        for target in cached_binaries(cache, inv.binary)
    ]
    with contextlib.ExitStack() as stack:
        for target, replacement in swaps:
            stack.enter_context(swapped(target, replacement))
        barrier = launch(tool_env({"TRITON_CACHE_DIR": str(cache), "TRITON_ALWAYS_COMPILE": "0"}))
    code, text = verdict(fine, barrier, reference)
    result = {"verdict": code, "text": text, "swapped": [str(t) for t, _ in swaps]}
    (folder / "verdict.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


def invocation_run(
    inv: Invocation, *, name: str = "npu-compile", out: str | os.PathLike[str] | None = None
) -> Any:
    """A Run holding exactly what one recorded compile did (command, log, input, binary)."""
    from ascend_ir_lab.toolchains.common.env import relevant_env
    from ascend_ir_lab.toolchains.common.run import RunWriter
    from ascend_ir_lab.toolchains.common.tools import versions

    target = next((a.split("=", 1)[1] for a in inv.argv if a.startswith("--target=")), None)
    writer = RunWriter.create(
        name,
        {
            "toolchain": "ascend",
            "target": target,
            "env": relevant_env(os.environ),
            "versions": versions(),
        },
        out,
    )
    log = writer.log_path("bishengir")
    shutil.copyfile(inv.log, log)
    source = writer.artifact_path("bishengir-input.mlir")
    shutil.copyfile(inv.input, source)
    binary = None
    if inv.binary:
        binary = writer.artifact_path("kernel.o")
        shutil.copyfile(inv.binary, binary)
    seconds = json.loads((inv.folder / "call.json").read_text()).get("seconds", 0.0)
    writer.add_stage(
        {
            "name": "bishengir",
            "log": writer.relative(log),
            "artifact": writer.relative(binary),
            "command": inv.command,
            "returncode": inv.returncode,
            "seconds": round(seconds, 4),
        }
    )
    writer.set_extra("stage_inputs", {"bishengir": writer.relative(source)})
    writer.set_extra("captured_from", str(inv.folder))
    if inv.returncode == 0:
        return writer.finish("ok" if binary else "ir-complete-no-binary")
    hivmc = "Cannot find hivmc" in inv.log.read_text(errors="replace")[-20000:]
    return writer.finish("ir-complete-no-binary" if hivmc else "compile-error")
