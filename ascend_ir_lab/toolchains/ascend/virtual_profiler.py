"""`torch_npu.profiler` of the virtual NPU: the profiled block runs, nothing is profiled.

Scripts wrap their launches in the profiler (triton-ascend's `do_bench_npu`, its tutorials'
`profiler_wrapper`): the launches must run (they are compiled into Runs and their results
checked), and the profile cannot exist, as there is no device timeline. So `profile(...)`
runs its block, `step()` counts, the `on_trace_ready` handler is never called (no trace
folder is written; a reader of one finds none, as after a profile that recorded nothing),
and leaving the block says so once. What only reads a profile (`key_averages`,
`export_chrome_trace`) is an NPUOnlyError naming it.
"""

from __future__ import annotations

import enum
import sys
import types
from collections.abc import Callable
from typing import Any

__all__ = ["profiler_module"]

NOTHING_PROFILED = (
    "torch_npu.profiler: nothing profiled (the virtual NPU has no device timeline); "
    "the block ran, no trace was written (a timing read from one finds none: "
    "triton.testing.do_bench_npu gives inf)"
)


class ProfilerActivity(enum.Enum):
    """What a profile records."""

    CPU = "CPU"
    NPU = "NPU"


class ProfilerLevel(enum.Enum):
    """How much a profile records."""

    Level_none = "Level_none"
    Level0 = "Level0"
    Level1 = "Level1"
    Level2 = "Level2"


class AiCMetrics(enum.Enum):
    """The AI Core counters a profile reads."""

    AiCoreNone = "AiCoreNone"
    PipeUtilization = "PipeUtilization"
    ArithmeticUtilization = "ArithmeticUtilization"
    Memory = "Memory"
    MemoryL0 = "MemoryL0"
    MemoryUB = "MemoryUB"
    ResourceConflictRatio = "ResourceConflictRatio"
    L2Cache = "L2Cache"


class ExportType(enum.Enum):
    """The trace formats a profile writes."""

    Db = "db"
    Text = "text"


class _ExperimentalConfig:
    """Profile options: kept, nothing to apply them to."""

    def __init__(self, **options: Any) -> None:
        self.options = options


class profile:  # noqa: N801  # torch_npu's name
    """A profile that records nothing: its block runs as without it."""

    said = [False]  # whether a profile of this virtual NPU said so (one per profiler_module)

    def __init__(self, *_args: Any, **kwargs: Any) -> None:
        self.step_num = 0
        self.options = kwargs

    def __enter__(self) -> profile:
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.stop()

    def start(self) -> None:
        """Nothing to start."""

    def stop(self) -> None:
        """Say, once per virtual NPU, that nothing was profiled."""
        if not self.said[0]:
            self.said[0] = True
            print(f"[ascend-ir-lab] {NOTHING_PROFILED}", file=sys.stderr, flush=True)

    def step(self) -> None:
        """Count the step."""
        self.step_num += 1

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        from ascend_ir_lab.toolchains.ascend.npu import NPUOnlyError

        raise NPUOnlyError(f"torch_npu.profiler.profile.{name}")


def schedule(*_args: Any, **_kwargs: Any) -> Callable[[int], Any]:
    """A schedule: every step records (nothing)."""
    return lambda _step: None


def tensorboard_trace_handler(*_args: Any, **_kwargs: Any) -> Callable[[Any], None]:
    """A trace handler that is never called: a profile here has no trace."""
    return lambda _prof: None


def supported_activities() -> set[ProfilerActivity]:
    """What a profile could record."""
    return {ProfilerActivity.CPU, ProfilerActivity.NPU}


def profiler_module(base: type[types.ModuleType]) -> types.ModuleType:
    """`torch_npu.profiler`, its other attributes `base`'s (NPU-only) answers."""
    module = base("torch_npu.profiler", __doc__)
    fresh = type("profile", (profile,), {"said": [False], "__doc__": profile.__doc__})
    for value in (
        ProfilerActivity, ProfilerLevel, AiCMetrics, ExportType, _ExperimentalConfig,
        schedule, tensorboard_trace_handler, supported_activities,
    ):  # fmt: skip
        setattr(module, value.__name__, value)
    module.profile = fresh  # type: ignore[attr-defined]
    return module
