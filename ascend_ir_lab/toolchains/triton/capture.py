"""Record an upstream Triton compile, stage by stage, into a Run (inside this process).

Triton's own hook `knobs.runtime.add_stages_inspection_hook` wraps each stage function
(ttir, ttgir, llir, ptx/amdgcn, cubin/hsaco). While a stage runs, fds 1 and 2 go to that
stage's log, so its MLIR dumps (MLIR_ENABLE_DUMP), LLVM dumps (LLVM_IR_ENABLE_DUMP) and
timing reports land in the right log, in the order the compiler printed them; the stage's
output is kept as its artifact.

Why not MLIR_DUMP_PATH: libtriton opens that file once per process (a static, buffered
`raw_fd_ostream`, truncated on first use), so it can neither be re-pointed for a second
compile in the same process nor split exactly at stage boundaries (up to a buffer's worth
of a stage's dumps is still unwritten when the next stage starts). The variable is
therefore removed while capturing: libtriton then prints to stderr, unbuffered.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ascend_ir_lab.dumps.stage_timings import stage_timings
from ascend_ir_lab.toolchains.common.env import patched_environ, relevant_env
from ascend_ir_lab.toolchains.common.run import RunWriter
from ascend_ir_lab.toolchains.common.tool_log import capture_fds

BINARY_STAGES = ("cubin", "hsaco")


def capture_env(
    *, llvm_dumps: bool, timings: bool, cache_dir: Path, dumps: bool = True
) -> dict[str, str | None]:
    """The variables set while capturing (None: removed). Without `dumps` (a cheap record)
    no pass is printed and nothing is timed: the stages' outputs alone are kept."""
    flag = {True: "1", False: None}
    llvm_dumps, timings = llvm_dumps and dumps, timings and dumps
    return {
        "MLIR_ENABLE_DUMP": flag[dumps],
        "MLIR_DUMP_PATH": None,
        "LLVM_IR_ENABLE_DUMP": flag[llvm_dumps],
        "MLIR_ENABLE_TIMING": flag[timings],
        "LLVM_ENABLE_TIMING": flag[timings],
        "TRITON_CACHE_DIR": str(cache_dir),
    }


