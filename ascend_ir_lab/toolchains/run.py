"""Run folders (`ascend-ir-lab/run@1`, see docs/formats.md): write them, reopen them.

A Run is written incrementally: the folder and a manifest with status "interrupted" exist
from the start, each finished stage is added at once, and the final status is set last, so
a crash or Ctrl-C leaves a readable Run rather than nothing.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ascend_ir_lab.dumps.blocks import compress_log
from ascend_ir_lab.errors import InputError

FORMAT = "ascend-ir-lab/run@1"
MANIFEST = "run.json"
RUNS_DIR_ENV = "ASCEND_IR_LAB_RUNS"
_KEY_ORDER = (
    "format",
    "name",
    "created",
    "toolchain",
    "target",
    "kernel",
    "status",
    "env",
    "versions",
    "stages",
    "extra",
)

STATUS_TEXT = {
    "ok": "binary produced",
    "ir-complete-no-binary": "IR complete, no binary (hivmc ships with CANN)",
    "compile-error": "a tool failed",
    "interrupted": "the compile did not finish",
}


def default_runs_dir() -> Path:
    """Where Runs go when no folder is given: $ASCEND_IR_LAB_RUNS or ./.ascend_ir_lab/runs."""
    return Path(os.environ.get(RUNS_DIR_ENV) or Path.cwd() / ".ascend_ir_lab" / "runs")


def safe_name(name: str) -> str:
    """A folder-safe form of a Run name."""
    cleaned = re.sub(r"[^A-Za-z0-9._+-]+", "_", name).strip("._")
    return cleaned or "run"


class Run:
    """One compilation kept as a folder: `.path`, `.manifest`, `.timeline` (read lazily)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        manifest_path = self.path / MANIFEST
        try:
            self.manifest: dict[str, Any] = json.loads(manifest_path.read_text())
        except FileNotFoundError as exc:
            raise InputError(f"{self.path}: not a Run folder (no {MANIFEST})") from exc
        except json.JSONDecodeError as exc:
            raise InputError(f"{manifest_path}:{exc.lineno}: broken manifest: {exc.msg}") from exc
        if self.manifest.get("format") != FORMAT:
            raise InputError(
                f"{manifest_path}: format {self.manifest.get('format')!r}, expected {FORMAT!r}"
            )
        self._timeline: Any = None

    def __repr__(self) -> str:
        return f"Run({str(self.path)!r}, status={self.status!r})"

    @property
    def name(self) -> str:
        """The Run's name."""
        return str(self.manifest.get("name", self.path.name))

    @property
    def status(self) -> str:
        """The status code (ok, ir-complete-no-binary, compile-error, interrupted)."""
        return str(self.manifest.get("status", {}).get("code", "interrupted"))

    @property
    def stages(self) -> list[dict[str, Any]]:
        """The stage records, in order."""
        return list(self.manifest.get("stages", []))

    def stage(self, name: str) -> dict[str, Any]:
        """The record of the stage called `name`."""
        for record in self.stages:
            if record.get("name") == name:
                return record
        known = ", ".join(s.get("name", "?") for s in self.stages) or "none"
        raise InputError(f"{self.path}: no stage {name!r} (stages: {known})")

    def log(self, stage: str) -> bytes:
        """Everything the stage's tool printed, as printed (a `.log.zst` decompressed)."""
        from ascend_ir_lab.dumps.sources import read_bytes

        record = self.stage(stage)
        if not record.get("log"):
            return b""
        return bytes(read_bytes(self.path / record["log"]))

    @property
    def passes_captured(self) -> bool:
        """False for a cheap record (compiled without per-pass dumps; see `capture`)."""
        return bool((self.manifest.get("extra") or {}).get("passes_captured", True))

    def capture(self, progress: Any = None) -> Run:
        """Recompile this cheap record with every pass printed (same folder); the new Run."""
        from ascend_ir_lab.toolchains.sweep import capture_passes

        return capture_passes(self, progress=progress)

    def file(self, relative: str) -> Path:
        """A path inside the Run folder."""
        return self.path / relative

    @property
    def timeline(self) -> Any:
        """The Run's Timeline (all stages joined in order), read on first use."""
        if self._timeline is None:
            from ascend_ir_lab.dumps import open_timeline

            self._timeline = open_timeline(str(self.path))
        return self._timeline


