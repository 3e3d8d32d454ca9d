"""Offline Ascend compile: a Triton kernel -> a Run with stages ttir, adapter, bishengir.

No NPU and no CANN needed: every IR of every pass is printed; only the last step (hivmc,
which ships with CANN) is missing, and the Run says so in its status instead of failing.

>>> run = compile_kernel("tests/kernels/vadd.py::vadd", signature="x_ptr=*fp32,...",
...                      constexprs={"BLOCK": 1024}, barrier_all=True)
>>> run.status, len(run.timeline.dumps)
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ascend_ir_lab.errors import InputError, IRLabError
from ascend_ir_lab.toolchains.ascend import options as opts_mod
from ascend_ir_lab.toolchains.ascend.stages import add_ttir_stage, stage_record
from ascend_ir_lab.toolchains.ascend.tool_stages import (
    RunInterrupted,
    StageFailedError,
    adapter_from_triton,
    adapter_stage,
    binary_output,
    fail_stage,
    ttir_artifact,
)
from ascend_ir_lab.toolchains.ascend.tree_print import TREE_FLAG, TreePrinted, prints_to_tree
from ascend_ir_lab.toolchains.common.env import relevant_env, tool_env
from ascend_ir_lab.toolchains.common.process import (
    DEFAULT_TIMEOUT_S,
    LoggedTool,
    ToolInterrupted,
    ToolResult,
    ToolTimeoutError,
    start_logged,
)
from ascend_ir_lab.toolchains.common.run import Run, RunWriter
from ascend_ir_lab.toolchains.common.tools import (
    bishengir_is_regbased,
    find_tool,
    query_budget,
    versions,
)

__all__ = [
    "CompileJob",
    "RunInterrupted",
    "StageFailedError",
    "compile_kernel",
    "python_command",
    "start_compile",
]

HIVMC_MISSING = "Cannot find hivmc"
RECORD_ONLY = (
    "record only: ttir and adapter IR, as triton compiles them; capture the passes to run "
    "bishengir-compile with every pass printed"
)


def compile_kernel(
    kernel: Any,
    *,
    signature: str | Mapping[str, str],
    constexprs: Sequence[str] | Mapping[str, Any] | None = None,
    target: str = "Ascend910B3",
    barrier_all: bool = False,
    bishengir_flags: Sequence[str] = (),
    module_scope: bool = False,
    options: Mapping[str, Any] | None = None,
    name: str | None = None,
    out: str | os.PathLike[str] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    check: bool = True,
    line_info: bool = False,
    dumps: bool = True,
    attrs: Mapping[str, Mapping[str, Any]] | None = None,
) -> Run:
    """Compile `kernel` ("FILE.py::KERNEL" or a @triton.jit function) into a Run folder.

    `line_info` compiles as triton-ascend does with TRITON_DISABLE_LINE_INFO=0 and makes
    bishengir print locations in every Dump (`--mlir-print-debuginfo`, printing only), so
    each op of each pass maps back to its Python line.

    `options` are triton-ascend NPUOptions (multibuffer, sync_solver, ...). `barrier_all`
    replaces fine-grained sync with barriers; `module_scope` makes every bishengir Dump a
    complete module (needed by the pass-level reproducer). `attrs` are a launch's
    per-parameter attributes (`specialise`: divisibility, equal-to-1). With `check`, a failing stage
    raises StageFailedError (which carries the Run); otherwise the Run says compile-error.

    Without `dumps` the compile is a cheap record (as the user's code compiles with no
    CANN: no pass printed, triton's own .ttadapter kept, the bishengir-compile command kept
    in `extra.planned_stages`, not run); `capture_passes(run)` recompiles it in full.
    """
    return start_compile(
        kernel, signature=signature, constexprs=constexprs, target=target,
        barrier_all=barrier_all, bishengir_flags=bishengir_flags, module_scope=module_scope,
        options=options, name=name, out=out, timeout=timeout, check=check,
        line_info=line_info, dumps=dumps, attrs=attrs,
    ).run()  # fmt: skip


class CompileJob:
    """A compile whose last stage, bishengir-compile with every pass printed, may still run
    in the background (`start_compile`): `run()` waits for it and returns the finished Run
    (raising as `compile_kernel` does), `stop()` kills and reaps it and returns the Run with
    status "interrupted". A job with nothing left running holds its Run already."""

    def __init__(self, done: Run | None = None, finish: Callable[[], Run] | None = None,
                 stop: Callable[[], Run] | None = None) -> None:  # fmt: skip
        self._run, self._finish, self._stop = done, finish, stop
        self._lock = threading.Lock()  # `stop` may come from the thread that started it

    @property
    def running(self) -> bool:
        """Whether a stage still runs in the background (neither waited for nor stopped)."""
        return self._finish is not None

    def run(self) -> Run:
        """The finished Run, once the background stage (if any) has ended."""
        with self._lock:
            finish, self._finish = self._finish, None
            if finish is not None:
                self._stop = None
        if finish is not None:
            self._run = finish()  # a failure leaves the stage recorded, the folder released
        if self._run is None:
            raise IRLabError("this compile failed before its Run was finished (see above)")
        return self._run

    def stop(self) -> Run | None:
        """Kill the background stage (its whole process group), reap it and record it as
        interrupted; the Run (None after a failure `run()` raised). Never raises for a job
        already done."""
        with self._lock:
            stop, self._stop = self._stop, None
            if stop is not None:
                self._finish = None
                self._run = stop()
        return self._run


def start_compile(
    kernel: Any,
    *,
    signature: str | Mapping[str, str],
    constexprs: Sequence[str] | Mapping[str, Any] | None = None,
    target: str = "Ascend910B3",
    barrier_all: bool = False,
    bishengir_flags: Sequence[str] = (),
    module_scope: bool = False,
    options: Mapping[str, Any] | None = None,
    name: str | None = None,
    out: str | os.PathLike[str] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    check: bool = True,
    line_info: bool = False,
    dumps: bool = True,
    attrs: Mapping[str, Mapping[str, Any]] | None = None,
) -> CompileJob:
    """`compile_kernel` up to bishengir-compile, which is left running in the background
    (its own process group, its output streaming into the Run's log, nothing to the
    console) while the caller goes on: the CompileJob's `run()` waits for it and gives the
    Run, `stop()` kills it. The Run folder is held until then; read it only from the job."""
    from ascend_ir_lab.toolchains.common.kernels import parse_constexprs, parse_signature

    sig = parse_signature(signature)
    consts = parse_constexprs(constexprs)
    npu_opts = opts_mod.npu_options(options)
    spec = kernel if isinstance(kernel, str) else None
    fn = _resolve(kernel)
    kernel_name = getattr(getattr(fn, "fn", fn), "__name__", "kernel")
    run_name = name or (kernel_name + ("-barrier-all" if barrier_all else ""))
    from ascend_ir_lab.toolchains.common.kernels import kernel_source

    source = kernel_source(fn)  # read once: the manifest and source.py both need it
    with query_budget(timeout):
        head = _manifest_head(source, kernel_name, sig, consts, target)
    if attrs is not None:
        head["kernel"]["attrs"] = {k: dict(v) for k, v in attrs.items()}
    writer = RunWriter.create(run_name, head, out)

    def stages() -> Run | CompileJob:
        env = tool_env({"TRITON_DISABLE_LINE_INFO": "0"} if line_info else None)
        settings = dict(target=target, barrier_all=barrier_all, bishengir_flags=bishengir_flags,
                        module_scope=module_scope, options=options, line_info=line_info)  # fmt: skip
        with writer.held():
            _write_source(writer, source)
            writer.set("env", relevant_env(env))
            writer.set_extra("recompile", _recompile_record(fn, spec, settings))
            writer.set_extra("passes_captured", dumps)
        ttir = add_ttir_stage(
            writer, fn, spec, sig, consts, target, dict(options or {}), attrs, dumps=dumps
        )
        if ttir is None:
            return fail_stage(writer, "ttir", check)
        if dumps or not adapter_from_triton(writer, ttir, npu_opts, env):
            adapter = adapter_stage(writer, ttir, npu_opts, env, timeout, dumps)
            if adapter.returncode != 0:
                return fail_stage(writer, "adapter", check, adapter)
        args = opts_mod.bishengir_args(npu_opts, target, env, regbased=bishengir_is_regbased())
        if barrier_all:
            args = opts_mod.with_barrier_all(args)
        extra_flags = [
            *([opts_mod.PRINT_AFTER_ALL] if dumps else ()),
            *(opts_mod.MODULE_SCOPE_FLAGS if module_scope and dumps else ()),
            *(["--mlir-print-debuginfo"] if line_info and dumps else ()),
            *bishengir_flags,
        ]
        with writer.held():
            writer.set_extra("module_scope", module_scope)
            writer.set_extra("barrier_all", barrier_all)
            writer.set_extra("line_info", line_info)
        return _bishengir_stage(writer, args, extra_flags, env, timeout, check)

    begun = _guarded(writer, stages, timeout=timeout, check=check)
    return begun if isinstance(begun, CompileJob) else CompileJob(begun)


def _guarded(
    writer: RunWriter, stages: Callable[[], Run | CompileJob], *, timeout: float, check: bool
) -> Run | CompileJob:
    """Run `stages` into `writer` so that every way it ends leaves a finished Run: a stopped
    tool's stage recorded, Ctrl-C raising RunInterrupted, our errors carrying `.run`. A
    CompileJob (a stage left running) keeps the folder held until the job ends."""
    begun: Run | CompileJob | None = None
    try:
        with query_budget(timeout):
            begun = stages()
            return begun
    except (ToolTimeoutError, ToolInterrupted) as exc:
        return _stopped(writer, exc.result, check)
    except KeyboardInterrupt:
        raise RunInterrupted(writer.finish("interrupted"), "") from None
    except IRLabError as exc:
        if isinstance(exc, StageFailedError):
            raise
        run = writer.finish("compile-error", str(exc).splitlines()[0])
        if check:
            exc.run = run  # type: ignore[attr-defined]
            raise
        return run
    finally:
        if not isinstance(begun, CompileJob):
            writer.release()


def _stopped(writer: RunWriter, result: ToolResult, check: bool) -> Run:
    """Record a stage whose tool was stopped (timed out, interrupted): its exit code, how
    it ended and its log, then finish the Run; raise with the Run as `check` and the kind
    of stop say (Ctrl-C always raises RunInterrupted)."""
    stage = Path(result.log).stem.split("-", 1)[-1]
    writer.add_stage(stage_record(writer, stage, result, None, status=result.status))
    seconds = f"{result.seconds:.1f} s"
    if result.status == "interrupted":
        run = writer.finish("interrupted", f"stage {stage} interrupted after {seconds}")
        raise RunInterrupted(run, stage)
    run = writer.finish("compile-error", f"stage {stage} timed out after {seconds}")
    if check:
        raise StageFailedError(result, stage, run)
    return run


_RECOMPILE_KEYS = ("target", "barrier_all", "bishengir_flags", "module_scope", "options")


def _recompile_record(fn: Any, spec: str | None, given: Mapping[str, Any]) -> dict[str, Any]:
    """How to compile this kernel again (`capture_passes`): its FILE::KERNEL when it lives in
    a file, and the compile's settings."""
    import inspect

    if spec is None:
        with contextlib.suppress(OSError, TypeError):
            file = inspect.getsourcefile(getattr(fn, "fn", fn))
            if file and Path(file).is_file():
                spec = f"{Path(file).resolve()}::{getattr(getattr(fn, 'fn', fn), '__name__', '')}"
    elif "::" in spec:
        file_part, _, kname = spec.rpartition("::")
        spec = f"{Path(file_part).resolve()}::{kname}"
    settings = {k: given[k] for k in _RECOMPILE_KEYS}
    settings["bishengir_flags"] = list(settings["bishengir_flags"])
    settings["options"] = dict(settings["options"] or {})
    return {"kernel": spec, "line_info": given["line_info"], **settings}


