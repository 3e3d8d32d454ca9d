"""Intercept `kernel[grid](...)` launches for upstream Triton (cuda/hip targets) into Runs.

The upstream sibling of toolchains/ascend/launch.py, for the `gpu` environment (upstream `triton`). Inside
`intercept_upstream(target=...)` each launch of a `@triton.jit` kernel becomes a Run:

- tensors on this host's GPU and a target that is that GPU (or none given): the launch runs
  for real and is recorded (`compile.capture`: grid, argument shapes and dtypes sit beside
  the IR in run.json);
- numpy arrays or CPU tensors, or no GPU at all: the kernel is cross-compiled for the target
  with the argument types of the call, and the launch is skipped (said in `Launch.note`);
- GPU tensors and another target (hip:gfx942 on an NVIDIA host): the launch runs for real, the
  IR is cross-compiled for the target.

>>> with intercept_upstream(target="cuda:90") as capture:
...     softmax[(rows,)](y, x, x.shape[1], BLOCK=1024)      # numpy arrays: cross-compiled
>>> capture.launches[0].note, capture.runs
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.toolchains.common.kernel_args import launches_taken_over, specialised
from ascend_ir_lab.toolchains.common.launch import (
    Capture,
    Launch,
    Progress,
    compile_watched,
    fresh_folder,
    grid_text,
    kernel_name,
    report_stages,
)
from ascend_ir_lab.toolchains.common.outcome import kept_error
from ascend_ir_lab.toolchains.common.run import Run, update_extra
from ascend_ir_lab.toolchains.common.specialise import Specialisation
from ascend_ir_lab.toolchains.triton import compile as tu
from ascend_ir_lab.toolchains.triton import records
from ascend_ir_lab.toolchains.triton.environment import default_target, device_target
from ascend_ir_lab.toolchains.triton.passes import (
    PassesWanted,
    capture_upstream_passes,
    remember_compile,
)
from ascend_ir_lab.toolchains.triton.sweep import (
    SweepRecords,
    benchmarks_bare,
    keep_cell_source,
    timed_sweep,
)

__all__ = ["UpstreamCapture", "compile_defined_upstream", "intercept_upstream"]


@dataclass
class UpstreamCapture(Capture, SweepRecords):
    """What `intercept_upstream` saw: the launches in order and one Run per kernel compile."""

    target: str | None = None  # None: this host's GPU, else cuda:90
    llvm_dumps: bool = False  # LLVM's pass dumps on request (--llvm): they cost the most
    timings: bool = True
    all_passes: bool = False  # passes of every distinct compile (default: see PassesWanted)
    _inside: bool = False  # capture()'s own launch passes straight through
    _benching: int = 0  # inside an autotuner's benchmark of a config on this GPU
    _tuners: dict[str, Any] = field(default_factory=dict)  # kernel -> its Autotuner
    _config: tuple[int, tuple[str, ...]] | None = None  # (id(config), argument types) timed
    _config_runs: dict[tuple[int, tuple[str, ...]], Run | BaseException] = field(
        default_factory=dict
    )
    _sweep_of: dict[str, tuple[str, ...]] = field(default_factory=dict)  # kernel -> last sweep
    _wanted: PassesWanted = field(default_factory=PassesWanted)

    def on_launch(
        self, fn: Any, original: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """Handle `fn.run(*args, grid=..., warmup=..., **kwargs)`; returns what triton's
        launch returns (the compiled kernel; None where a cross-compile failed)."""
        if self._inside:
            return original(fn, *args, **kwargs)
        if self._benching and device_target() is not None:
            # a config being timed compiles and runs as in the user's code: a cheap record;
            # the config the sweep picks gets its passes when it is launched
            return self._timed_config(fn, original, args, kwargs)
        grid = kwargs.pop("grid")
        warmup = kwargs.pop("warmup", False)
        name = kernel_name(fn)
        target = self.target or default_target()
        device = device_target()
        on_gpu = device is not None and not records.host_args(args)
        try:
            spec = specialised(fn, original, args, kwargs, tu.gpu_target(target))
            record = records.launch_record(fn, grid, args, kwargs)
        except InputError as exc:
            self.errors.append(kept_error(exc))
            self._say("error", {"kernel": name, "error": exc})
            return original(fn, *args, grid=grid, warmup=warmup, **kwargs) if on_gpu else None
        launch = Launch(name, tuple(record["grid"]), spec.signature, spec.constexprs)
        self.launches.append(launch)
        real = functools.partial(original, fn, *args, grid=grid, warmup=warmup, **kwargs)
        if self.kernels is not None and name not in self.kernels:
            return self._finish(launch, real, warmup, on_gpu, target, None)
        key = (id(fn), spec.key)
        if on_gpu and target == device:
            return self._on_device(launch, key, spec, (fn, grid, args, kwargs), real, warmup)
        kernel = None
        if key not in self._compiled:
            dumps = self.all_passes or self._wanted.first(name, spec)
            self._compiled[key], kernel = self._cross_compile(fn, spec, grid, args, kwargs, target,
                                                              dumps)  # fmt: skip
        launch.run = self._found(key, launch)
        if self._benching and self._config is not None:
            self._config_runs[self._config] = self._compiled[key]
            if launch.error is not None:  # the autotuner counts this config out, as triton does
                raise launch.error.__cause__ or launch.error  # triton's own error, as it raises
        elif launch.run is not None and name in self._tuners and not on_gpu:
            launch.run = self._compiled[key] = self._untimed_sweep(name, launch.run)
        return self._finish(launch, real, warmup, on_gpu, target, kernel)

    def _on_device(
        self, launch: Launch, key: tuple[Any, ...], spec: Specialisation,
        call: tuple[Any, Any, tuple[Any, ...], dict[str, Any]], real: Any, warmup: bool,
    ) -> Any:  # fmt: skip
        """A launch on this host's GPU for its own target: recorded (passes for the first
        compile the user wants them of), then launched as triton launches it."""
        fn, grid, args, kwargs = call
        if key not in self._compiled:
            dumps = self.all_passes or self._wanted.first(launch.kernel, spec)
            self._compiled[key], result = self._record_launch(fn, spec, grid, args, kwargs,
                                                              real, warmup, dumps)  # fmt: skip
        else:
            result = real()
            self._compiled[key] = self._picked(launch.kernel, spec, self._compiled[key])
        launch.run = self._found(key, launch)
        launch.launched = launch.run is not None and not warmup
        launch.note = (
            f"{'warmup on' if warmup else 'launched on'} {_device_name()} ({device_target()})"
            "; launch recorded in the Run"
        )
        return result

    def _finish(
        self, launch: Launch, real: Any, warmup: bool, on_gpu: bool, target: str, kernel: Any
    ) -> Any:
        if on_gpu:
            launch.launched = not warmup
            launch.note = (
                ("warmup on " if warmup else "launched on ")
                + _device_name()
                + (f"; IR cross-compiled for {target}" if target != device_target() else "")
            )
            return real()
        if warmup:
            launch.note = f"warmup: cross-compiled for {target}, nothing launched"
            return kernel
        why = "no GPU on this host" if device_target() is None else "arguments on the host"
        launch.note = (
            f"{why}: launch of {launch.kernel}[{grid_text(launch.grid)}] skipped; "
            f"cross-compiled for {target}"
        )
        self._say("launch", {"launch": launch})
        return kernel

    def _cross_compile(
        self,
        fn: Any,
        spec: Specialisation,
        grid: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        target: str,
        dumps: bool = True,
    ) -> tuple[Run | BaseException, Any]:
        name = self._run_name(kernel_name(fn), target)
        folder = fresh_folder(name, self.runs_dir)
        kept: dict[str, Any] = {}
        why = "no GPU on this host" if device_target() is None else "cross-compile"

        def work(kernel: Any, **settings: Any) -> Run:
            run, kept["kernel"] = records.compile_specialised(
                kernel, spec, grid, args, kwargs, reason=why, **settings
            )
            return run

        settings = dict(target=target, name=name, out=folder, dumps=dumps, **self._dumps())
        try:
            run = compile_watched(fn, folder, settings, self._say, compile_fn=work)
        except Exception as exc:  # noqa: BLE001 - shown as a panel by the caller
            if not self._benching:  # a config that does not compile is out of the sweep
                self.errors.append(kept_error(exc))
            return exc, None
        remember_compile(run, fn, spec, target)
        return keep_cell_source(run, fn, target), kept.get("kernel")

    def _record_launch(
        self,
        fn: Any,
        spec: Specialisation,
        grid: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        real: Any,
        warmup: bool,
        dumps: bool = True,
    ) -> tuple[Run | BaseException, Any]:
        """Launch for real on this thread (the GPU context is the user's) and record it:
        with `dumps`, its compile with every MLIR pass (compiled again for the record when
        triton had it already, e.g. from timing an autotune config); else a cheap record of
        what triton compiled, `run.capture()` away from its passes."""
        target = device_target() or "cuda:90"
        name = self._run_name(kernel_name(fn), target)
        folder = fresh_folder(name, self.runs_dir)
        self._say("start", {"kernel": kernel_name(fn), "path": folder, "target": target})
        self._inside = True
        try:
            if dumps:
                run, result = records.record_launch(fn, spec, grid, args, kwargs, real, target=target,
                                               name=name, out=folder, warmup=warmup,
                                               **self._dumps())  # fmt: skip
            else:
                result = real()
                run = records.record_compiled_launch(fn, spec, grid, args, kwargs, result,
                                                target=target, name=name, out=folder,
                                                warmup=warmup)  # fmt: skip
        except Exception as exc:  # noqa: BLE001 - shown as a panel by the caller
            self.errors.append(kept_error(exc))
            self._say("failed", {"kernel": kernel_name(fn), "error": exc})
            return exc, None
        finally:
            self._inside = False
        remember_compile(run, fn, spec, target)
        if dumps and not run.passes_captured:
            run = self._passes_now(run)
        report_stages(folder, 0, self._say)
        run = keep_cell_source(run, fn, target)
        tuner = self._tuners.get(kernel_name(fn))
        if tuner is not None:
            record = timed_sweep(tuner, run.passes_captured)
            self._config_paths(record, tuner, kernel_name(fn))
            run = update_extra(run, {"autotune": record})
        self._say("done", {"run": run})
        return run, result

    def _passes_now(self, run: Run) -> Run:
        try:
            return capture_upstream_passes(run, llvm_dumps=self.llvm_dumps, timings=self.timings)
        except Exception as exc:  # noqa: BLE001 - the cheap record stays; shown by the caller
            self.errors.append(kept_error(exc))
            return run

    def _dumps(self) -> dict[str, bool]:
        return {"llvm_dumps": self.llvm_dumps, "timings": self.timings}

    def _run_name(self, kernel: str, target: str) -> str:
        if self.name is None:
            return f"{kernel}-{target.replace(':', '')}"
        taken = {r.manifest.get("name") for r in self.runs}
        return self.name if self.name not in taken else f"{self.name}-{kernel}"


def _device_name() -> str:
    return records.device_name() or "the GPU"


@contextlib.contextmanager
def intercept_upstream(**settings: Any) -> Iterator[UpstreamCapture]:
    """Take over `kernel[grid](...)` launches for the block (see the module docstring).

    Keywords are UpstreamCapture's fields (target, name, kernels, runs_dir, progress,
    llvm_dumps, timings). `JITFunction.run` is restored on exit, also after an exception.
    """
    capture = UpstreamCapture(**settings)
    with launches_taken_over(capture.on_launch), benchmarks_bare(capture):
        yield capture


def compile_defined_upstream(
    fn: Any,
    *,
    signature: str | Mapping[str, str],
    constexprs: Sequence[str] | Mapping[str, Any] | None = None,
    target: str | None = None,
    name: str | None = None,
    runs_dir: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
    llvm_dumps: bool = False,
) -> Run:
    """Cross-compile a kernel that was only defined (no launch), with a written signature."""
    capture = UpstreamCapture(
        target=target, name=name, runs_dir=runs_dir, progress=progress, llvm_dumps=llvm_dumps
    )
    target = target or default_target()
    run_name = capture._run_name(kernel_name(fn), target)
    folder = fresh_folder(run_name, runs_dir)
    settings: dict[str, Any] = dict(
        signature=signature, constexprs=constexprs, target=target, name=run_name, out=folder
    )
    say = progress or (lambda _event, _info: None)
    run = compile_watched(fn, folder, settings, say, compile_fn=tu.compile_kernel)
    return keep_cell_source(run, fn, target)
