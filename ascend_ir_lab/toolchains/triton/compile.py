"""Upstream Triton (NVIDIA / AMD) into a Run: stages ttir, ttgir, llir, ptx (amdgcn for hip).

One entry point serves both kinds of host:

>>> run = capture(softmax, (rows,), y, x, x.stride(0), y.stride(0), n, BLOCK=1024)

launches for real when this host has a GPU of the wanted target and the tensors live on it
(the Run records grid, argument shapes and dtypes next to the IR), and otherwise
cross-compiles for `target` (default cuda:90) with the signature read from the arguments:
numpy arrays, CPU tensors or `TensorSpec`s. `compile_kernel` is the explicit cross-compile
with a written signature (what `ascend-ir-lab triton-compile` calls).

Upstream `triton` and triton-ascend both import as `triton`: this module needs an
environment of its own (extra `gpu`); `compile_in` runs the same compile under another
interpreter, e.g. from the Ascend environment.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ascend_ir_lab.errors import CompilerError, InputError, ToolNotFoundError
from ascend_ir_lab.toolchains.ascend.ttir_stage import (
    kernel_source,
    load_kernel,
    parse_constexprs,
    parse_signature,
)
from ascend_ir_lab.toolchains.common.kernel_args import specialised, triton_run
from ascend_ir_lab.toolchains.common.process import DEFAULT_TIMEOUT_S, run_logged
from ascend_ir_lab.toolchains.common.run import Run, RunWriter
from ascend_ir_lab.toolchains.common.specialise import Specialisation
from ascend_ir_lab.toolchains.triton.capture import record_compiled, recording

TARGETS = ("cuda:90", "cuda:80", "hip:gfx942")
_OPTION_NAMES = ("num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion")


@dataclass(frozen=True)
class TensorSpec:
    """Shape and dtype of a tensor argument, for cross-compiling without allocating it."""

    shape: tuple[int, ...]
    dtype: str  # numpy/torch spelling: "float32", "float16", ...


def parse_target(text: str) -> tuple[str, int | str, int]:
    """'cuda:90' -> ('cuda', 90, 32); 'hip:gfx942' -> ('hip', 'gfx942', 64)."""
    backend, sep, arch = text.partition(":")
    if backend == "cuda" and sep and arch.isdigit():
        return backend, int(arch), 32
    if backend == "hip" and sep and arch.startswith("gfx"):
        return backend, arch, 64
    raise InputError(
        f"--target {text!r}: expected cuda:<capability> or hip:<gfx arch> "
        f"(e.g. {', '.join(TARGETS)})"
    )


def require_upstream_triton() -> None:
    """Raise a clear error unless `triton` here is upstream Triton with its GPU backends."""
    if importlib.util.find_spec("triton") is None:
        raise ToolNotFoundError("upstream triton", "triton  (in its own venv: extra 'gpu')")
    if importlib.util.find_spec("triton.backends.ascend") is not None:
        raise InputError(
            "the `triton` of this environment is triton-ascend; upstream Triton "
            "needs its own venv (python -m venv .venv-gpu && .venv-gpu/bin/pip "
            "install triton), then pass --python .venv-gpu/bin/python"
        )


def compile_kernel(
    kernel: Any,
    *,
    signature: str | Mapping[str, str],
    constexprs: Sequence[str] | Mapping[str, Any] | None = None,
    target: str = "cuda:90",
    options: Mapping[str, Any] | None = None,
    assume_aligned: bool = True,
    llvm_dumps: bool = False,
    timings: bool = True,
    name: str | None = None,
    out: str | os.PathLike[str] | None = None,
    check: bool = True,
) -> Run:
    """Cross-compile `kernel` ("FILE.py::KERNEL" or a @triton.jit function) for `target`.

    No GPU needed. `assume_aligned` marks pointer arguments 16-byte aligned, as a launch
    with torch tensors would. MLIR passes are always printed; LLVM's (`llvm_dumps`, the
    CLI's --llvm) only on request: they cost far more than the compile. With `check`, a failing stage raises CompilerError.
    """
    require_upstream_triton()
    fn = load_kernel(kernel) if isinstance(kernel, str) else kernel
    sig = parse_signature(signature)
    consts = parse_constexprs(constexprs)
    writer = _start(
        fn, sig, consts, target, name, out, command=_cli_command(kernel, sig, consts, target)
    )
    writer.set_extra("launch", {"launched": False, "reason": "cross-compile"})
    return _compile(
        writer,
        fn,
        sig,
        consts,
        target,
        dict(options or {}),
        assume_aligned,
        llvm_dumps,
        timings,
        check,
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
    launch = device is not None and target in (None, device) and not _host_args(args)
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


def gpu_target(target: str) -> Any:
    """triton's GPUTarget for 'cuda:90' / 'hip:gfx942'."""
    from triton.backends.compiler import GPUTarget

    return GPUTarget(*parse_target(target))


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
    writer = _start_specialised(fn, spec, target, name, out)
    record = launch_record(fn, grid, args, kwargs)
    start = time.perf_counter()
    with recording(
        writer, _kernel_name(fn), [sys.executable, "<cell>"], llvm_dumps=llvm_dumps,
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
            "device": _device_name(),
            "seconds": round(time.perf_counter() - start, 4),
            **({"reason": "warmup"} if warmup else {}),
        },
    )
    writer.set("versions", versions(target))
    if not writer.manifest.get("stages"):
        # triton found the kernel in its own cache (an autotuner compiled it while timing
        # the configs): nothing was compiled to record; keep what triton has of it
        record_compiled(writer, _kernel_name(fn), result, [sys.executable, "<cell>"])
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
    writer = _start_specialised(fn, spec, target, name, out)
    record_compiled(writer, _kernel_name(fn), compiled, [sys.executable, "<cell>"])
    writer.set_extra("launch", {**launch_record(fn, grid, args, kwargs), "launched": not warmup,
                                "device": _device_name(), **({"reason": "warmup"} if warmup else {})})  # fmt: skip
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
    writer = _start_specialised(fn, spec, target, name, out)
    record = launch_record(fn, grid, args, kwargs)
    writer.set_extra("launch", dict(launch) if launch else
                     {**record, "launched": False, "reason": reason})  # fmt: skip
    writer.set_extra("options", spec.given)
    return _compile_src(
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


def versions(target: str) -> dict[str, str | None]:
    """Versions of upstream Triton, torch and (for cuda) ptxas."""
    found = {"triton": _dist_version("triton"), "torch": _dist_version("torch")}
    if target.startswith("cuda"):
        try:
            from triton.backends.nvidia.compiler import get_ptxas

            found["ptxas"] = str(get_ptxas(parse_target(target)[1]).version).strip() or None
        except Exception:  # noqa: BLE001 - a version is informative only
            found["ptxas"] = None
    return found


def compile_in(
    python: str,
    argv: Sequence[str],
    *,
    log: os.PathLike[str] | str,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> int:
    """Run `ascend-ir-lab ARGV...` under another interpreter (the upstream-Triton venv)."""
    from pathlib import Path

    from ascend_ir_lab.toolchains.common.env import tool_env

    result = run_logged(
        [python, "-m", "ascend_ir_lab", *argv],
        log=Path(log),
        env=tool_env(),
        timeout=timeout,
        package="triton (in the interpreter given by --python)",
    )
    if result.returncode != 0:
        raise CompilerError(result.command, result.returncode, result.tail(30))
    return 0


def compile_spec(path: str) -> tuple[str, dict[str, str], dict[str, Any]]:
    """The `COMPILE = {"kernel", "signature", "constexprs"}` dict of a kernel file, as
    (FILE::KERNEL, signature, constexprs); empty signature when the file has none."""
    import importlib.util as _util
    from pathlib import Path

    file = Path(path)
    if not file.is_file():
        raise InputError(f"{file}: no such kernel file")
    loader = _util.spec_from_file_location(f"_ascend_ir_lab_spec_{file.stem}", file)
    if loader is None or loader.loader is None:
        raise InputError(f"{file}: cannot be imported as a Python module")
    module = _util.module_from_spec(loader)
    loader.loader.exec_module(module)
    spec = getattr(module, "COMPILE", None)
    if not isinstance(spec, dict) or "kernel" not in spec:
        raise InputError(
            f"{file}: no COMPILE dict naming the kernel; use {file}::KERNEL with --signature"
        )
    return (
        f"{file}::{spec['kernel']}",
        parse_signature(spec.get("signature", {})),
        parse_constexprs(spec.get("constexprs")),
    )


# -- internals ---------------------------------------------------------------------------


def _start_specialised(
    fn: Any, spec: Specialisation, target: str, name: str | None, out: Any
) -> RunWriter:
    writer = _start(
        fn, spec.signature, spec.constexprs, target, name, out, [sys.executable, "<cell>"]
    )
    writer.set("kernel", {**writer.manifest["kernel"], "attrs": spec.attrs})
    return writer


def _start(
    fn: Any,
    sig: dict[str, str],
    consts: dict[str, Any],
    target: str,
    name: str | None,
    out: Any,
    command: list[str],
) -> RunWriter:
    parse_target(target)
    kernel_name = _kernel_name(fn)
    text, first_line, filename = kernel_source(fn)
    writer = RunWriter.create(
        name or f"{kernel_name}-{target.replace(':', '')}",
        {
            "toolchain": "triton",
            "target": target,
            "kernel": {
                "name": kernel_name,
                "source": "source.py",
                "first_line": first_line,
                "signature": sig,
                "constexprs": consts,
            },
            "versions": {"triton": _dist_version("triton")},
        },
        out,
    )
    (writer.path / "source.py").write_text(text)
    writer.set_extra("source_file", filename)
    writer.set_extra("command", command)
    return writer


def _compile(
    writer: RunWriter,
    fn: Any,
    sig: dict[str, str],
    consts: dict[str, Any],
    target: str,
    options: dict[str, Any],
    assume_aligned: bool,
    llvm_dumps: bool,
    timings: bool,
    check: bool,
) -> Run:
    from triton.compiler import ASTSource

    full_sig = {**sig, **{k: "constexpr" for k in consts}}
    attrs = {
        (i,): [["tt.divisibility", 16]]
        for i, (k, ty) in enumerate(full_sig.items())
        if assume_aligned and ty.startswith("*")
    }
    src = ASTSource(fn, full_sig, constexprs=consts, attrs=attrs)
    writer.set_extra("options", options)
    return _compile_src(writer, fn, src, target, options, llvm_dumps, timings, check)[0]


def _compile_src(
    writer: RunWriter,
    fn: Any,
    src: Any,
    target: str,
    options: dict[str, Any],
    llvm_dumps: bool,
    timings: bool,
    check: bool,
    dumps: bool = True,
) -> tuple[Run, Any]:
    """triton.compile(src) recorded into the Run; (the Run, the compiled kernel or None)."""
    import triton

    command = writer.manifest["extra"].get("command", [])
    with recording(
        writer, _kernel_name(fn), command, llvm_dumps=llvm_dumps, timings=timings, dumps=dumps
    ) as recorder:
        try:
            kernel = triton.compile(src, target=gpu_target(target), options=options)
        except Exception as exc:
            stage = recorder.failed_stage or "ttir"
            writer.set_extra("error", f"{type(exc).__name__}: {exc}")
            run = writer.finish("compile-error", f"stage {stage} failed: {type(exc).__name__}")
            if check:
                raise CompilerError(command, 1, f"{exc}\n  run: {run.path}", stage=stage) from exc
            return run, None
    writer.set("versions", versions(target))
    return writer.finish("ok" if recorder.binary else "ir-complete-no-binary"), kernel


def _cli_command(
    kernel: Any, sig: Mapping[str, str], consts: Mapping[str, Any], target: str
) -> list[str]:
    spec = kernel if isinstance(kernel, str) else f"<python>::{_kernel_name(kernel)}"
    command = [
        sys.executable,
        "-m",
        "ascend_ir_lab",
        "triton-compile",
        spec,
        "--signature",
        ",".join(f"{k}={v}" for k, v in sig.items()),
    ]
    command += [f"--constexpr={k}={v}" for k, v in consts.items()]
    return [*command, "--target", target]


def _kernel_name(fn: Any) -> str:
    return str(getattr(getattr(fn, "fn", fn), "__name__", "kernel"))


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


def _host_args(args: Sequence[Any]) -> bool:
    """Whether any tensor argument lives on the host (numpy, CPU tensor, TensorSpec)."""
    for value in args:
        if isinstance(value, TensorSpec):
            return True
        if hasattr(value, "dtype") and hasattr(value, "shape"):
            device = getattr(value, "device", None)
            if device is None or getattr(device, "type", str(device)) == "cpu":
                return True
    return False


def _synchronize(args: Sequence[Any]) -> None:
    if "torch" in sys.modules:
        torch = sys.modules["torch"]
        if torch.cuda.is_available():
            torch.cuda.synchronize()


def _device_name() -> str | None:
    if "torch" in sys.modules and sys.modules["torch"].cuda.is_available():
        return str(sys.modules["torch"].cuda.get_device_name())
    return None


def _dist_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None