class RunWriter:
    """Builds a Run folder step by step; every change is written to run.json at once."""

    compress = True  # stage logs kept as .log.zst (False: plain .log, as older Runs)

    def __init__(self, path: Path, manifest: Mapping[str, Any]) -> None:
        self.path = path
        (path / "stages").mkdir(parents=True, exist_ok=True)
        (path / "artifacts").mkdir(exist_ok=True)
        now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()
        base: dict[str, Any] = {
            "format": FORMAT,
            "name": path.name,
            "created": now,
            "toolchain": None,
            "target": None,
            "kernel": None,
            "status": status_record("interrupted"),
            "env": {},
            "versions": {},
            "stages": [],
            "extra": {},
        }
        base.update(manifest)
        # keep the key order of docs/formats.md, whatever order `manifest` came in
        self.manifest = {k: base[k] for k in _KEY_ORDER if k in base}
        self.manifest.update({k: v for k, v in base.items() if k not in self.manifest})
        self.save()

    @classmethod
    def create(
        cls, name: str, manifest: Mapping[str, Any], out: str | os.PathLike[str] | None = None
    ) -> RunWriter:
        """Start a Run: in `out` exactly (an old Run there is replaced), or a new folder
        `<default runs dir>/<name>[-N]`."""
        return cls(prepare_folder(name, out), {"name": name, **manifest})

    def log_path(self, stage: str) -> Path:
        """Where the next stage called `stage` writes its log."""
        return self.path / "stages" / f"{len(self.manifest['stages']) + 1}-{stage}.log"

    def artifact_path(self, filename: str) -> Path:
        """Where an artifact called `filename` goes."""
        return self.path / "artifacts" / filename

    def relative(self, path: Path | None) -> str | None:
        """`path` relative to the Run folder (as stored in run.json)."""
        return None if path is None else path.relative_to(self.path).as_posix()

    def add_stage(self, record: Mapping[str, Any]) -> None:
        """Append a finished stage record and save; its log is kept compressed (`.log.zst`,
        see dumps/blocks.py), with its plain size as `log_bytes`."""
        entry = dict(record)
        log = self.path / entry["log"] if entry.get("log") else None
        if log is not None and log.suffix == ".log" and log.is_file() and self.compress:
            packed = log.with_name(log.name + ".zst")
            entry["log_bytes"] = compress_log(log, packed)
            log.unlink()
            entry["log"] = self.relative(packed)
        self.manifest["stages"].append(entry)
        self.save()

    def set(self, key: str, value: Any) -> None:
        """Set a top-level manifest field and save."""
        self.manifest[key] = value
        self.save()

    def set_extra(self, key: str, value: Any) -> None:
        """Set a field under "extra" and save."""
        self.manifest["extra"][key] = value
        self.save()

    def finish(self, code: str, text: str | None = None) -> Run:
        """Set the final status and return the Run."""
        self.manifest["status"] = status_record(code, text)
        self.save()
        return Run(self.path)

    def save(self) -> None:
        """Write run.json atomically."""
        tmp = self.path / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps(self.manifest, indent=2, default=str) + "\n")
        os.replace(tmp, self.path / MANIFEST)


def status_record(code: str, text: str | None = None) -> dict[str, str]:
    """A status object with the standard text for `code` unless `text` is given."""
    if code not in STATUS_TEXT:
        raise ValueError(f"unknown status code {code!r}; expected one of {sorted(STATUS_TEXT)}")
    return {"code": code, "text": text or STATUS_TEXT[code]}


def prepare_folder(name: str, out: str | os.PathLike[str] | None) -> Path:
    """An empty folder for a new Run (see RunWriter.create)."""
    if out is not None:
        path = Path(out)
        if path.exists() and any(path.iterdir()):
            if not (path / MANIFEST).is_file():
                raise InputError(f"{path}: exists and is not a Run folder; choose another -o")
            shutil.rmtree(path)
        path.mkdir(parents=True, exist_ok=True)
        return path
    root = default_runs_dir()
    root.mkdir(parents=True, exist_ok=True)
    base = safe_name(name)
    for n in range(1, 10_000):
        path = root / (base if n == 1 else f"{base}-{n}")
        try:
            path.mkdir()
            return path
        except FileExistsError:
            continue
    raise InputError(f"{root}: too many Runs called {base!r}")