class StageRecorder:
    """The stage hook: wraps each stage so that it logs into the Run and keeps its output."""

    def __init__(self, writer: RunWriter, kernel_name: str, command: Sequence[str]) -> None:
        self.writer = writer
        self.kernel_name = kernel_name
        self.command = list(command)
        self.key = uuid.uuid4().hex  # a fresh pipeline key: never a cache hit
        self.binary: Path | None = None
        self.failed_stage: str | None = None
        self.llvm_dialect = True  # keep the llir stage's LLVM-dialect input as an artifact

    def __call__(self, *args: Any) -> Any:
        if not args:  # asked for the pipeline's cache key
            return (f"ascend-ir-lab-{self.key}", self.key)
        stages = args[1]
        for name, fn in list(stages.items()):
            stages[name] = self._wrap(name, fn)
        return None

    def _wrap(self, name: str, fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
        def stage(src: Any, metadata: Any) -> Any:
            if name in BINARY_STAGES:
                return self._binary(name, fn, src, metadata)
            log = self.writer.log_path(name)
            log.touch()
            start = time.perf_counter()
            try:
                with capture_fds(log):
                    result = fn(src, metadata)
            except BaseException:
                self.failed_stage = name
                self._record(name, log, None, start, returncode=1)
                raise
            artifact = self._keep(name, result)
            if name == "llir" and self.llvm_dialect:
                # src now holds the LLVM-dialect module: the MLIR part's output (the largest
                # text of a compile; a cheap record leaves it out)
                self._keep("llir.mlir", src)
            self._record(name, log, artifact, start, returncode=0)
            return result

        return stage

    def _binary(self, name: str, fn: Callable[[Any, Any], Any], src: Any, metadata: Any) -> Any:
        log = self.writer.artifact_path(f"{self.kernel_name}.{name}.log")
        start = time.perf_counter()
        with capture_fds(log):
            result = fn(src, metadata)
        self.binary = self._keep(name, result)
        self.writer.set_extra(
            "binary",
            {
                "stage": name,
                "artifact": self.writer.relative(self.binary),
                "log": self.writer.relative(log),
                "seconds": round(time.perf_counter() - start, 4),
            },
        )
        return result

    def _keep(self, ext: str, output: Any) -> Path:
        path = self.writer.artifact_path(f"{self.kernel_name}.{ext}")
        if isinstance(output, bytes):
            path.write_bytes(output)
        else:
            path.write_text(str(output))
        return path

    def _record(
        self, name: str, log: Path, artifact: Path | None, start: float, returncode: int
    ) -> None:
        record: dict[str, object] = {
            "name": name,
            "log": self.writer.relative(log),
            "artifact": self.writer.relative(artifact),
            "command": self.command,
            "returncode": returncode,
            "seconds": round(time.perf_counter() - start, 4),
        }
        if returncode == 0:
            record["timings"] = stage_timings(log)
        self.writer.add_stage(record)


@contextlib.contextmanager
def recording(
    writer: RunWriter,
    kernel_name: str,
    command: Sequence[str],
    *,
    llvm_dumps: bool = True,
    timings: bool = True,
    dumps: bool = True,
) -> Iterator[StageRecorder]:
    """Every Triton compile inside the block is recorded into `writer`'s Run (with its
    MLIR pass dumps unless `dumps` is False: a cheap record, `extra.passes_captured`).

    The environment, Triton's stage hook and fds 1/2 are restored exactly afterwards; the
    private cache folder is removed.
    """
    from triton import knobs

    recorder = StageRecorder(writer, kernel_name, command)
    recorder.llvm_dialect = dumps
    writer.set_extra("passes_captured", dumps)
    cache = Path(tempfile.mkdtemp(prefix="ascend-ir-lab-triton-cache-"))
    previous = knobs.runtime.add_stages_inspection_hook
    env = capture_env(llvm_dumps=llvm_dumps, timings=timings, cache_dir=cache, dumps=dumps)
    try:
        with patched_environ(env) as applied:
            writer.set("env", {**relevant_env(applied), "MLIR_DUMP_PATH": "(unset: stderr)"})
            knobs.runtime.add_stages_inspection_hook = _chain(previous, recorder)
            yield recorder
    finally:
        knobs.runtime.add_stages_inspection_hook = previous
        shutil.rmtree(cache, ignore_errors=True)


def _chain(previous: Any, recorder: StageRecorder) -> Callable[..., Any]:
    """Keep a hook the user installed: it sees the stages first, and its key stays part."""
    if previous is None:
        return recorder

    def hook(*args: Any) -> Any:
        if not args:
            key, digest = previous()
            own_key, own_digest = recorder()
            return (f"{key}-{own_key}", f"{digest}-{own_digest}")
        previous(*args)
        return recorder(*args)

    return hook


# The stages of a compiled kernel's `asm`, in pipeline order (what triton keeps of each).
ASM_STAGES = ("ttir", "ttgir", "llir", "ptx", "amdgcn")


def record_compiled(
    writer: RunWriter, kernel_name: str, compiled: Any, command: Sequence[str]
) -> Path | None:
    """A cheap record of a kernel triton already compiled (a launch's CompiledKernel): each
    stage's output from `compiled.asm`, as triton produced it, and no per-pass dumps; the
    binary too. Nothing is compiled again. Returns the binary's path (None without one)."""
    asm = dict(getattr(compiled, "asm", None) or {})
    writer.set_extra("passes_captured", False)
    for name in [n for n in ASM_STAGES if n in asm]:
        path = writer.artifact_path(f"{kernel_name}.{name}")
        path.write_text(str(asm[name]))
        writer.add_stage({
            "name": name, "log": None, "artifact": writer.relative(path),
            "command": list(command), "returncode": 0, "seconds": None,
        })  # fmt: skip
    for name in BINARY_STAGES:
        if isinstance(asm.get(name), bytes):
            path = writer.artifact_path(f"{kernel_name}.{name}")
            path.write_bytes(asm[name])
            writer.set_extra("binary", {"stage": name, "artifact": writer.relative(path)})
            return path
    return None
