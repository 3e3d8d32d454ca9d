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
import importlib.util
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
    cell_source,
    compile_watched,
    fresh_folder,
    grid_text,
    kernel_name,
    report_stages,
)
from ascend_ir_lab.toolchains.common.run import Run, update_extra, write_manifest
from ascend_ir_lab.toolchains.common.specialise import Specialisation
from ascend_ir_lab.toolchains.common.targets import toolchain_for
from ascend_ir_lab.toolchains.triton import compile as tu

__all__ = [
    "GPU_KERNEL",
    "UpstreamCapture",
    "compile_defined_upstream",
    "intercept_upstream",
    "is_upstream_target",
    "require_upstream_environment",
]

# The Jupyter kernel of .venv-gpu, registered by scripts/setup --all.
GPU_KERNEL = "ascend-ir-lab-gpu"
GPU_KERNEL_DISPLAY = "Python (.venv-gpu, upstream Triton)"


def is_upstream_target(target: str | None) -> bool:
    """Whether `target` is one of upstream Triton's (cuda:NN, hip:gfxNNN)."""
    return toolchain_for(target) == "triton"


def upstream_triton_here() -> bool:
    """Whether this interpreter's `triton` is upstream Triton (not triton-ascend)."""
    try:
        tu.require_upstream_triton()
    except Exception:  # noqa: BLE001 - not installed, or triton-ascend: both mean "no"
        return False
    return True


def require_upstream_environment(target: str) -> None:
    """Raise a clear error, naming the environment to switch to, unless upstream Triton is here."""
    if upstream_triton_here():
        return
    ascend = importlib.util.find_spec("triton") is not None
    why = (
        "the `triton` of this kernel is triton-ascend, and upstream Triton installs under the "
        "same name"
        if ascend
        else "upstream Triton is not installed in this kernel's environment"
    )
    raise InputError(
        f"--target {target} needs upstream Triton: {why}. It lives in its own venv, "
        f".venv-gpu. Run this cell in a kernel of that venv:\n"
        f"  scripts/setup --all   (creates .venv-gpu and its Jupyter kernel {GPU_KERNEL!r})\n"
        f"  then Kernel > Change Kernel > {GPU_KERNEL_DISPLAY!r} and run the cell again.\n"
        f"From the shell, without changing kernels: "
        f"ascend-ir-lab compile FILE.py --target {target}"
    )


@functools.lru_cache(maxsize=1)
def device_target() -> str | None:
    """'cuda:90' / 'hip:gfx942' of this host's GPU, None without one (asked once)."""
    return tu.active_target()


def default_target() -> str:
    """This host's GPU, else cuda:90."""
    return device_target() or "cuda:90"


@dataclass
class UpstreamCapture(Capture):
    """What `intercept_upstream` saw: the launches in order and one Run per kernel compile."""

    target: str | None = None  # None: this host's GPU, else cuda:90
    llvm_dumps: bool = False  # LLVM's pass dumps on request (--llvm): they cost the most
    timings: bool = True
    _inside: bool = False  # capture()'s own launch passes straight through
    _benching: int = 0  # inside an autotuner's benchmark of a config on this GPU
    _tuners: dict[str, Any] = field(default_factory=dict)  # kernel -> its Autotuner

    def on_launch(
        self, fn: Any, original: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """Handle `fn.run(*args, grid=..., warmup=..., **kwargs)`; returns what triton's
        launch returns (the compiled kernel; None where a cross-compile failed)."""
        if self._inside or (self._benching and device_target() is not None):
            # a config being timed compiles and runs as in the user's code: no dumps; the
            # config the sweep picks is recorded with every pass when it is launched
            return original(fn, *args, **kwargs)
        grid = kwargs.pop("grid")
        warmup = kwargs.pop("warmup", False)
        name = kernel_name(fn)
        target = self.target or default_target()
        device = device_target()
        on_gpu = device is not None and not tu.host_args(args)
        try:
            spec = specialised(fn, original, args, kwargs, tu.gpu_target(target))
            record = tu.launch_record(fn, grid, args, kwargs)
        except InputError as exc:
            self.errors.append(exc)
            self._say("error", {"kernel": name, "error": exc})
            return original(fn, *args, grid=grid, warmup=warmup, **kwargs) if on_gpu else None
        launch = Launch(name, tuple(record["grid"]), spec.signature, spec.constexprs)
        self.launches.append(launch)
        real = functools.partial(original, fn, *args, grid=grid, warmup=warmup, **kwargs)
        if self.kernels is not None and name not in self.kernels:
            return self._finish(launch, real, warmup, on_gpu, target, None)
        key = (id(fn), spec.key)
        if on_gpu and target == device and key not in self._compiled:
            self._compiled[key], result = self._record_launch(fn, spec, grid, args, kwargs, real,
                                                              warmup)  # fmt: skip
            launch.run = self._found(key, launch)
            launch.launched = launch.run is not None and not warmup
            launch.note = f"{'warmup on' if warmup else 'launched on'} {_device_name()} ({device})"
            launch.note += "; launch recorded in the Run"
            return result
        kernel = None
        if key not in self._compiled:
            self._compiled[key], kernel = self._cross_compile(fn, spec, grid, args, kwargs, target)
        launch.run = self._found(key, launch)
        return self._finish(launch, real, warmup, on_gpu, target, kernel)

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
    ) -> tuple[Run | BaseException, Any]:
        name = self._run_name(kernel_name(fn), target)
        folder = fresh_folder(name, self.runs_dir)
        kept: dict[str, Any] = {}
        why = "no GPU on this host" if device_target() is None else "cross-compile"

        def work(kernel: Any, **settings: Any) -> Run:
            run, kept["kernel"] = tu.compile_specialised(
                kernel, spec, grid, args, kwargs, reason=why, **settings
            )
            return run

        settings = dict(target=target, name=name, out=folder, **self._dumps())
        try:
            run = compile_watched(fn, folder, settings, self._say, compile_fn=work)
        except Exception as exc:  # noqa: BLE001 - shown as a panel by the caller
            self.errors.append(exc)
            return exc, None
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
    ) -> tuple[Run | BaseException, Any]:
        """Launch for real on this thread (the GPU context is the user's) and record it."""
        target = device_target() or "cuda:90"
        name = self._run_name(kernel_name(fn), target)
        folder = fresh_folder(name, self.runs_dir)
        self._say("start", {"kernel": kernel_name(fn), "path": folder, "target": target})
        self._inside = True
        try:
            run, result = tu.record_launch(fn, spec, grid, args, kwargs, real, target=target,
                                           name=name, out=folder, warmup=warmup,
                                           **self._dumps())  # fmt: skip
        except Exception as exc:  # noqa: BLE001 - shown as a panel by the caller
            self.errors.append(exc)
            self._say("failed", {"kernel": kernel_name(fn), "error": exc})
            return exc, None
        finally:
            self._inside = False
        report_stages(folder, 0, self._say)
        run = keep_cell_source(run, fn, target)
        tuner = self._tuners.get(kernel_name(fn))
        if tuner is not None:
            run = update_extra(run, {"autotune": timed_sweep(tuner)})
        self._say("done", {"run": run})
        return run, result

    def _dumps(self) -> dict[str, bool]:
        return {"llvm_dumps": self.llvm_dumps, "timings": self.timings}

    def _run_name(self, kernel: str, target: str) -> str:
        if self.name is None:
            return f"{kernel}-{target.replace(':', '')}"
        taken = {r.manifest.get("name") for r in self.runs}
        return self.name if self.name not in taken else f"{self.name}-{kernel}"


