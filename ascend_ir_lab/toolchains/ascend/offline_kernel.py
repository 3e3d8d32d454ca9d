"""What a taken-over launch returns where no device can load the kernel.

Triton's launch (and `kernel.warmup(...)`) returns the compiled kernel: scripts read
`h.asm["ttir"]`, `h.metadata`, `h.name`, and wrappers in the style of triton's `libentry`
keep the handle and launch it later with `h[grid](*runtime_args)`. With no device, the
taken-over launch returns an OfflineKernel instead: the same reading side, filled from the
Run, and a launch that is handed back to the capture (skipped, or run in the interpreter).
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["OfflineKernel"]

# asm keys triton-ascend uses for the Run's artifacts, by artifact suffix
_ASM_KEYS = {".ttir": "ttir", ".ttadapter": "ttadapter", ".bcmlir": "ttadapter"}


class OfflineKernel:
    """The compiled kernel of an offline Run: `name`, `asm`, `metadata`, `run_folder`, and
    `h[grid](*args)` launching it the way the capture handles launches."""

    def __init__(
        self,
        name: str,
        run: Any,
        options: Mapping[str, Any],
        launch: Callable[[Any, tuple[Any, ...]], None],
    ) -> None:
        self.name = name
        self.ir_run = run  # the Run (None when the compile failed)
        self.metadata = types.SimpleNamespace(name=name, **dict(options))
        self._launch = launch
        self._asm: dict[str, str] | None = None

    @property
    def asm(self) -> dict[str, str]:
        """IR texts by triton's keys ('ttir', 'ttadapter', ...), read from the Run."""
        if self._asm is None:
            self._asm = _asm_of(self.ir_run)
        return self._asm

    def __getitem__(self, grid: Any) -> Callable[..., None]:
        def runner(*args: Any, stream: Any = None) -> None:
            self._launch(grid, args)

        return runner

    def __repr__(self) -> str:
        where = f" ({self.ir_run.path})" if self.ir_run is not None else ""
        return f"<OfflineKernel {self.name}: compiled offline, not loadable here{where}>"


def _asm_of(run: Any) -> dict[str, str]:
    if run is None:
        return {}
    found: dict[str, str] = {}
    artifacts = Path(run.path) / "artifacts"
    for path in sorted(artifacts.glob("*")) if artifacts.is_dir() else ():
        key = _ASM_KEYS.get(Path(path.name.removesuffix(".zst")).suffix)
        if key and key not in found and (text := _text(path)) is not None:
            found[key] = text
    for stage in getattr(run, "stages", []) or []:
        artifact = stage.get("artifact") if isinstance(stage, Mapping) else None
        name = stage.get("name") if isinstance(stage, Mapping) else None
        if artifact and name and name not in found and name != "ttir":
            path = Path(run.path) / artifact
            if path.is_file() and (text := _text(path, strict=True)) is not None:
                found[name] = text
    return found


def _text(path: Path, strict: bool = False) -> str | None:
    """An artifact's text (a `.zst` decompressed), None when it cannot be read as text."""
    from ascend_ir_lab.dumps.zstd_log import stored_bytes

    try:
        data = stored_bytes(path)
        return data.decode() if strict else data.decode(errors="replace")
    except (OSError, ValueError):  # UnicodeDecodeError is a ValueError
        return None
