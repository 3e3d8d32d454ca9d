"""Cheap records and passes on demand: recompile a Run with every pass, and autotune sweeps.

A compile the tool sees is always recorded (kernel, signature, constexprs, options, stage
artifacts, commands, compile time); the per-pass dumps are captured only where they are
wanted. A Run whose `extra.passes_captured` is false is one `capture_passes(run)` away
from the full record (`run.capture()`, `ascend-ir-lab capture-passes RUN`).

An autotune sweep keeps one Run per config; the Run of the config that ran (or of the
configs asked for) holds the dumps and lists the whole sweep under `extra.autotune`.
"""

from __future__ import annotations

import contextlib
import os
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ascend_ir_lab.errors import InputError, IRLabError
from ascend_ir_lab.toolchains.common.run import Run, update_extra

Progress = Callable[[str, dict[str, Any]], None]

# Run folder -> the kernel object it was compiled from, while that object lives: a kernel
# defined in a notebook cell has no file to load it from again.
_KERNELS: dict[str, Any] = {}
_KEPT_KEYS = ("launch", "autotune", "script")


def remember_kernel(run: Run, fn: Any) -> None:
    """Let `capture_passes` recompile `run` from `fn` itself (no file needed)."""
    key = str(Path(run.path).resolve())
    try:
        _KERNELS[key] = weakref.ref(fn)
    except TypeError:
        _KERNELS[key] = lambda: fn


def kernel_known(run: Run) -> bool:
    """Whether this session compiled `run` and still holds its kernel (capturing its passes
    then imports nothing)."""
    ref = _KERNELS.get(str(Path(run.path).resolve()))
    return ref is not None and ref() is not None


def kernel_file_unchanged(run: Run) -> bool:
    """Whether the kernel file the Run names (`extra.recompile.kernel`) still holds exactly
    the code the Run compiled (its `source.py`), outside the Run folder: recompiling it then
    runs the user's own file, the code the Run already shows, nothing the Run carries."""
    how = (run.manifest.get("extra") or {}).get("recompile")
    spec = how.get("kernel") if isinstance(how, dict) else None
    if not isinstance(spec, str) or "::" not in spec:
        return False
    file = Path(spec.rpartition("::")[0])
    try:
        if not file.is_absolute() or file.resolve().is_relative_to(Path(run.path).resolve()):
            return False
        if not_yours(file) is not None:
            return False
        return file.read_bytes() == (Path(run.path) / "source.py").read_bytes()
    except OSError:
        return False


def not_yours(file: Path) -> str | None:
    """Why the kernel file a Run names is not one to import on its word (None: it is).

    Importing runs the file, and the folder it lies in comes first on sys.path while it does:
    both must be this user's alone. A file someone else owns or may change, or a folder others
    may write into (a shared /tmp, where anyone may leave a `triton.py` beside it), is not:
    a Run from someone else could otherwise name code it placed there."""
    import stat

    uid = os.getuid()
    try:
        real = file.resolve(strict=True)
        st, folder = os.stat(real), os.stat(real.parent)
    except (OSError, RuntimeError):
        return f"{file}: no such kernel file"
    if not stat.S_ISREG(st.st_mode):
        return f"{file}: not a regular file"
    if st.st_uid != uid or st.st_mode & 0o022:
        return f"{file}: owned by someone else or writable by others"
    if folder.st_uid not in (uid, 0) or folder.st_mode & 0o022:
        return f"{real.parent}: a folder others may write into"
    return None


def capture_on_open(
    run: Run,
    *,
    progress: Progress | None = None,
    capture: Callable[..., Run] | None = None,
) -> tuple[Run, str | None]:
    """A Run being opened, with its passes: a cheap record is recompiled with every pass
    now (by `capture`, default this toolchain's `capture_passes`) when its kernel is at hand
    (compiled by this session, or its file unchanged since); otherwise it opens as it is,
    with a line saying how to capture it."""
    if passes_captured(run):
        return run, None
    flags = _recorded_flags(run)
    if kernel_known(run) or (kernel_file_unchanged(run) and not flags):
        try:
            return (capture or capture_passes)(run, progress=progress), None
        except IRLabError as exc:
            return Run(run.path), str(exc).splitlines()[0]
    spec = ((run.manifest.get("extra") or {}).get("recompile") or {}).get("kernel")
    refused = not_yours(Path(str(spec).rpartition("::")[0])) if isinstance(spec, str) else None
    why = (
        f"its compile passes bishengir-compile flags the Run names ({' '.join(flags)[:200]}), "
        "which only a command you give passes on"
        if flags and not refused
        else f"its kernel file is not imported on the Run's word ({refused})"
        if refused and "no such" not in refused
        else "its kernel file changed since (or is gone)"
        if spec
        else "its kernel was defined in a notebook cell of another session"
    )
    note = (
        f"{run.path}: a cheap record (no per-pass dumps), opened as it is: {why}; "
        f"`ascend-ir-lab capture-passes {run.path}` (run.capture()) compiles it again with "
        f"every pass, importing {spec or 'its kernel'}"
    )
    return run, note


def _recorded_flags(run: Run) -> list[str]:
    """The bishengir-compile flags the record says its compile took (a Run from someone else
    may name any: a plugin to load, a file to write), as text."""
    how = (run.manifest.get("extra") or {}).get("recompile")
    flags = how.get("bishengir_flags") if isinstance(how, dict) else None
    return [str(f) for f in flags] if isinstance(flags, list) else [] if not flags else [str(flags)]


