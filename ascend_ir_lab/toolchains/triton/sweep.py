"""Autotune sweeps under upstream Triton: every config a cheap record, the picked one deep.

On a GPU the autotuner times each config as the user's code does; each config's first
launch leaves a cheap record of what triton compiled, and the config it picks, once launched,
gets its passes and lists the whole sweep (each config's timings and Run) under
`extra.autotune`. With no GPU (the virtual GPU) nothing is timed: each config is
cross-compiled as a cheap record and the first stands in for the best.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

from ascend_ir_lab.toolchains.common.kernel_args import specialised
from ascend_ir_lab.toolchains.common.launch import fresh_folder, keep_cell, kernel_name
from ascend_ir_lab.toolchains.common.run import Run, update_extra, write_manifest
from ascend_ir_lab.toolchains.common.specialise import Specialisation
from ascend_ir_lab.toolchains.triton import compile as tu
from ascend_ir_lab.toolchains.triton import records
from ascend_ir_lab.toolchains.triton.passes import remember_compile

__all__ = ["SweepRecords", "arg_types", "benchmarks_bare", "keep_cell_source", "timed_sweep"]


class SweepRecords:
    """The sweep part of UpstreamCapture (its fields: _config, _config_runs, _tuners,
    _compiled, _wanted, all_passes, runs_dir)."""

    _config: tuple[int, tuple[str, ...]] | None
    _config_runs: dict[tuple[int, tuple[str, ...]], Run | BaseException]
    _sweep_of: dict[str, tuple[str, ...]]
    _tuners: dict[str, Any]
    _compiled: dict[tuple[Any, ...], Run | BaseException]
    _wanted: Any
    all_passes: bool
    runs_dir: Any

    def _run_name(self, kernel: str, target: str) -> str:
        raise NotImplementedError  # UpstreamCapture's

    def _passes_now(self, run: Run) -> Run:
        raise NotImplementedError  # UpstreamCapture's

    def _timed_config(
        self, fn: Any, original: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """A launch of an autotuner timing a config on this GPU: it runs as in the user's
        code; the config's first launch leaves a cheap record of what triton compiled."""
        config = self._config
        result = original(fn, *args, **kwargs)
        if config is not None and config not in self._config_runs:
            self._config_runs[config] = self._cheap_config(fn, original, args, kwargs, result)
        return result

    def _cheap_config(
        self, fn: Any, original: Any, args: tuple[Any, ...], kwargs: dict[str, Any], result: Any
    ) -> Run | BaseException:
        given = dict(kwargs)
        grid, warmup = given.pop("grid"), given.pop("warmup", False)
        target = records.active_target() or "cuda:90"
        try:
            spec = specialised(fn, original, args, given, tu.gpu_target(target))
            key = (id(fn), spec.key)
            if key not in self._compiled:
                name = self._run_name(kernel_name(fn), target)
                run = records.record_compiled_launch(
                    fn, spec, grid, args, given, result, target=target, name=name,
                    out=fresh_folder(name, self.runs_dir), warmup=warmup,
                )  # fmt: skip
                remember_compile(run, fn, spec, target)
                self._compiled[key] = keep_cell_source(run, fn, target)
        except Exception as exc:  # noqa: BLE001 - a config without a record; the sweep goes on
            return exc
        return self._compiled[key]

    def _picked(self, name: str, spec: Specialisation, found: Run | BaseException) -> Any:
        """The config an autotuner picked on this GPU, launched: its passes (first compile of
        the kernel and types, or every one with all_passes) and the sweep, in its Run."""
        tuner = self._tuners.get(name)
        if not isinstance(found, Run) or tuner is None:
            return found
        if "autotune" in (found.manifest.get("extra") or {}):
            return found
        run: Run = found
        if (self.all_passes or self._wanted.first(name, spec)) and not run.passes_captured:
            run = self._passes_now(run)

        record = timed_sweep(tuner, run.passes_captured)
        self._config_paths(record, tuner, name)
        return update_extra(run, {"autotune": record})

    def _config_paths(self, record: dict[str, Any], tuner: Any, name: str) -> None:
        types = self._sweep_of.get(name, ())
        for entry, config in zip(record["configs"], tuner.configs, strict=False):
            found = self._config_runs.get((id(config), types))
            entry["run"] = str(found.path) if isinstance(found, Run) else None
            entry["status"] = (
                found.status if isinstance(found, Run)
                else f"failed: {type(found).__name__}" if found is not None
                else "failed"  # triton counted it out (out of resources, no compile)
            )  # fmt: skip

    def _untimed_sweep(self, name: str, run: Run) -> Run:
        """The sweep listed in the Run of the config that stood in for the best (no GPU)."""

        if "autotune" in (run.manifest.get("extra") or {}):
            return run
        record = timed_sweep(self._tuners[name], run.passes_captured, timed=False)
        self._config_paths(record, self._tuners[name], name)
        return update_extra(run, {"autotune": record})


def arg_types(args: Any) -> tuple[str, ...]:
    """The dtypes (or Python types) of a launch's arguments: one sweep of an autotuner."""
    return tuple(str(getattr(a, "dtype", type(a).__name__)) for a in args)


def keep_cell_source(run: Run, fn: Any, target: str) -> Run:
    """For a kernel defined in a notebook cell, keep the whole cell as source.py so that IR
    locations (cell line numbers) match, as the Ascend launch does (common.launch.keep_cell)."""
    manifest = dict(run.manifest)
    if not keep_cell(run.path, manifest, fn):
        return run
    write_manifest(run.path, manifest)
    return Run(run.path)


@contextlib.contextmanager
def benchmarks_bare(capture: Any) -> Iterator[None]:
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
        config, types = kwargs.get("config"), arg_types(args)
        # one sweep: a config and the argument types (the same configs serve every sweep)
        capture._config = (id(config), types) if config is not None else None
        capture._sweep_of[kernel_name(self.base_fn)] = types
        try:
            return original(self, *args, **kwargs)
        finally:
            capture._benching -= 1
            capture._config = None
            capture._tuners[kernel_name(self.base_fn)] = self

    Autotuner._bench = bench
    try:
        yield
    finally:
        Autotuner._bench = original


def timed_sweep(tuner: Any, captured: bool = True, timed: bool = True) -> dict[str, Any]:
    """`extra.autotune` of the config an autotuner picked: each config with its timings
    (None for a config that could not run: triton times those as inf). Not `timed` (no
    GPU): every config compiled, none timed, the first stands in for the best."""
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
            "ms": _finite_ms(ms),
            "passes_captured": config is best and captured,
        })  # fmt: skip
    if not timed:
        for entry in configs:
            entry["ms"] = None
        return {"configs": configs, "chosen": chosen, "timed": False,
                "note": "no GPU to time the configs on: each compiled as the user's code "
                        "compiles it (cheap records), none timed; the first stands in for "
                        "the best"}  # fmt: skip
    return {"configs": configs, "chosen": chosen, "timed": True,
            "note": "configs timed on the device as the user's code times them; the one "
                    "picked was recompiled with every pass"}  # fmt: skip


def _finite_ms(ms: Any) -> list[float | None] | float | None:
    """Timings as run.json holds them: finite numbers, None where a config failed."""
    values = list(ms) if isinstance(ms, (list, tuple)) else [ms]
    kept = [float(t) if isinstance(t, (int, float)) and math.isfinite(t) else None
            for t in values]  # fmt: skip
    return kept if isinstance(ms, (list, tuple)) else kept[0]
