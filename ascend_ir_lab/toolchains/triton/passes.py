"""Which upstream Triton compiles keep their per-pass dumps, and capturing the others later.

A cell or script that launches a kernel many times compiles it many times: an autotuner
picks another config for another shape, a constexpr or a specialisation (an argument equal
to 1, one divisible by 16) differs. Every compile becomes a Run; by default the first compile
of each kernel with given argument types holds every MLIR pass (that is the explorer), and
each further one is a cheap record: its stages' outputs as triton produced them, its launch,
no per-pass dumps. `capture_upstream_passes(run)` (also `run.capture()`) compiles a cheap
record again with every pass, into the same Run folder, while the session that made it holds
the kernel.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.toolchains.common.run import Run, write_manifest
from ascend_ir_lab.toolchains.common.specialise import Specialisation

__all__ = ["PassesWanted", "capture_upstream_passes", "remember_compile", "upstream_known"]

Progress = Callable[[str, dict[str, Any]], None]

# Run folder -> (the kernel, while it lives; what triton compiled for the call; the target)
_BLOCK_SHAPE = re.compile(r"\[[\d, ]*\]")
_COMPILES: dict[str, tuple[Callable[[], Any], Specialisation, str]] = {}


@dataclass
class PassesWanted:
    """The default choice: the first compile of each kernel and argument types."""

    seen: set[tuple[str, tuple[tuple[str, str], ...]]] = field(default_factory=set)

    def first(self, kernel: str, spec: Specialisation) -> bool:
        """Whether this compile is the first of `kernel` with these argument types (and so
        keeps its passes); remembered, so the next one with the same types is not."""
        # a descriptor's block shape follows the config (a pre-hook sets it): not its type
        types = {k: _BLOCK_SHAPE.sub("", v) for k, v in spec.signature.items()}
        key = (kernel, tuple(sorted(types.items())))
        if key in self.seen:
            return False
        self.seen.add(key)
        return True


def remember_compile(run: Run, fn: Any, spec: Specialisation, target: str) -> None:
    """Let `capture_upstream_passes` compile `run` again from `fn` itself (no file needed)."""
    try:
        ref: Callable[[], Any] = weakref.ref(fn)
    except TypeError:
        ref = lambda: fn  # noqa: E731 - an object weakref cannot follow
    _COMPILES[str(Path(run.path).resolve())] = (ref, spec, target)


def upstream_known(run: Run) -> bool:
    """Whether this session compiled `run` and still holds its kernel."""
    entry = _COMPILES.get(str(Path(run.path).resolve()))
    return entry is not None and entry[0]() is not None


def capture_upstream_passes(
    run: Run,
    *,
    progress: Progress | None = None,
    llvm_dumps: bool = False,
    timings: bool = True,
) -> Run:
    """Compile a cheap record of an upstream Triton compile again, with every MLIR pass
    printed (LLVM's too with `llvm_dumps`), into the same Run folder. What the Run said
    about its launch, its sweep and its source stays. A Run holding its passes comes back
    as it is."""
    from ascend_ir_lab.toolchains.triton import records

    if run.passes_captured:
        return run
    entry = _COMPILES.get(str(Path(run.path).resolve()))
    fn = entry[0]() if entry is not None else None
    if entry is None or fn is None:
        raise InputError(
            f"{run.path}: this cheap record was made in another session; run its cell or "
            "script again with --all-passes to capture every compile's passes"
        )
    _ref, spec, target = entry
    extra = dict(run.manifest.get("extra") or {})
    kernel = dict(run.manifest.get("kernel") or {})
    source = run.path / str(kernel.get("source") or "source.py")
    text = source.read_text() if source.is_file() else None
    say = progress or (lambda _event, _info: None)
    say("capture", {"run": run, "kernel": kernel.get("name")})
    new, _ = records.compile_specialised(
        fn, spec, (1,), (), {}, target=target, reason="", name=run.name, out=run.path,
        llvm_dumps=llvm_dumps, timings=timings, launch=extra.get("launch"),
    )  # fmt: skip
    manifest = dict(new.manifest)
    manifest["extra"] = {**(manifest.get("extra") or {}),
                         **{k: extra[k] for k in ("autotune", "source_file") if k in extra}}  # fmt: skip
    if text is not None:
        source.write_text(text)
        manifest["kernel"] = {**(manifest.get("kernel") or {}),
                              **{k: kernel[k] for k in ("file", "first_line") if k in kernel}}  # fmt: skip
    write_manifest(new.path, manifest)
    remember_compile(new, fn, spec, target)
    say("captured", {"run": new})
    return Run(new.path)