def keep_cell_source(run: Run, fn: Any, target: str) -> Run:
    """For a kernel defined in a notebook cell, keep the whole cell as source.py so that IR
    locations (cell line numbers) match, as launch.annotate_run does for Ascend Runs."""
    cell = cell_source(fn)
    if cell is None:
        return run
    text, filename, first_line = cell
    manifest = dict(run.manifest)
    (run.path / "source.py").write_text(text)
    manifest["kernel"] = {
        **(manifest.get("kernel") or {}),
        "file": filename,
        "first_line": first_line,
    }
    write_manifest(run.path, manifest)
    return Run(run.path)


def _device_name() -> str:
    return tu.device_name() or "the GPU"


@contextlib.contextmanager
def intercept_upstream(**settings: Any) -> Iterator[UpstreamCapture]:
    """Take over `kernel[grid](...)` launches for the block (see the module docstring).

    Keywords are UpstreamCapture's fields (target, name, kernels, runs_dir, progress,
    llvm_dumps, timings). `JITFunction.run` is restored on exit, also after an exception.
    """
    capture = UpstreamCapture(**settings)
    with launches_taken_over(capture.on_launch), _benchmarks_bare(capture):
        yield capture


@contextlib.contextmanager
def _benchmarks_bare(capture: UpstreamCapture) -> Iterator[None]:
    """While `@triton.autotune` times its configs, launches pass straight through (each
    config compiles as in the user's code); the autotuner is kept to list the sweep."""
    try:
        from triton.runtime.autotuner import Autotuner
    except ImportError:
        yield
        return
    original = Autotuner._bench

    def bench(self: Any, *args: Any, **kwargs: Any) -> Any:
        capture._benching += 1
        try:
            return original(self, *args, **kwargs)
        finally:
            capture._benching -= 1
            capture._tuners[kernel_name(self.base_fn)] = self

    Autotuner._bench = bench
    try:
        yield
    finally:
        Autotuner._bench = original


def timed_sweep(tuner: Any) -> dict[str, Any]:
    """`extra.autotune` of the config an autotuner picked: each config with its timings."""
    timings = dict(getattr(tuner, "configs_timings", None) or {})
    best = getattr(tuner, "best_config", None)
    configs, chosen = [], None
    for index, config in enumerate(getattr(tuner, "configs", [])):
        if config is best:
            chosen = index
        ms = timings.get(config)
        configs.append({
            "index": index,
            "config": {k: v if isinstance(v, (bool, int, float, str)) else repr(v)
                       for k, v in config.all_kwargs().items()},
            "ms": [float(t) for t in ms] if isinstance(ms, (list, tuple)) else ms,
            "passes_captured": config is best,
        })  # fmt: skip
    return {"configs": configs, "chosen": chosen, "timed": True,
            "note": "configs timed on the device as the user's code times them; the one "
                    "picked was recompiled with every pass"}  # fmt: skip


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
