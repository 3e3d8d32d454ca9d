"""Intercept `kernel[grid](...)` launches and turn each kernel into an offline Ascend Run.

With no NPU a launch cannot run (`RuntimeError: 0 active drivers`), so inside
`intercept_launches(...)` every launch of a `@triton.jit` kernel is taken over: its signature
is read from the call's arguments (CPU torch tensors and numpy arrays -> pointer types, ints
-> i32/i64, constexpr keywords), the kernel is compiled offline for the target with
`ascend.compile_kernel`, and the launch is reported as skipped. With `interpret=True` the
same launch also runs on the CPU in Triton's interpreter (`TRITON_INTERPRET=1`), so its
results can be checked. Everything patched comes back on exit, also after an exception.

>>> with intercept_launches(target="Ascend910B3", interpret=True) as capture:
...     vadd[(4,)](x, y, out, n, BLOCK=1024)
>>> capture.launches[0].note, capture.runs
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.runs import Run
from ascend_ir_lab.toolchains.ascend import virtual_memory
from ascend_ir_lab.toolchains.ascend.autotune_offline import autotune_untimed, config_outcome
from ascend_ir_lab.toolchains.ascend.interpret import interpret_launch
from ascend_ir_lab.toolchains.ascend.interpret_parallel import beside_a_compile
from ascend_ir_lab.toolchains.ascend.launch_compile import annotate_run, declared, start_watched
from ascend_ir_lab.toolchains.ascend.offline_kernel import OfflineKernel
from ascend_ir_lab.toolchains.common.interpret_repeat import Repeats
from ascend_ir_lab.toolchains.common.kernel_args import launches_taken_over, specialised
from ascend_ir_lab.toolchains.common.launch import (
    Capture,
    Launch,
    Progress,
    compile_watched,
    fresh_folder,
    grid_text,
    kernel_name,
    launch_grid,
)
from ascend_ir_lab.toolchains.common.outcome import kept_error
from ascend_ir_lab.toolchains.common.run import update_extra
from ascend_ir_lab.toolchains.common.specialise import Specialisation, npu_target
from ascend_ir_lab.toolchains.common.tools import npu_available

if TYPE_CHECKING:
    from ascend_ir_lab.toolchains.ascend.compile import CompileJob

__all__ = ["Launch", "LaunchCapture", "intercept_launches", "npu_available"]


class StillRunning(Exception):
    """The place of a compile still finishing in the background among a capture's compiles
    (replaced by its Run, in the same place, once it has finished)."""


def _fresh(error: BaseException) -> BaseException:
    """A copy of the kept `error` to raise: the traceback a raise gives it (the script's
    frames, and with them the launch's tensors) is the copy's, dropped with it, not kept by
    the capture with the original for the next launch of the same kernel."""
    try:
        fresh = copy.copy(error)
    except Exception:  # noqa: BLE001 - an exception that cannot be copied is raised as it is
        return error
    if type(fresh) is not type(error):
        return error
    fresh.__cause__, fresh.__suppress_context__ = error.__cause__, True
    return fresh


@dataclass
class LaunchCapture(Capture):
    """What `intercept_launches` saw: the launches in order and one Run per kernel compile."""

    target: str = "Ascend910B3"
    barrier_all: bool = False
    bishengir_flags: Sequence[str] = ()
    module_scope: bool = False
    line_info: bool = True  # locations in every Dump: ops map back to Python lines
    interpret: bool = False
    autotuned: dict[str, int] = field(default_factory=dict)  # kernel -> configs compiled untimed
    configs: Sequence[int] | None = None  # sweep configs to capture passes of (None: the one run)
    sweeps: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # kernel -> configs
    _cheap: bool = False  # compiling a sweep config: record it, no per-pass dumps
    _step: str = ""  # "config 2/16 (cheap record)" while a sweep compiles
    _repeats: Repeats = field(default_factory=Repeats)  # launches that changed nothing
    # a sweep config's compile whose bishengir-compile (every pass printed) runs in the
    # background while the other configs compile: key -> (job, kernel, progress label)
    _pending: dict[tuple[Any, ...], tuple[CompileJob, Any, str]] = field(default_factory=dict)
    _keys: dict[int, tuple[Any, ...]] = field(default_factory=dict)  # id(launch) -> its key

    # -- the launch hook -------------------------------------------------------------------
    def on_launch(
        self, fn: Any, original: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """Handle `fn.run(*args, grid=..., warmup=..., **kwargs)`; returns what triton's
        launch returns (the compiled kernel; offline, an OfflineKernel). On the virtual NPU,
        tensors show their CPU device to the tool's own code meanwhile."""
        with virtual_memory.host_view():
            return self._on_launch(fn, original, args, kwargs)

    def _on_launch(
        self, fn: Any, original: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        grid = kwargs.pop("grid")
        warmup = kwargs.pop("warmup", False)
        name = kernel_name(fn)
        try:
            spec = specialised(fn, original, args, kwargs, npu_target(self.target))
        except InputError as exc:
            # reported, not raised: the cell goes on as with any launch taken over
            self.errors.append(kept_error(exc))
            self._say("error", {"kernel": name, "error": exc})
            if npu_available():
                return original(fn, *args, grid=grid, warmup=warmup, **kwargs)
            if self.interpret and not warmup:
                self._interpret_unspecialised(fn, grid, args, kwargs, exc)
            return None
        launch = Launch(name, launch_grid(grid, fn, args, kwargs), spec.signature, spec.constexprs)
        self.launches.append(launch)
        # a CPU tensor on the virtual NPU: compiled, then refused as the NPU's launcher does
        refused = None if warmup else virtual_memory.unreachable_argument(fn, args, kwargs)
        if self.kernels is None or name in self.kernels:
            beside = self._beside(fn, args, kwargs, launch) if not (warmup or refused) else None
            launch.run = self._compile_once(fn, spec, launch, beside)
            self._raise_as_triton(launch)
        if npu_available():
            launch.launched = not warmup
            launch.note = "warmup: compiled" if warmup else "launched on the NPU"
            return original(fn, *args, grid=grid, warmup=warmup, **kwargs)
        if refused:
            launch.note = f"launch of {name} refused: {refused}"
            self._say("launch", {"launch": launch})
            raise ValueError(refused)
        handle = OfflineKernel(name, launch.run, spec.options, self._handle_launch(fn, spec))
        if warmup:
            launch.note = "warmup: compiled, nothing launched"
            return handle
        self._skip(fn, grid, args, kwargs, launch)
        return handle

    def _raise_as_triton(self, launch: Launch) -> None:
        """A kernel triton's frontend refuses (a CompilationError: a type it does not take,
        a call it cannot compile) raises from the launch, as triton's own launch does: a
        script that expects it (`pytest.raises(CompilationError)`) sees it, and one that
        does not stops there, as on the NPU. The Run stays (its ttir stage failed); the
        error is the script's to handle, not one more failure of the capture."""
        raised = getattr(launch.error, "frontend_error", None)
        if raised is None or npu_available():  # with an NPU, triton's launch raises it
            return
        self.errors = [e for e in self.errors if e is not launch.error]
        launch.interpret_error = None  # run beside the compile: a launch that never was
        launch.note = (
            f"launch of {launch.kernel}[{grid_text(launch.grid)}]: triton's compile raised "
            f"{type(raised).__name__}, raised here as on the NPU"
        )
        self._say("launch", {"launch": launch})
        raise _fresh(kept_error(raised))

    def _beside(
        self, fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any], launch: Launch
    ) -> Callable[[], None] | None:
        """The launch in the CPU interpreter, to run while its compile's tools run (None when
        it is not to be interpreted)."""
        if not self.interpret or npu_available():
            return None

        def interpret() -> None:
            with beside_a_compile():
                self._interpret(fn, launch.grid, args, kwargs, launch)

        return interpret

    def _skip(
        self, fn: Any, grid: Any, args: tuple[Any, ...], kwargs: dict[str, Any], launch: Launch
    ) -> None:
        name = launch.kernel
        # interpreted already when it ran beside the compile: its note comes after this one
        ran = launch.interpreted or launch.interpret_error is not None
        said, launch.note = (
            launch.note,
            f"no NPU: launch of {name}[{grid_text(launch.grid)}] skipped",
        )
        if name in self.autotuned:
            launch.note += (
                f"; autotune: {self.autotuned[name]} configs compiled offline, none timed "
                "(no device), "
                + (
                    "the one with the fewest programs stands in for the best"
                    if self.interpret
                    else "the first stands in for the best"
                )
            )
        if ran:
            launch.note += said
        elif self.interpret:
            self._interpret(fn, launch.grid, args, kwargs, launch)  # the grid as triton reads it
        self._say("launch", {"launch": launch})

    def _interpret_unspecialised(
        self, fn: Any, grid: Any, args: tuple[Any, ...], kwargs: dict[str, Any], exc: InputError
    ) -> None:
        """A call triton's launch path refuses (no Run) still runs in the CPU interpreter,
        as plain `TRITON_INTERPRET=1` runs it: the script's checks see its results."""
        try:
            shape = launch_grid(grid, fn, args, kwargs)
        except Exception:  # noqa: BLE001 - no grid, nothing to interpret; the error stands
            return
        launch = Launch(kernel_name(fn), shape, {}, {}, error=kept_error(exc))
        self.launches.append(launch)
        self._skip(fn, grid, args, kwargs, launch)

    def _handle_launch(
        self, fn: Any, spec: Specialisation
    ) -> Callable[[Any, tuple[Any, ...]], None]:
        """`h[grid](*args)` on the handle: runtime arguments only, constexprs from `spec`."""

        def launch(grid: Any, args: tuple[Any, ...]) -> None:
            names = list(spec.signature)
            kwargs = {**dict(zip(names, args, strict=False)), **declared(fn, spec.constexprs)}
            refused = virtual_memory.unreachable_argument(fn, (), kwargs)
            if refused:
                raise ValueError(refused)
            with virtual_memory.host_view():
                self._handle_launched(fn, grid, kwargs, spec)

        return launch

    def _handle_launched(
        self, fn: Any, grid: Any, kwargs: dict[str, Any], spec: Specialisation
    ) -> None:
        entry = Launch(kernel_name(fn), launch_grid(grid, fn, (), kwargs), spec.signature,
                       spec.constexprs)  # fmt: skip
        entry.run = next((ln.run for ln in self.launches if ln.signature == spec.signature
                          and ln.constexprs == spec.constexprs), None)  # fmt: skip
        self.launches.append(entry)
        self._skip(fn, grid, (), kwargs, entry)

    def _compile_once(
        self, fn: Any, spec: Specialisation, launch: Launch, beside: Callable[[], None] | None
    ) -> Run | None:
        """The Run of this specialisation, compiled now if it is new (`beside` then runs while
        the compile's tools do; a cheap record, a few tenths of a second, runs nothing beside)."""
        key = (id(fn), spec.key)
        self._keys[id(launch)] = key
        sweep_cheap = self._sweep_cheap(launch.kernel, key)
        if key not in self._compiled:
            # inside a sweep, a config with passes leaves bishengir-compile running
            background = bool(self._step) and not sweep_cheap
            made = self._compile(fn, spec.signature, spec.constexprs, spec.given, spec.attrs,
                                 sweep_cheap, background=background,
                                 beside=None if sweep_cheap or background else beside)  # fmt: skip
            if not isinstance(made, (Run, BaseException)):  # a CompileJob, still running
                self.settle()  # one in the background at a time: the CPUs are few
                self._pending[key] = (made, fn, self._step)
                made = StillRunning()  # holds the Run's place in the order of Runs
            self._compiled[key] = made
        if key in self._pending:
            if self._step:  # the sweep goes on; the Run is finished when it is needed
                return None
            self._settle(key)
        found = self._compiled[key]
        if isinstance(found, Run) and not sweep_cheap and not found.passes_captured:
            found = self._compiled[key] = self._capture(found)
        if isinstance(found, Run) and not self._cheap and launch.kernel in self.sweeps:
            found = self._compiled[key] = self._record_sweep(launch.kernel, key, found)
        if isinstance(found, BaseException):
            launch.error = found
            return None
        return found

    def _sweep_cheap(self, kernel: str, key: tuple[Any, ...]) -> bool:
        """Whether this compile stays a cheap record: a sweep config not asked for."""
        if self._cheap or self._step:  # inside a sweep: the config's own choice stands
            return self._cheap
        if self.configs is None or kernel not in self.sweeps:
            return False
        index = next((c["index"] for c in self.sweeps[kernel] if c.get("_key") == key), None)
        return index not in self.configs

    def _capture(self, run: Run) -> Run | BaseException:
        from ascend_ir_lab.toolchains.ascend.sweep import capture_passes

        try:
            return capture_passes(run, progress=self._say)
        except Exception as exc:  # noqa: BLE001 - shown as a panel by the caller
            self.errors.append(kept_error(exc))
            return exc

    def _record_sweep(self, kernel: str, key: tuple[Any, ...], run: Run) -> Run:
        from ascend_ir_lab.toolchains.ascend.sweep import sweep_record

        self.settle()
        configs = self.sweeps[kernel]
        chosen = next((c["index"] for c in configs if c.get("_key") == key), None)
        for c in configs:
            target = self._compiled.get(c["_key"])
            c["run"] = str(target.path) if isinstance(target, Run) else None
            c["passes_captured"] = isinstance(target, Run) and target.passes_captured
            if c.get("status") is None:  # finished in the background since
                c.update(config_outcome(target if isinstance(target, Run) else None))
        shown = [{k: v for k, v in c.items() if not k.startswith("_")} for c in configs]
        return update_extra(run, {"autotune": sweep_record(shown, chosen, timed=False)})

    def _compile(
        self,
        fn: Any,
        sig: dict[str, str],
        consts: dict[str, Any],
        options: dict[str, Any],
        attrs: dict[str, dict[str, Any]] | None = None,
        cheap: bool = False,
        background: bool = False,
        beside: Callable[[], None] | None = None,
    ) -> Run | BaseException | CompileJob:
        name = self._run_name(kernel_name(fn))
        folder = fresh_folder(name, self.runs_dir)
        kwargs = dict(
            signature=sig,
            constexprs=consts,
            attrs=attrs,
            target=self.target,
            barrier_all=self.barrier_all,
            bishengir_flags=tuple(self.bishengir_flags),
            module_scope=self.module_scope,
            line_info=self.line_info,
            options=options or None,
            name=name,
            out=folder,
            dumps=not cheap,
        )
        try:
            from ascend_ir_lab.toolchains.ascend.compile import compile_kernel

            made: Run | CompileJob = (
                start_watched(fn, folder, kwargs, self._say)
                if background
                else compile_watched(
                    fn, folder, kwargs, self._say, compile_fn=compile_kernel, beside=beside
                )
            )
        except Exception as exc:  # noqa: BLE001 - shown as a panel by the caller
            self.errors.append(kept_error(exc))
            return exc
        if not isinstance(made, Run):  # a CompileJob
            if made.running:
                self._say("background", {"kernel": kernel_name(fn), "path": folder})
                return made
            made = made.run()
            self._say("done", {"run": made})
        return self._annotated(made, fn)

    def _annotated(self, run: Run, fn: Any) -> Run:
        from ascend_ir_lab.toolchains.ascend.sweep import remember_kernel

        run = annotate_run(run, fn, {"interpret": self.interpret})
        remember_kernel(run, fn)
        return run

    # -- compiles finishing in the background --------------------------------------------
    def _settle(self, key: tuple[Any, ...]) -> None:
        """Wait for the background stage of `key`'s compile and keep its finished Run (or
        its error, as for any compile)."""
        job, fn, step = self._pending.pop(key)
        launches = [ln for ln in self.launches if self._keys.get(id(ln)) == key]
        try:
            run = job.run()
        except Exception as exc:  # noqa: BLE001 - shown as a panel by the caller
            self.errors.append(kept_error(exc))
            self._compiled[key] = exc
            for launch in launches:
                launch.error = exc
            self._say("failed", {"kernel": kernel_name(fn), "error": exc, "sweep": step})
            return
        said = {"kernel": kernel_name(fn), "sweep": step}
        self._say("stage", {"record": run.stages[-1], **said})
        self._say("done", {"run": run, **said})
        self._compiled[key] = run = self._annotated(run, fn)
        for launch in launches:
            launch.run = run

    def settle(self) -> None:
        """Wait for every compile still finishing in the background (its Run then lists
        with the others); on Ctrl-C or an error the rest are killed and reaped."""
        try:
            while self._pending:
                self._settle(next(iter(self._pending)))
        except BaseException:
            self.stop_pending()
            raise

    def stop_pending(self) -> None:
        """Kill and reap every compile still running in the background; each Run says it
        was interrupted."""
        while self._pending:
            key, (job, _fn, _step) = self._pending.popitem()
            run = job.stop()
            if run is not None:
                self._compiled[key] = run
            else:  # its failure was reported when `run()` raised it
                self._compiled.pop(key, None)

    def _run_name(self, kernel: str) -> str:
        suffix = "-barrier-all" if self.barrier_all else ""
        if self.name is None:
            return kernel + suffix
        taken = {r.manifest.get("name") for r in self.runs}
        return self.name if self.name not in taken else f"{self.name}-{kernel}"

    def _interpret(
        self, fn: Any, grid: Any, args: tuple[Any, ...], kwargs: dict[str, Any], launch: Launch
    ) -> None:
        key = self._repeats.key(fn, grid, args, kwargs)
        if self._repeats.seen(key, args, kwargs):
            launch.interpreted = True
            launch.note += (
                "; the same launch left this memory unchanged before: not interpreted again"
            )
            return
        before = self._repeats.before(key, args, kwargs)
        try:
            interpret_launch(fn, grid, args, kwargs)
            launch.interpreted = True
            launch.note += "; ran in Triton's CPU interpreter (TRITON_INTERPRET=1) instead"
        except Exception as exc:  # noqa: BLE001 - reported beside the Run, the cell goes on
            launch.interpret_error = kept_error(exc)
            launch.note += f"; the CPU interpreter failed: {type(exc).__name__}: {exc}"
            return
        self._repeats.note(key, before, args, kwargs)

    def _say(self, event: str, info: dict[str, Any]) -> None:
        super()._say(event, {"sweep": self._step, **info} if self._step else info)


@contextlib.contextmanager
def intercept_launches(**settings: Any) -> Iterator[LaunchCapture]:
    """Take over `kernel[grid](...)` launches for the block (see the module docstring).

    Keywords are LaunchCapture's fields (target, barrier_all, bishengir_flags, module_scope,
    line_info, interpret, name, kernels, runs_dir, progress). `JITFunction.run` is restored on exit.
    """
    capture = LaunchCapture(**settings)
    try:
        with launches_taken_over(capture.on_launch), autotune_untimed(capture):
            yield capture
    except BaseException:
        capture.stop_pending()  # a stage left running is killed and reaped, never left
        raise
    capture.settle()


def compile_defined(
    fn: Any,
    *,
    signature: str | Mapping[str, str],
    constexprs: Sequence[str] | Mapping[str, Any] | None = None,
    progress: Progress | None = None,
    **settings: Any,
) -> Run:
    """Compile a kernel that was only defined (no launch), with a written signature."""
    from ascend_ir_lab.toolchains.common.kernels import parse_constexprs, parse_signature

    capture = LaunchCapture(progress=progress, **settings)
    sig, consts = parse_signature(signature), parse_constexprs(constexprs)
    run = capture._compile(fn, sig, consts, {})
    if isinstance(run, BaseException):
        raise run
    assert isinstance(run, Run)  # compiled in the foreground: finished
    return run
