"""A call of an upstream-Triton kernel into a Run: launched on this host's GPU, or
specialised as triton would specialise it and cross-compiled.

>>> run = capture(softmax, (rows,), y, x, x.stride(0), y.stride(0), n, BLOCK=1024)

launches for real when this host has a GPU of the wanted target and the tensors live on it
(the Run records grid, argument shapes and dtypes next to the IR), and otherwise
cross-compiles for `target` (default cuda:90) with the signature read from the arguments:
numpy arrays, CPU tensors or `TensorSpec`s. The launch takeover (`launch`, `sweep`) records
its launches through `record_launch`, `record_compiled_launch` and `compile_specialised`.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

from ascend_ir_lab.toolchains.common.kernel_args import specialised, triton_run
from ascend_ir_lab.toolchains.common.kernels import load_kernel
from ascend_ir_lab.toolchains.common.launch import kernel_name
from ascend_ir_lab.toolchains.common.run import Run
from ascend_ir_lab.toolchains.common.specialise import Specialisation
from ascend_ir_lab.toolchains.triton.capture import record_compiled, recording
from ascend_ir_lab.toolchains.triton.compile import (
    TensorSpec,
    compile_src,
    gpu_target,
    require_upstream_triton,
    start_specialised,
    versions,
)


def capture(
    kernel: Any,
    grid: Any,
    *args: Any,
    target: str | None = None,
    name: str | None = None,
    out: str | os.PathLike[str] | None = None,
    llvm_dumps: bool = False,
    timings: bool = True,
    **kwargs: Any,
) -> Run:
    """Launch `kernel[grid](*args, **kwargs)` on this host's GPU and record it, or, with no
    such GPU (or CPU arguments), cross-compile it for `target` (default cuda:90)."""
    require_upstream_triton()
    fn = load_kernel(kernel) if isinstance(kernel, str) else kernel
    device = active_target()
    launch = device is not None and target in (None, device) and not host_args(args)
    target = target or device or "cuda:90"
    spec = specialised(fn, triton_run(), args, kwargs, gpu_target(target))
    if not launch:
        why = "no GPU on this host" if device is None else f"arguments on the host or {device}"
        return compile_specialised(
            fn, spec, grid, args, kwargs, reason=why,
            target=target, name=name, out=out, llvm_dumps=llvm_dumps, timings=timings,
        )[0]  # fmt: skip
    run, _ = record_launch(
        fn, spec, grid, args, kwargs, lambda: fn[grid](*args, **kwargs),
        target=target, name=name, out=out, llvm_dumps=llvm_dumps, timings=timings,
    )  # fmt: skip
    return run


def record_launch(
    fn: Any,
    spec: Specialisation,
    grid: Any,
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    launch: Any,
    *,
    target: str,
    name: str | None = None,
    out: str | os.PathLike[str] | None = None,
    llvm_dumps: bool = True,
    timings: bool = True,
    warmup: bool = False,
    dumps: bool = True,
) -> tuple[Run, Any]:
    """Run `launch()` (a real launch, or warmup, on this host's GPU) and record its compile
    into a Run; (the Run, what the launch returned). Without `dumps`, a cheap record."""
    writer = start_specialised(fn, spec, target, name, out)
    record = launch_record(fn, grid, args, kwargs)
    start = time.perf_counter()
    with recording(
        writer, kernel_name(fn), [sys.executable, "<cell>"], llvm_dumps=llvm_dumps,
        timings=timings, dumps=dumps,
    ):  # fmt: skip
        try:
            result = launch()
            _synchronize(args)
        except Exception as exc:
            writer.set_extra("launch", {**record, "launched": False, "error": str(exc)})
            writer.finish("compile-error", f"launch failed: {exc}")
            raise
    writer.set_extra(
        "launch",
        {
            **record,
            "launched": not warmup,
            "device": device_name(),
            "seconds": round(time.perf_counter() - start, 4),
            **({"reason": "warmup"} if warmup else {}),
        },
    )
    writer.set("versions", versions(target))
    if not writer.manifest.get("stages"):
        # triton found the kernel in its own cache (an autotuner compiled it while timing
        # the configs): nothing was compiled to record; keep what triton has of it
        record_compiled(writer, kernel_name(fn), result, [sys.executable, "<cell>"])
    return writer.finish("ok" if writer.manifest.get("stages") else "compile-error"), result


def record_compiled_launch(
    fn: Any,
    spec: Specialisation,
    grid: Any,
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    compiled: Any,
    *,
    target: str,
    name: str | None = None,
    out: str | os.PathLike[str] | None = None,
    warmup: bool = False,
) -> Run:
    """A cheap record of a launch that ran: what triton compiled for it (`compiled.asm`,
    no per-pass dumps), the grid and the arguments; `capture_passes` adds the passes."""
    writer = start_specialised(fn, spec, target, name, out)
    record_compiled(writer, kernel_name(fn), compiled, [sys.executable, "<cell>"])
    writer.set_extra("launch", {**launch_record(fn, grid, args, kwargs), "launched": not warmup,
                                "device": device_name(), **({"reason": "warmup"} if warmup else {})})  # fmt: skip
    writer.set_extra("options", spec.given)
    writer.set("versions", versions(target))
    return writer.finish("ok" if writer.manifest.get("stages") else "compile-error")


def compile_specialised(
    fn: Any,
    spec: Specialisation,
    grid: Any,
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    *,
    target: str,
    reason: str,
    name: str | None = None,
    out: str | os.PathLike[str] | None = None,
    llvm_dumps: bool = True,
    timings: bool = True,
    dumps: bool = True,
    launch: Mapping[str, Any] | None = None,
) -> tuple[Run, Any]:
    """Cross-compile what triton would compile for the call (`spec`) into a Run; (the Run,
    triton's compiled kernel, None when a stage failed). Without `dumps`, a cheap record.
    `launch` replaces the launch record (a launch that ran elsewhere: its passes now)."""
    writer = start_specialised(fn, spec, target, name, out)
    record = launch_record(fn, grid, args, kwargs)
    writer.set_extra("launch", dict(launch) if launch else
                     {**record, "launched": False, "reason": reason})  # fmt: skip
    writer.set_extra("options", spec.given)
    return compile_src(
        writer, fn, spec.src, target, spec.options, llvm_dumps, timings, True, dumps=dumps
    )


def active_target() -> str | None:
    """'cuda:90' / 'hip:gfx942' for this host's active GPU, None without one."""
    try:
        from triton.runtime import driver

        if getattr(driver.active, "virtual", False):  # the virtual GPU is no GPU
            return None
        tgt = driver.active.get_current_target()
    except Exception:  # noqa: BLE001 - no driver, no device, no CUDA library: all mean "none"
        return None
    return f"{tgt.backend}:{tgt.arch}"


def launch_record(
    fn: Any, grid: Any, args: Sequence[Any], kwargs: Mapping[str, Any]
) -> dict[str, Any]:
    """Grid and arguments of a launch, as run.json keeps them (no tensor data)."""
    names = list(getattr(fn, "arg_names", []))
    described = [_describe(n, v) for n, v in zip(names, args, strict=False)]
    described += [_describe(k, v) for k, v in kwargs.items()]
    if callable(grid):
        params = list(getattr(fn, "params", []))
        meta = {p.name: p.default for p in params if p.has_default}
        grid = grid({**meta, **dict(zip(names, args, strict=False)), **kwargs})
    if isinstance(grid, int):
        grid = (grid,)
    return {"grid": [int(g) for g in grid], "args": described}


def host_args(args: Sequence[Any]) -> bool:
    """Whether any tensor argument lives on the host (numpy, CPU tensor, TensorSpec)."""
    for value in args:
        if isinstance(value, TensorSpec):
            return True
        if hasattr(value, "dtype") and hasattr(value, "shape"):
            device = getattr(value, "device", None)
            if device is None or getattr(device, "type", str(device)) == "cpu":
                return True
    return False


def device_name() -> str | None:
    """The name of this host's CUDA GPU (None without torch or a GPU)."""
    if "torch" in sys.modules and sys.modules["torch"].cuda.is_available():
        return str(sys.modules["torch"].cuda.get_device_name())
    return None


def _describe(name: str, value: Any) -> dict[str, Any]:
    if hasattr(value, "base") and hasattr(value, "block_shape"):  # a TensorDescriptor
        return {
            "name": name,
            "kind": "tensordesc",
            "shape": [int(s) for s in value.shape],
            "block_shape": [int(s) for s in value.block_shape],
            "dtype": str(getattr(value.base, "dtype", "?")).rsplit(".", 1)[-1],
        }
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        device = getattr(value, "device", "host")
        return {
            "name": name,
            "kind": "tensor",
            "shape": [int(s) for s in value.shape],
            "dtype": str(value.dtype).rsplit(".", 1)[-1],
            "device": str(device),
        }
    return {
        "name": name,
        "kind": "scalar",
        "type": type(value).__name__,
        "value": value if isinstance(value, (bool, int, float, str)) else repr(value),
    }


def _synchronize(args: Sequence[Any]) -> None:
    if "torch" in sys.modules:
        torch = sys.modules["torch"]
        if torch.cuda.is_available():
            torch.cuda.synchronize()