def _resolve(kernel: Any) -> Any:
    from ascend_ir_lab.toolchains.common.kernels import load_kernel

    if isinstance(kernel, str):
        return load_kernel(kernel)
    if not hasattr(kernel, "fn") and not callable(kernel):
        raise InputError(f"{kernel!r}: expected FILE.py::KERNEL or a @triton.jit function")
    return kernel


def _manifest_head(
    source: tuple[str, int, str],
    kernel_name: str,
    sig: dict[str, str],
    consts: dict[str, Any],
    target: str,
) -> dict[str, Any]:
    _, first_line, filename = source
    return {
        "toolchain": "ascend",
        "target": target,
        "kernel": {
            "name": kernel_name,
            "source": "source.py",
            "file": filename,  # the name the IR's locations carry
            "first_line": first_line,
            "signature": sig,
            "constexprs": consts,
        },
        "versions": versions(),
    }


def _write_source(writer: RunWriter, source: tuple[str, int, str]) -> None:
    text, _, filename = source
    (writer.path / "source.py").write_text(text)
    writer.set_extra("source_file", filename)


def _bishengir_stage(
    writer: RunWriter,
    args: list[str],
    extra_flags: list[str],
    env: Mapping[str, str],
    timeout: float,
    check: bool,
) -> Run | CompileJob:
    """bishengir-compile on the adapter output, as triton-ascend would call it: started,
    and left running as a CompileJob whose `run()` records the stage and finishes the Run."""
    adapter = next(s for s in writer.manifest["stages"] if s["name"] == "adapter")
    adapter_ir = (writer.path / adapter["artifact"]).read_text()
    text, mix_mode = opts_mod.bishengir_input(adapter_ir)
    source = writer.artifact_path("bishengir-input.mlir")
    binary = writer.artifact_path("kernel")
    command = [
        str(find_tool("bishengir-compile")),
        str(source),
        *args,
        *extra_flags,
        "-o",
        str(binary),
    ]
    if not writer.manifest["extra"].get("passes_captured", True):
        # a cheap record compiles what triton-ascend compiles with no CANN (up to the
        # adapter IR) and keeps the exact command of the step that capture-passes runs
        # (whose input that step makes from the adapter IR: not kept twice)
        planned = {"name": "bishengir", "command": command, "input_from": adapter["artifact"]}
        with writer.held():
            writer.set_extra("mix_mode", mix_mode)
            writer.set_extra("planned_stages", [planned])
        return writer.finish("ir-complete-no-binary", RECORD_ONLY)
    source.write_text(text)
    tool = _start_bishengir(writer, command, env)

    def finish() -> Run:
        result = tool.wait(timeout)
        produced = binary_output(binary)
        printed = tool.record if isinstance(tool, TreePrinted) else {}
        with writer.held():
            writer.add_stage(stage_record(writer, "bishengir", result, produced, **printed))
            writer.set_extra("mix_mode", mix_mode)
            writer.set_extra("stage_inputs", {"adapter": writer.relative(ttir_artifact(writer)),
                                              "bishengir": writer.relative(source)})  # fmt: skip
        if result.returncode == 0:
            return writer.finish("ok" if produced else "ir-complete-no-binary")
        if HIVMC_MISSING in result.tail(60):
            return writer.finish("ir-complete-no-binary")
        return fail_stage(writer, "bishengir", check, result)

    def stop() -> Run:
        try:
            return _stopped(writer, tool.stop(), check=False)
        except RunInterrupted as exc:
            return exc.run
        finally:
            writer.release()

    def guarded() -> Run:
        done = _guarded(writer, finish, timeout=timeout, check=check)
        assert isinstance(done, Run)
        return done

    return CompileJob(finish=guarded, stop=stop)


def _start_bishengir(
    writer: RunWriter, command: list[str], env: Mapping[str, str]
) -> LoggedTool | TreePrinted:
    """bishengir-compile started with its output going to the stage's log: printed into a
    tree-dir inside the Run when it prints every pass (see tree_print), else to stderr."""
    log = writer.log_path("bishengir")
    if not prints_to_tree(command):
        return start_logged(command, log=log, env=env)
    tree = log.with_name(log.name.removesuffix(".log") + ".tree")
    messages = log.with_name(log.name.removesuffix(".log") + ".messages.log")
    at = command.index("-o")
    printing = [*command[:at], f"{TREE_FLAG}={tree}", *command[at:]]
    tool = start_logged(printing, log=messages, env=env)
    return TreePrinted(tool, tree, messages, log, command, env)


def python_command() -> list[str]:
    """The interpreter this package runs under (for recorded in-process commands)."""
    return [sys.executable]
