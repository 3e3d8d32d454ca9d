"""`@triton.autotune` with no device to time its configs: each config's benchmark run becomes
an offline compile of the capture (a Run per config, a record of each in `capture.sweeps`),
and a stand-in for the best is chosen without timing (`autotune_untimed`)."""

from __future__ import annotations

import contextlib
import inspect
import math
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ascend_ir_lab.runs import Run
from ascend_ir_lab.toolchains.ascend.npu import no_device_to_time
from ascend_ir_lab.toolchains.common.launch import Launch, kernel_name, launch_grid
from ascend_ir_lab.toolchains.common.tools import npu_available

if TYPE_CHECKING:
    from ascend_ir_lab.toolchains.ascend.launch import LaunchCapture

__all__ = ["autotune_untimed", "config_outcome"]


@contextlib.contextmanager
def autotune_untimed(capture: LaunchCapture) -> Iterator[None]:
    """With no NPU, `@triton.autotune` cannot time its configs: each config's benchmark run
    becomes an offline compile (a Run per config) and the configs keep their order, so the
    first one stands in for the best (with `interpret`, the one with the fewest programs, the
    quickest to interpret). With an NPU, autotuning runs as usual."""
    if npu_available():
        yield
        return
    from triton.runtime.autotuner import Autotuner

    original, original_init = Autotuner._bench, Autotuner.__init__
    original_prune = Autotuner.prune_configs

    def prune(self: Any, kwargs: dict[str, Any]) -> list[Any]:
        self._ail_benched = list(original_prune(self, kwargs))  # the configs benched next
        return list(self._ail_benched)

    signature = inspect.signature(original_init)

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        # Defining an autotuned kernel asks the (absent) driver for a benchmarker. A
        # subclass may pass it by position (triton-ascend's AutoTilingTuner passes all).
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError:  # not this signature: left to the original to say
            original_init(self, *args, **kwargs)
            return
        if "do_bench" in signature.parameters and bound.arguments.get("do_bench") is None:
            bound.arguments["do_bench"] = no_device_to_time
        original_init(*bound.args, **bound.kwargs)

    def bench(self: Any, *args: Any, config: Any, **meta: Any) -> list[float]:
        name = kernel_name(self.base_fn)
        capture.autotuned[name] = capture.autotuned.get(name, 0) + 1
        index = self.configs.index(config)
        if capture.configs is None and not capture.interpret:
            capture._cheap = config is not _first_benched(self)  # its passes, once, here
        else:  # (interpreted: the stand-in is known once every grid is; captured after)
            capture._cheap = capture.configs is None or index not in capture.configs
        kind = "record only" if capture._cheap else "with passes"
        capture._step = f"config {index + 1}/{len(self.configs)} ({kind})"
        seen = len(capture.launches)
        try:
            # taken over: compiled, neither launched nor interpreted (the chosen one is, after)
            self.fn.run(*args, **{**meta, "warmup": True}, **config.all_kwargs())
        finally:
            capture._cheap, capture._step = False, ""
        _note_config(capture, name, index, config, capture.launches[seen:])
        if capture.interpret:  # the config with the fewest programs: quickest to interpret
            grid = launch_grid(meta["grid"], self.fn, args, {**meta, **config.all_kwargs()})
            return [float(math.prod(grid))]
        return [float(self.configs.index(config))]

    Autotuner._bench, Autotuner.__init__, Autotuner.prune_configs = bench, init, prune
    try:
        yield
    finally:
        Autotuner._bench, Autotuner.__init__ = original, original_init
        Autotuner.prune_configs = original_prune


def _first_benched(tuner: Any) -> Any:
    """The config the untimed sweep picks with no interpreter (`bench` scores each by its
    index): the first of those benched."""
    benched = getattr(tuner, "_ail_benched", None) or tuner.configs
    return min(benched, key=tuner.configs.index)


def _note_config(
    capture: LaunchCapture, name: str, index: int, config: Any, launches: Sequence[Launch]
) -> None:
    """Keep a sweep config's record (its compile's key finds its Run later; a compile still
    finishing in the background gets its outcome once it has)."""
    if not launches:
        return
    launch = launches[-1]
    key = capture._keys.get(id(launch))
    pending = key in capture._pending
    outcome = {"status": None, "compile_seconds": None} if pending else config_outcome(launch.run)
    capture.sweeps.setdefault(name, []).append(
        {
            "index": index,
            "config": {k: _plain(v) for k, v in config.all_kwargs().items()},
            **outcome,
            "_key": key,
        }
    )


def config_outcome(run: Run | None) -> dict[str, Any]:
    """A sweep config's status and compile time, from its Run (None: it failed)."""
    seconds = sum(float(s.get("seconds") or 0) for s in run.stages) if run else None
    return {
        "status": run.status if run else "compile-error",
        "compile_seconds": round(seconds, 4) if seconds is not None else None,
    }


def _plain(value: Any) -> Any:
    return value if isinstance(value, (bool, int, float, str, type(None))) else repr(value)
