"""The one writer of Run folders.

A Run is written incrementally: the folder and a manifest with status "interrupted" exist
from the start, each finished stage is added at once, and the final status is set last, so
a crash or Ctrl-C leaves a readable Run rather than nothing. A folder given as `out` is
held under a lock for the whole build, so two builds of one folder give one clear failure
rather than a mixed folder; it replaces only a folder that is empty or holds a Run of this
format.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import json
import os
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.runs.format import FORMAT, KEY_ORDER, MANIFEST, safe_name, status_record
from ascend_ir_lab.runs.manifest import has_our_format
from ascend_ir_lab.runs.outputs import write_output
from ascend_ir_lab.runs.reader import Run


def write_manifest(folder: Path, manifest: Mapping[str, Any]) -> None:
    """Write run.json atomically (a temporary file renamed over it)."""
    write_output(folder / MANIFEST, json.dumps(manifest, indent=2, default=str) + "\n")


_HELD: dict[str, FolderLock] = {}  # the folder locks this process holds, by lock file


class FolderLock:
    """An exclusive lock on the Run folder `path` (a hidden file beside it, flock'ed), held
    until `release()` or the end of the process."""

    fd: int | None

    def __init__(self, path: Path) -> None:
        self.file = path.parent / f".{path.name}.lock"
        path.parent.mkdir(parents=True, exist_ok=True)
        key = os.path.realpath(self.file)
        held = _HELD.pop(key, None)
        if held is not None and held.fd is not None:
            # a build of this process that ended without finishing (an exception kept its
            # writer alive): the next build here takes its lock over
            self.fd, held.fd = held.fd, None
            _HELD[key] = self
            return
        fd = os.open(self.file, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            # the file may have been removed by the holder that just released it
            if os.fstat(fd).st_ino != os.stat(self.file).st_ino:
                raise BlockingIOError
        except OSError:
            os.close(fd)
            raise InputError(
                f"{path}: another build is writing this Run folder now; wait for it to end "
                "or choose another -o"
            ) from None
        self.fd = fd
        _HELD[key] = self

    def release(self) -> None:
        """Give the lock back and remove its file."""
        if self.fd is None:
            return
        _HELD.pop(os.path.realpath(self.file), None)
        try:
            os.unlink(self.file)
        except OSError:
            pass
        os.close(self.fd)
        self.fd = None


def prepare_folder(
    name: str, out: str | os.PathLike[str] | None, root: str | os.PathLike[str] | None = None
) -> Path:
    """An empty folder for a new Run: `out` exactly (an old Run of this format there is
    replaced, anything else refused), or a new `<root>/<safe name>[-N]`."""
    if out is not None:
        path = Path(out)
        lock = FolderLock(path)
        try:
            _clear_for_run(path)
        finally:
            lock.release()
        return path
    if root is None:
        raise ValueError("prepare_folder: give `out` or `root`")
    base_dir = Path(root)
    base_dir.mkdir(parents=True, exist_ok=True)
    base = safe_name(name)
    for n in range(1, 10_000):
        path = base_dir / (base if n == 1 else f"{base}-{n}")
        try:
            path.mkdir()
            return path
        except FileExistsError:
            continue
    raise InputError(f"{base_dir}: too many Runs called {base!r}")


def _clear_for_run(path: Path) -> None:
    if path.is_symlink():
        raise InputError(f"{path}: a symbolic link; give a real folder for the Run")
    if path.exists() and not path.is_dir():
        raise InputError(f"{path}: exists and is not a folder; choose another -o")
    if path.is_dir() and any(path.iterdir()):
        if not has_our_format(path):
            raise InputError(
                f"{path}: exists and is not a Run folder of {FORMAT} (nothing was removed); "
                "choose another -o"
            )
        shutil.rmtree(path)
    path.mkdir(parents=True, exist_ok=True)


class RunWriter:
    """Builds a Run folder step by step; every change is written to run.json at once."""

    def __init__(self, path: Path, manifest: Mapping[str, Any], lock: FolderLock | None = None):
        self.path = path
        self.lock = lock
        self._held, self._dirty = 0, False
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
        self.manifest = {k: base[k] for k in KEY_ORDER if k in base}
        self.manifest.update({k: v for k, v in base.items() if k not in self.manifest})
        self.save()

    @classmethod
    def create(
        cls,
        name: str,
        manifest: Mapping[str, Any],
        out: str | os.PathLike[str] | None = None,
        *,
        root: str | os.PathLike[str] | None = None,
    ) -> RunWriter:
        """Start a Run: in `out` exactly (held under a lock until `finish`; an old Run there
        is replaced), or a new folder `<root>/<name>[-N]`."""
        if out is None:
            return cls(prepare_folder(name, None, root), {"name": name, **manifest})
        path = Path(out)
        lock = FolderLock(path)
        try:
            _clear_for_run(path)
            return cls(path, {"name": name, **manifest}, lock)
        except BaseException:
            lock.release()
            raise

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
        """Append a finished (or stopped) stage record and save."""
        self.manifest["stages"].append(dict(record))
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
        """Set the final status, give the folder lock back, and return the Run."""
        self.manifest["status"] = status_record(code, text)
        self.save()
        self.release()
        return Run(self.path)

    def release(self) -> None:
        """Give the folder lock back (a build that ends without `finish`)."""
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    def save(self) -> None:
        """Write run.json atomically (inside `held()`: once, when the block ends)."""
        if self._held:
            self._dirty = True
            return
        write_manifest(self.path, self.manifest)

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """A block of quick changes (fields set, no tool run) saved once, at its end."""
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1
            if not self._held and self._dirty:
                self._dirty = False
                self.save()
