"""A large log indexed once: the index kept, so the next command on the same log skips the read.

Reading a log of hundreds of MB costs a scan of every byte; a user runs several commands on
one log (`inspect`, then `find`, `show`, `html`). The first read of a log of at least
INDEX_FROM bytes keeps its index (Dumps, Messages, Segments, warnings; offsets only, never
text) in a private folder (`<tmp>/ascend-ir-lab-<uid>-log-index`, mode 0700, ours, or no cache at
all), named after the log's identity: its resolved path, device, inode, size, modification
and change times, the stage it is read as, and the reader's own source files (their sizes and
modification times), so a log changed or replaced since, or a reader that reads differently,
finds no index. A name is only ever a complete file (written aside, then renamed); a file
that does not hold what its name says (damaged, cut, another format) is ignored, and the
log is read again. At most KEEP indexes are kept, the least recently used go first.

Beside an index, the log's snapshot ids (which Dumps hold byte-identical IR) are kept once a
command has compared its Dumps (`SnapshotStore`), so later commands skip that comparison too;
so are answers about the log that cost more than reading them back (`AnswerStore`: the sync
checker's findings), each with the signature of the code that computed it.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from ascend_ir_lab import forked
from ascend_ir_lab.dumps.model import LogInfo
from ascend_ir_lab.dumps.parallel import flat, unflat
from ascend_ir_lab.dumps.reader import LogIndex
from ascend_ir_lab.private import kept_name, private_folder, write_aside

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from typing import Any

INDEX_FROM = 32 << 20  # smaller logs are read faster than an index is checked and loaded
KEEP = 32  # indexes kept at most
BACKGROUND_FROM = 2000  # Dumps from which a forked copy writes the index (a fork costs ~1 ms)
_writing: list[tuple[int, forked.Pending]] = []  # (pid of the writer's parent, its result)
_names_writing: set[Path] = set()  # the names those writers write
_FORMAT = 2
_BESIDE = (".snap", ".sync")  # what is kept beside an index (SnapshotStore, AnswerStore)
# The modules whose reading an index records: any change to one of them is a new index.
_READER = (
    "asm", "body", "builder", "compiles", "headers", "index_cache", "model", "packed", "parallel",
    "prefixes", "reader", "scan", "snapshots", "timeline",
)  # fmt: skip


def kept_index(name: Path) -> LogIndex | None:
    """The index kept as `name` (`index_file`; Dumps numbered from 0, log 0), or None where
    none is kept."""
    settle()
    try:
        with open(name, "rb") as f:
            blob = f.read()
    except OSError:
        return None
    found = _unpack(blob, name.stem)
    if found is not None:
        with contextlib.suppress(OSError):
            os.utime(name)  # recently used: evicted last
    return found


def keep_index(name: Path, idx: LogIndex) -> bool:
    """Keep `idx` (Dumps numbered from 0, log 0) as `name` (`index_file`); False where it
    could not be written.

    Where a core is idle, a forked copy writes it while this process goes on (True: it is
    being written; `settle` waits for it); under `forked.held_until_done` (a command line)
    the copy starts once the command's output is written, on a core the command no longer
    needs. This process does not wait for it to exit: a
    command is done when its output is, and the copy finishes the file on its own (a name is
    only ever a complete file; a copy that fails leaves none, and the next read reads the log).
    """
    settle()
    if len(idx.dumps) >= BACKGROUND_FROM:
        work = lambda: _write_index(name, idx)  # noqa: E731
        held = forked.after_output(work)  # a command line's: written once its output is
        pending = held or forked.in_parallel(work)
        if held is not None or pending.started:
            _writing.append((os.getpid(), pending))
            _names_writing.add(name)
            return True
    return _write_index(name, idx)


def settle() -> None:
    """Wait until every index this process is writing is written (or written here, where
    the forked copy writing it failed). A forked copy of this process has none to wait for."""
    while _writing:
        owner, pending = _writing.pop(0)
        if owner == os.getpid():
            pending.result()
    _names_writing.clear()


def _write_index(name: Path, idx: LogIndex) -> bool:
    if not write_aside(name, [marshal.dumps((_FORMAT, name.stem, *flat(idx)))]):
        return False
    _evict(name.parent, keep=name)
    return True


class SnapshotStore:
    """The kept snapshot ids of one large log's Timeline (a Timeline of that log alone),
    beside its index `index` (`index_file`)."""

    def __init__(self, index: Path) -> None:
        self._path = index.with_suffix(".snap")

    def get(self, count: int) -> list[int] | None:
        """The kept ids of `count` Dumps, or None where none are kept (or not those)."""
        try:
            with open(self._path, "rb") as f:
                fmt, stem, snap = marshal.loads(f.read())
        except (OSError, ValueError, EOFError, TypeError):
            return None
        if fmt != _FORMAT or stem != self._path.stem or not _snapshot_ids(snap, count):
            return None
        return snap  # type: ignore[no-any-return]

    def keep(self, snap: list[int]) -> None:
        """Keep `snap`, the ids the Timeline found."""
        write_aside(self._path, [marshal.dumps((_FORMAT, self._path.stem, snap))])


class AnswerStore:
    """An answer computed from one large log's Timeline (a Timeline of that log alone), kept
    beside its index under its own name (`sync`: the sync checker's findings), with the
    signature of the code that computed it: a later command with the same code takes it
    instead of computing it again."""

    def __init__(self, index: Path, name: str) -> None:
        self._path = index.with_suffix(f".{name}")

    def get(self, signature: str) -> Any:
        """The answer kept by code of `signature`, or None (none kept, other code, damaged)."""
        try:
            with open(self._path, "rb") as f:
                fmt, stem, sig, answer = marshal.loads(f.read())
        except (OSError, ValueError, EOFError, TypeError):
            return None
        if fmt != _FORMAT or stem != self._path.stem or sig != signature:
            return None
        return answer

    def keep(self, signature: str, answer: Any) -> None:
        """Keep `answer` (plain values `marshal` writes) as computed by code of `signature`."""
        try:
            blob = marshal.dumps((_FORMAT, self._path.stem, signature, answer))
        except ValueError:  # not plain values: nothing kept
            return
        write_aside(self._path, [blob])


def answer_store(logs: Sequence[LogInfo], name: str) -> AnswerStore | None:
    """Where the answer `name` of a Timeline of `logs` is kept: only for one large log whose
    index is kept (the log as it is now; changed or replaced, it has another index)."""
    if len(logs) != 1:
        return None
    info = logs[0]
    index = index_file(Path(info.path), info.size, info.stage)
    if index is None or not (index in _names_writing or index.is_file()):
        return None
    return AnswerStore(index, name)


def _snapshot_ids(snap: object, count: int) -> bool:
    """`count` ids, each new one the next number (the order `Timeline` numbers them in)."""
    if type(snap) is not list or len(snap) != count:
        return False
    top = -1
    for sid in snap:
        if type(sid) is not int or not 0 <= sid <= top + 1:
            return False
        top = max(top, sid)
    return True


def index_file(path: Path, size: int, stage: str) -> Path | None:
    """Where the index of the log `path` (`size` bytes of text) read as `stage` is kept, as
    the log is now; None for a small log or where no private folder can be had."""
    if size < INDEX_FROM:
        return None
    try:
        st = os.stat(path)
        where = os.path.realpath(path)
    except OSError:
        return None
    if st.st_size != size:  # a compressed log: its text's size is part of what is read
        where += f"\0{size}"
    folder = private_folder("log-index")
    if folder is None:
        return None
    identity = "\0".join(
        map(str, (where, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    )
    name = kept_name(f"{identity}\0{stage}\0{_reader_signature()}")
    return folder / f"{name}.idx"


def _reader_signature() -> str:
    """Size and modification time of each source file of the reader."""
    here = os.path.dirname(os.path.abspath(__file__))
    parts = []
    for module in _READER:
        try:
            st = os.stat(os.path.join(here, f"{module}.py"))
        except OSError:
            parts.append(f"{module}:?")
            continue
        parts.append(f"{module}:{st.st_size}:{st.st_mtime_ns}")
    return f"{_FORMAT}:{sys.version_info[:2]}:" + ",".join(parts)


def _unpack(blob: bytes, stem: str) -> LogIndex | None:
    """The LogIndex a kept file holds, or None where it holds anything else."""
    try:
        fmt, name, *columns = marshal.loads(blob)
        if fmt != _FORMAT or name != stem or not all(isinstance(c, list) for c in columns):
            return None
        idx = unflat(tuple(columns))
    except (ValueError, EOFError, TypeError):  # damaged, cut, or rows of other lengths
        return None
    return idx if all(isinstance(w, str) for w in idx.warnings) else None


def _evict(folder: Path, *, keep: Path) -> None:
    """Remove the least recently used indexes until KEEP are left."""
    found = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if entry.name.endswith(".idx") and entry.is_file(follow_symlinks=False):
                found.append((entry.stat(follow_symlinks=False).st_mtime_ns, Path(entry.path)))
    _drop_orphans(folder)
    for _, path in sorted(found)[: max(0, len(found) - KEEP)]:
        if path != keep:
            for gone in (path, *(path.with_suffix(s) for s in _BESIDE)):
                with contextlib.suppress(OSError):
                    gone.unlink()


def _drop_orphans(folder: Path) -> None:
    """Remove what was kept beside an index that is gone (or whose writing failed)."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            path = Path(entry.path)
            if path.suffix in _BESIDE and not path.with_suffix(".idx").exists():
                with contextlib.suppress(OSError):
                    path.unlink()
