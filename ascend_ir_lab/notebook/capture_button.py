"""The viewer's "capture passes" button with a kernel behind it: the Run itself (a cheap
record) or a config of its autotune sweep is compiled again with every pass printed, and the
viewer then shows that Run; progress lines go to the page while it compiles."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.export.payload import capture_info

__all__ = ["capture_from_viewer"]


def _target(run: Any, name: str) -> Path:
    """The Run folder the page asked for: this one (""), or a config of its sweep named by
    the Run's own list (a folder name beside it; anything else is refused)."""
    if name == "":
        return Path(run.path)
    known = {c.get("run") for c in capture_info(run.manifest)["configs"]}
    if name not in known or "/" in name or "\\" in name or name in (".", ".."):
        raise InputError(f"{name!r} is not a config Run of this sweep")
    folder = Path(run.path).parent / name
    if not (folder / "run.json").is_file():
        raise InputError(f"{folder} is not a Run folder (moved or deleted?)")
    return folder


def capture_from_viewer(
    run: Any, name: str, say: Callable[[str], None], open_view: Callable[[Any], Any]
) -> dict[str, Any]:
    """Capture the passes of `name` (see _target), telling `say` how it goes; returns the
    payload of the captured Run, opened by `open_view` (the explorer's RunView.of)."""
    from ascend_ir_lab.toolchains.common.run import Run

    target = Run(_target(run, name))
    start = time.perf_counter()

    def progress(event: str, info: dict[str, Any]) -> None:
        if event == "capture":
            say(f"compiling {target.name} again with every pass printed …")
        elif event == "captured":
            say(f"passes captured ({time.perf_counter() - start:.1f} s); opening them …")

    if target.passes_captured:
        say(f"{target.name} already holds its passes; opening them …")
    view = open_view(target.capture(progress=progress))
    payload: dict[str, Any] = view.payload()
    index = next(
        (c.get("index") for c in capture_info(run.manifest)["configs"] if c.get("run") == name),
        None,
    )
    if name and index is not None:  # say which config of the sweep is shown now
        payload["title"] = f"{view.title()} · autotune config #{index}"
    return payload
