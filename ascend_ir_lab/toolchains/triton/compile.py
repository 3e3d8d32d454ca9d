"""Upstream Triton (NVIDIA / AMD) into a Run: stages ttir, ttgir, llir, ptx (amdgcn for hip).

`compile_kernel` cross-compiles a kernel with a written signature for a target (default
cuda:90; what `ascend-ir-lab triton-compile` calls); `start_specialised` and `compile_src`
are the pieces `records` uses to turn a call (a launch, or its specialisation) into a Run.

Upstream `triton` and triton-ascend both import as `triton`: this module needs an
environment of its own (extra `gpu`); `compile_in` runs the same compile under another
interpreter, e.g. from the Ascend environment.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ascend_ir_lab.errors import CompilerError, InputError, ToolNotFoundError
from ascend_ir_lab.toolchains.common.kernels import (
    kernel_source,
    load_kernel,
    parse_constexprs,
    parse_signature,
)
from ascend_ir_lab.toolchains.common.launch import kernel_name
from ascend_ir_lab.toolchains.common.process import DEFAULT_TIMEOUT_S, run_logged
from ascend_ir_lab.toolchains.common.run import Run, RunWriter
from ascend_ir_lab.toolchains.common.specialise import Specialisation
from ascend_ir_lab.toolchains.triton.capture import recording

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


def gpu_target(target: str) -> Any:
    """triton's GPUTarget for 'cuda:90' / 'hip:gfx942'."""
    from triton.backends.compiler import GPUTarget

    return GPUTarget(*parse_target(target))


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


def start_specialised(
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
    kernel = kernel_name(fn)
    text, first_line, filename = kernel_source(fn)
    writer = RunWriter.create(
        name or f"{kernel}-{target.replace(':', '')}",
        {
            "toolchain": "triton",
            "target": target,
            "kernel": {
                "name": kernel,
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
    return compile_src(writer, fn, src, target, options, llvm_dumps, timings, check)[0]


def compile_src(
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
        writer, kernel_name(fn), command, llvm_dumps=llvm_dumps, timings=timings, dumps=dumps
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
    spec = kernel if isinstance(kernel, str) else f"<python>::{kernel_name(kernel)}"
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


def _dist_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None