def passes_captured(run: Run) -> bool:
    """Whether the Run holds its per-pass dumps (Runs from before this field: yes)."""
    return bool((run.manifest.get("extra") or {}).get("passes_captured", True))


def capture_passes(run: Run | str | os.PathLike[str], *, progress: Progress | None = None) -> Run:
    """Recompile a cheap record with every MLIR pass printed, into the same Run folder.

    The kernel comes from this session when it compiled the Run, else from the file the
    Run names (`extra.recompile.kernel`). What the Run said about its launch and sweep
    stays. A Run already holding its passes comes back as it is.
    """
    run = run if isinstance(run, Run) else Run(run)
    if passes_captured(run):
        return run
    extra = run.manifest.get("extra") or {}
    how = extra.get("recompile")
    kernel = run.manifest.get("kernel") or {}
    if not isinstance(how, dict) or not kernel.get("signature"):
        raise InputError(f"{run.path}: the Run does not say how it was compiled; compile it again")
    fn = _kernel_of(run, how)
    say = progress or (lambda _event, _info: None)
    say("capture", {"run": run, "kernel": kernel.get("name")})
    from ascend_ir_lab.toolchains.ascend.compile import compile_kernel

    settings = {k: v for k, v in how.items() if k != "kernel"}
    with _record_kept(run):
        new = compile_kernel(
            fn,
            signature=kernel["signature"],
            constexprs=kernel.get("constexprs") or {},
            name=run.name,
            out=run.path,
            check=False,
            dumps=True,
            **settings,
        )
        if not any(s.get("name") == "bishengir" for s in new.stages):
            why = (new.manifest.get("status") or {}).get("text") or "no pass was printed"
            raise IRLabError(
                f"{run.path}: capturing its passes failed ({why}); the record is kept as it was"
            )
    kept = {k: extra[k] for k in _KEPT_KEYS if k in extra}
    if kept:
        update_extra(new, kept)
    remember_kernel(new, fn)
    say("captured", {"run": new})
    return Run(new.path)


@contextlib.contextmanager
def _record_kept(run: Run) -> Iterator[None]:
    """The record's folder as it was, put back when the block fails or is interrupted (a
    capture writes into the same folder, so that its commands name the Run's own paths)."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="ascend-ir-lab-record-") as aside:
        copy = Path(aside) / "record"
        shutil.copytree(run.path, copy, symlinks=True)
        try:
            yield
        except BaseException:
            shutil.rmtree(run.path, ignore_errors=True)
            shutil.copytree(copy, run.path, symlinks=True)
            raise


def _kernel_of(run: Run, how: Mapping[str, Any]) -> Any:
    ref = _KERNELS.get(str(Path(run.path).resolve()))
    fn = ref() if ref is not None else None
    if fn is not None:
        return fn
    spec = how.get("kernel")
    if not spec:
        raise InputError(
            f"{run.path}: the kernel was defined in a notebook cell of another session; "
            "run that cell again (it captures the passes of the config it runs)"
        )
    from ascend_ir_lab.toolchains.common.kernels import load_kernel

    file = Path(str(spec).rpartition("::")[0]).resolve()
    if file.is_relative_to(Path(run.path).resolve()):
        raise InputError(
            f"{run.path}: the kernel file it names lies inside the Run folder; a Run does not "
            "carry code to run: compile the kernel from your own file"
        )
    refused = not_yours(file)
    if refused is not None and "no such" not in refused:
        raise InputError(
            f"{run.path}: the kernel file it names is not imported ({refused}); copy the "
            "kernel into a folder of your own and compile it from there"
        )
    with _autotune_defined_offline():
        fn = load_kernel(str(spec))
    return jit_function(fn)


def jit_function(fn: Any) -> Any:
    """The @triton.jit function under @triton.autotune / @triton.heuristics wrappers."""
    while not hasattr(fn, "params") and hasattr(fn, "fn"):
        fn = fn.fn
    return fn


@contextlib.contextmanager
def _autotune_defined_offline() -> Iterator[None]:
    """Defining an autotuned kernel asks the driver for a benchmarker; with no NPU there is
    none, and the kernel is only compiled here."""
    from triton.runtime.autotuner import Autotuner

    from ascend_ir_lab.toolchains.ascend.npu import no_device_to_time, npu_available

    if npu_available():
        yield
        return
    original = Autotuner.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        kwargs["do_bench"] = kwargs.get("do_bench") or no_device_to_time
        original(self, *args, **kwargs)

    Autotuner.__init__ = init
    try:
        yield
    finally:
        Autotuner.__init__ = original


def sweep_record(
    configs: Sequence[Mapping[str, Any]], chosen: int | None, *, timed: bool
) -> dict[str, Any]:
    """`extra.autotune` of the Run a sweep ran: every config and where its Run is."""
    note = (
        "configs timed on the device"
        if timed
        else "no device to time the configs on: all compiled, none timed; "
        + (f"config {chosen} stands in for the best" if chosen is not None else "none picked")
    )
    return {"configs": [dict(c) for c in configs], "chosen": chosen, "timed": timed, "note": note}
