"""Stage 1 (`ttir`): triton-ascend's own TTIR passes, in this process, with MLIR_ENABLE_DUMP.

`triton.compile` runs the TTIR passes and triton-adapter-opt, writes `<name>.ttir` and
`<name>.ttadapter` into a private cache folder, and then fails at the binary step where
CANN is absent. libtriton prints its dumps from C++ to fd 2, so the stage captures fds 1
and 2 into its log and gives them back afterwards.

Also runnable as `python -m ascend_ir_lab.toolchains.ascend.ttir_stage FILE.py::KERNEL ...`: that
is the command a Run records for this stage, and it redoes the stage on its own.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.toolchains.common.env import patched_environ
from ascend_ir_lab.toolchains.common.kernels import load_kernel, parse_constexprs, parse_signature
from ascend_ir_lab.toolchains.common.tool_log import capture_fds

STAGE_ENV: dict[str, str | None] = {
    "MLIR_ENABLE_DUMP": "1",
    "MLIR_ENABLE_TIMING": "1",
    "TRITON_ALWAYS_COMPILE": "1",
}


@dataclass
class TtirResult:
    """What stage 1 produced: the files triton-ascend cached and how it ended."""

    ttir: Path | None
    ttadapter: Path | None
    seconds: float
    error: str | None = None  # triton's exception when no .ttir was produced
    binary_step: str | None = None  # how triton's own binary step ended (needs CANN)
    files: dict[str, Path] = field(default_factory=dict)
    # that exception itself (its traceback dropped): what triton's launch raises for it
    exception: BaseException | None = None


def run_ttir_stage(
    kernel: Any,
    signature: Mapping[str, str],
    constexprs: Mapping[str, Any],
    *,
    target: str,
    options: Mapping[str, Any],
    log: Path,
    out_dir: Path,
    dumps: bool = True,
    attrs: Mapping[str, Mapping[str, Any]] | None = None,
) -> TtirResult:
    """Compile `kernel` with triton-ascend into `out_dir`; every print goes to `log` (with
    `dumps`, every pass's IR: MLIR_ENABLE_DUMP=1).

    `attrs` are the per-parameter attributes of a launch's specialisation
    ({'x_ptr': {'tt.divisibility': 16}, 'n': {'tt.equal_to': 1}}); None compiles without.
    """
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    src = ASTSource(
        kernel, dict(signature), constants=dict(constexprs), attrs=attrs_descriptor(kernel, attrs)
    )
    error, exception = None, None
    with tempfile.TemporaryDirectory(prefix="ascend-ir-lab-cache-") as cache:
        env = {**STAGE_ENV, "TRITON_CACHE_DIR": cache}
        if not dumps:
            env["MLIR_ENABLE_DUMP"] = None
        start = time.perf_counter()
        with patched_environ(env), stop_before_binary(), capture_fds(log):
            try:
                triton.compile(src, target=GPUTarget("npu", target, 0), options=dict(options))
            except Exception as exc:  # noqa: BLE001 - triton raises many kinds; all recorded
                if _STOP not in str(exc):
                    traceback.print_exc()
                    error = f"{type(exc).__name__}: {exc}"
                    exception = exc.with_traceback(None)
        seconds = time.perf_counter() - start
        files = _collect(Path(cache), out_dir)
    ttir = next((p for p in files.values() if p.suffix == ".ttir"), None)
    adapter = next((p for p in files.values() if p.suffix in (".ttadapter", ".bcmlir")), None)
    return TtirResult(
        ttir, adapter, seconds, error, "skipped: bishengir stage runs it", files, exception
    )


def attrs_descriptor(kernel: Any, attrs: Mapping[str, Mapping[str, Any]] | None) -> Any:
    """triton-ascend's AttrsDescriptor holding `attrs` (per parameter name), None for None."""
    if attrs is None:
        return None
    from triton.backends.compiler import AttrsDescriptor

    names = [p.name for p in getattr(kernel, "params", [])]
    props: dict[str, list[int]] = {}
    for name, found in attrs.items():
        if name not in names:
            raise InputError(f"--attrs: {name!r} is no parameter of the kernel")
        for prop in found:
            props.setdefault(prop, []).append(names.index(name))
    data = {"arg_properties": {k: sorted(v) for k, v in props.items()}}
    return AttrsDescriptor.from_dict({**data, "cls": "AscendAttrsDescriptor"})


_STOP = "ascend-ir-lab: stop before the binary step"


def _stop(*_args: Any) -> Any:
    raise RuntimeError(_STOP)


@contextlib.contextmanager
def stop_before_binary() -> Iterator[None]:
    """Make triton-ascend stop after `.ttadapter` for the block.

    Its binary step would call bishengir-compile without IR printing (twice the work on an
    NPU host) and, without CANN, fill the log with an expected ASCEND_HOME_PATH error. The
    bishengir stage of the Run runs that step itself, with printing. Restored on exit.
    """
    # triton loads its backends under their own module names ("ascend"): patch that class
    from triton.backends import backends

    AscendBackend = backends["ascend"].compiler
    original = AscendBackend.add_stages

    def add_stages(self: Any, stages: dict[str, Any], options: Any) -> None:
        original(self, stages, options)
        if "npubin" in stages:
            stages["npubin"] = _stop

    AscendBackend.add_stages = add_stages
    try:
        yield
    finally:
        AscendBackend.add_stages = original


def _collect(cache: Path, out_dir: Path) -> dict[str, Path]:
    """Copy the files triton cached into `out_dir` (names kept)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    copied: dict[str, Path] = {}
    for path in sorted(cache.rglob("*")):
        if path.is_file() and not path.name.startswith("__grp__") and ".tmp." not in path.name:
            target = out_dir / path.name
            target.write_bytes(path.read_bytes())
            copied[path.name] = target
    return copied


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line form of the stage (the command a Run records)."""
    parser = argparse.ArgumentParser(prog="python -m ascend_ir_lab.toolchains.ascend.ttir_stage")
    parser.add_argument("kernel", help="FILE.py::KERNEL")
    parser.add_argument("--signature", required=True)
    parser.add_argument("--constexpr", action="append", default=[])
    parser.add_argument("--target", default="Ascend910B3")
    parser.add_argument("--option", action="append", default=[], help="NPUOptions NAME=VALUE")
    parser.add_argument(
        "--attrs", help='launch attributes as JSON: {"x_ptr": {"tt.divisibility": 16}}'
    )
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args(argv)
    result = run_ttir_stage(
        load_kernel(args.kernel),
        parse_signature(args.signature),
        parse_constexprs(args.constexpr),
        target=args.target,
        options=parse_constexprs(args.option),
        log=args.out / "ttir.log",
        out_dir=args.out,
        attrs=json.loads(args.attrs) if args.attrs else None,
    )
    print(f"ttir: {result.ttir}\nttadapter: {result.ttadapter}\nerror: {result.error}")
    return 0 if result.ttir else 1


if __name__ == "__main__":
    sys.exit(main())
