"""Read the files of a source into one Timeline: each log indexed (kept, or on several cores
where it pays), a line-prefixed log split into its streams, whole stage files as Dumps."""

from __future__ import annotations

import mmap
import os
import re
import stat
from pathlib import Path

from ascend_ir_lab.dumps.blocks import open_gzip
from ascend_ir_lab.dumps.body import infer_scope
from ascend_ir_lab.dumps.compiles import compile_starts
from ascend_ir_lab.dumps.index_cache import SnapshotStore, index_file, keep_index, kept_index
from ascend_ir_lab.dumps.log_cache import read_compressed
from ascend_ir_lab.dumps.model import Dump, LogInfo, Message, Segment
from ascend_ir_lab.dumps.packed import compression_of, read_streamed, unread_compression
from ascend_ir_lab.dumps.parallel import index_in_parts
from ascend_ir_lab.dumps.prefixes import (
    Stream,
    indent_prefix,
    line_prefixes,
    split_streams,
    stream_tag,
    to_source,
)
from ascend_ir_lab.dumps.reader import LONE_CR, LogIndex, index_log
from ascend_ir_lab.dumps.scan import find_headers
from ascend_ir_lab.dumps.timeline import Timeline
from ascend_ir_lab.dumps.zstd_log import open_zstd
from ascend_ir_lab.errors import InputError
from ascend_ir_lab.runs.paths import is_inside

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from typing import Any

MMAP_FROM = 32 << 20  # map files at least this large instead of reading them
_COMPRESSED = {".gz": open_gzip, ".zst": open_zstd}
_MAGIC = {b"\x1f\x8b": ".gz", b"\x28\xb5\x2f\xfd": ".zst"}


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def _checked(path: Path, fd: int, within: Path | None) -> os.stat_result:
    """The open file's status, or InputError for what is not read (see read_bytes)."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{path}: not a regular file; not read")
    if within is not None:
        try:
            real = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # no /proc: the path was checked before the open
            real = None
        if real is not None and not is_inside(within, real):
            raise InputError(f"{path}: lies outside the Run folder once open; not read")
    seek_hole = getattr(os, "SEEK_HOLE", None)
    if st.st_size >= MMAP_FROM and seek_hole is not None:
        try:
            hole = os.lseek(fd, 0, seek_hole)
            os.lseek(fd, 0, os.SEEK_SET)
        except OSError:  # a file system that cannot say
            hole = st.st_size
        if hole < st.st_size:
            raise InputError(f"{path}: a sparse file ({st.st_size} bytes, "
                             f"{st.st_blocks * 512} on disk), not a compiler log; not read")  # fmt: skip
    return st


def read_bytes(path: Path, within: Path | None = None) -> bytes:
    """The bytes of a file: `.gz` and `.zst` as blocks decompressed on demand (BlockText),
    `.xz`/`.bz2` decompressed as a stream, memory-mapped when large. A compressed file
    without its suffix is read by its first bytes.

    The file is opened without blocking and checked once open: a FIFO or device (swapped in
    after a check) and a large file with holes (`truncate -s 50G`) are refused, and with
    `within` a file that lies outside that folder once open (a name swapped for a link)."""
    try:
        with open(os.open(path, _READ_FLAGS), "rb") as f:
            st = _checked(path, f.fileno(), within)
            suffix = path.suffix
            if suffix not in _COMPRESSED:
                head = f.read(8)
                suffix = next((s for magic, s in _MAGIC.items() if head.startswith(magic)), suffix)
                streamed = compression_of(path, head)
                if streamed is not None:
                    return read_streamed(path, streamed, MMAP_FROM)
                unread = unread_compression(head)
                if unread is not None:
                    raise InputError(f"{path}: {unread}-compressed; decompress it to read it")
            if suffix not in _COMPRESSED:  # plain text, from the file checked open
                if st.st_size >= MMAP_FROM:
                    return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)  # type: ignore[return-value]
                f.seek(0)
                return f.read()
        return read_compressed(path, _COMPRESSED[suffix], MMAP_FROM)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, EOFError, ValueError) as exc:
        raise InputError(f"{path}: cannot read: {exc}") from None


_WIDE_MARKER = "IR Dump".encode("utf-16-le")


def utf16_text(data: bytes) -> bytes | None:
    """A UTF-16 log (a byte-order mark, or `IR Dump` in UTF-16 with no BOM) as UTF-8; None
    for any other."""
    head = bytes(data[:2])
    if head in (b"\xff\xfe", b"\xfe\xff"):
        codec = "utf-16"
    elif b"\0" in data[:64] and data.find(_WIDE_MARKER) >= 0:
        codec = "utf-16-le"
    else:
        return None
    return bytes(data).decode(codec, "replace").encode("utf-8")


_LONE_CR = re.compile(rb"\r(?!\r?\n)")  # not `\r\n`, nor the first of `\r\r\n`
# `\n\r` (a serial console's, some Windows tools'): a newline, then a carriage return that
# starts the next line; not the blank line of a `\r\n` log (`\r\n\r\n`)
_LF_CR = re.compile(rb"(?<!\r)\n\r(?!\n)")


def cr_lines(data: bytes, *, whole: bool = False) -> bytes | None:
    """`data` with each carriage return that ends a line alone (`\r`, not `\r\n`) as a
    newline, or each `\n\r` line end as `\r\n`, where a header line ends so (a log of
    such line ends, whole or in part); None for any other log, whose `\r`s (a progress
    bar's) stay text. The same length: every offset is still into the file as written. Its
    first and last MiB are looked at (a log written so, or one appended to another), or
    with `whole` all of it."""
    if not isinstance(data, (bytes, mmap.mmap)):
        return None
    size = len(data)
    spans = (
        [(0, size)] if whole or size <= 2 * _CR_LOOK else [(0, _CR_LOOK), (size - _CR_LOOK, size)]
    )
    for lo, hi in spans:
        kind = _cr_header(data, lo, hi) if data.find(b"\r", lo, hi) >= 0 else None
        if kind == "lf-cr":
            return re.sub(rb"\n\r", b"\r\n", data)
        if kind == "cr":
            return _LONE_CR.sub(b"\n", data)
    return None


_CR_LOOK = 1 << 20
_CR_LINES = 100_000  # lines of `Dump` looked at, at most
_CR_HEADERS = 1000  # of those, lines that end in a lone CR looked at for a header, at most


def _cr_header(data: bytes, lo: int, hi: int) -> str | None:
    """How a header line in [lo, hi) ends where it ends in a carriage return: "cr" (alone),
    "lf-cr" (`\n\r`), else None. Each line of `Dump` is looked at once, the first
    _CR_LINES of them at most, a header looked for in _CR_HEADERS of those that end so at
    most (one look back per CR read a log of CRs alone once per CR: hours for a few MB)."""
    at, begun = data.find(b"Dump", lo, hi), max(lo - 4096, 0)  # begun: no line end before
    lines = looks = 0
    nl = -1  # the first newline at or after `at` (-1: none left before hi)
    while at >= 0 and lines < _CR_LINES and looks < _CR_HEADERS:
        if nl != -2 and nl < at:
            nl = data.find(b"\n", at, hi)
            nl = -2 if nl < 0 else nl  # -2: no newline up to hi, not looked for again
        stop = hi if nl == -2 else nl
        cr = data.find(b"\r", at, stop)
        kind, end = None, stop
        if cr >= 0 and _LONE_CR.match(data, cr):
            kind, end = "cr", cr
        elif nl >= 0 and _LF_CR.match(data, nl):
            kind = "lf-cr"
        if kind is not None:
            start = max(data.rfind(b"\n", begun, at), data.rfind(b"\r", begun, at)) + 1
            line = data[max(start, begun) : end]
            looks += 1
            if b"IR " in line and next(find_headers(line + b"\n"), None):
                return kind
        if cr < 0 and nl == -2:
            return None
        begun = end + 1
        at = data.find(b"Dump", begun, hi)
        lines += 1
    return None  # so many lines of `Dump`, none a header ending so: no log of CR lines


class LogBuilder:
    """Accumulates logs into one Timeline, numbering Dumps across them."""

    def __init__(self) -> None:
        self.logs: list[tuple[LogInfo, bytes]] = []
        self.dumps: list[Dump] = []
        self.messages: list[Message] = []
        self.warnings: list[str] = []
        self.streams: dict[int, Stream] = {}  # the logs that are streams of a prefixed file
        self.kept_as: Path | None = None  # where the last log's index is kept, if anywhere

    def add_log(self, path: Path, data: bytes, stage: str) -> LogIndex:
        """Index one log into the Timeline (a line-prefixed one as its streams); the
        index returned holds every Dump read from it."""
        read, stage_key = data, stage
        lf = cr_lines(data)
        if lf is None:
            idx, self.kept_as, patterns = _index(path, data, stage)
            # no dump where the ends of the log had none, or a header line that ends in a
            # carriage return alone between them: the whole log is looked at
            if (not idx.dumps and not patterns) or LONE_CR in idx.warnings:
                lf = cr_lines(data, whole=True)
                stage_key = f"{stage}\0line ends"  # kept apart from the log's as it stands
        if lf is not None:
            data = lf
            self.warnings.append(f"{path}: lines that end in a carriage return alone or begin "
                                 "with one (as an old tool, a serial console or a terminal's "
                                 "capture writes them); read as line ends")  # fmt: skip
            idx, self.kept_as, patterns = _index(path, data, stage, stage_key)
        self.warnings.extend(getattr(read, "warnings", ()))
        if patterns:
            return self._add_streams(path, data, stage, patterns)
        self._add_index(path, data, stage, idx, "")
        return idx

    def _add_index(self, path: Path, data: bytes, stage: str, idx: LogIndex, prefix: str) -> None:
        log_id, first = len(self.logs), len(self.dumps)
        if log_id or first:
            idx.shift(log_id, first)
        info = LogInfo(str(path), stage, len(data), idx.segments, prefix)
        info.compiles = compile_starts(idx.dumps)
        self.logs.append((info, data))
        self.dumps.extend(idx.dumps)
        self.messages.extend(idx.messages)
        self.warnings.extend(f"{path}: {w}" for w in idx.warnings)

    def _add_streams(self, path: Path, data: bytes, stage: str, patterns: list[bytes]) -> LogIndex:
        """A log whose lines carry prefixes: each stream read as a log of its own."""
        out = LogIndex()
        streams = split_streams(data, patterns)
        plain_dumps = False  # whether the lines without a prefix (read first) hold Dumps
        for k, stream in enumerate(streams):
            if not stream.text:
                continue
            # two streams of Dumps or more (the plain lines' one of them): each a stage of
            # its own, named by its tag (`log-rank0`); one alone keeps the log's name
            alone = len(streams) < 3 and not plain_dumps
            name = stage if k == 0 or alone else f"{stage}-{stream_tag(stream, k)}"
            idx = to_source(index_log(stream.text, stage=name, log_id=0), stream)
            if stream.pattern is not None:
                self.streams[len(self.logs)] = stream
            self._add_index(path, data, name, idx, stream.prefix.decode("utf-8", "replace"))
            out.dumps.extend(idx.dumps)
            out.messages.extend(idx.messages)
            plain_dumps = plain_dumps or (k == 0 and bool(idx.dumps))
        named = [_shown(s.prefix.decode("utf-8", "replace")) for s in streams[1:]]
        shown = ", ".join(repr(n) for n in named[:4]) + (" ..." if len(named) > 4 else "")
        self.warnings.append(f"{path}: every line carries a prefix ({shown}); read without it")
        return out

    def add_artifact(self, path: Path, data: bytes, stage: str) -> Dump:
        """A whole stage file as one Dump (phase `artifact`)."""
        log_id = len(self.logs)
        self.logs.append((LogInfo(str(path), stage, len(data)), data))
        family = _family_of(path)
        scope = "module" if family == "asm" else infer_scope(data, 0, len(data), family)
        d = Dump(
            len(self.dumps), stage, f"{stage} output", path.name.removesuffix(".zst"), "",
            "artifact", scope,
            family, log_id, 0, 0, len(data), len(data), False, scope,
        )  # fmt: skip
        self.logs[-1][0].segments.append(Segment("dump", d.start, d.end, d.index))
        self.dumps.append(d)
        return d

    def timeline(
        self,
        *,
        title: str,
        path: Path,
        run: dict[str, Any] | None = None,
        kept: SnapshotStore | None = None,
    ) -> Timeline:
        return Timeline(
            self.logs, self.dumps, self.messages, self.warnings,
            title=title, run=run, path=str(path), kept_snapshots=kept,
            streams=self.streams or None,
        )  # fmt: skip


def _shown(prefix: str) -> str:
    """A prefix as a warning names it: its text, or (an indent) its blanks."""
    return prefix.strip() or prefix


def _index(
    path: Path, data: bytes, stage: str, key: str | None = None
) -> tuple[LogIndex, Path | None, list[bytes]]:
    """The index of one log, as log 0 from Dump 0: kept from an earlier read of the same
    large log, or read now (on several cores where it pays) and kept; where it is kept
    (None: a small log, a line-prefixed one, or nowhere to keep it); and the patterns of
    the prefixes its lines carry (`prefixes.line_prefixes`), if any."""
    name = index_file(path, len(data), stage if key is None else key)
    kept = kept_index(name) if name is not None else None
    if kept is not None:
        return kept, name, []
    first = next(find_headers(data), None)
    start = first[0] if first is not None else 0
    if start and data[start - 1 : start] != b"\n":
        # the first header has output before it on its line: a prefix every line carries?
        # Then the log is read as its streams alone (indexing the prefixed text is wasted).
        if line_prefixes(data, [(data.rfind(b"\n", 0, start) + 1, start)]):
            leads = [(data.rfind(b"\n", 0, s) + 1, s) for s, _, _ in find_headers(data)]
            return LogIndex(), None, line_prefixes(data, [(a, s) for a, s in leads if a < s])
    if first is not None and data[start : start + 1] in (b" ", b"\t"):
        indent = indent_prefix(data, start, first[1])  # every line indented alike?
        if indent is not None:
            return LogIndex(), None, [indent]
    idx = index_in_parts(data, stage=stage, log_id=0)
    if idx is None:  # a small log, or one that cannot be read on several cores
        idx = index_log(data, stage=stage, log_id=0)
    patterns = line_prefixes(data, idx.leads) if idx.leads else []
    if patterns:  # a line-prefixed log is read as its streams: that index is not kept
        return idx, None, patterns
    return idx, name if name is not None and keep_index(name, idx) else None, []


def _family_of(path: Path) -> str:
    """The language of a stage file, from its name."""
    name = path.name.removesuffix(".gz").removesuffix(".zst")
    if name.endswith((".llir", ".ll")):
        return "llvm"
    if name.endswith((".ptx", ".amdgcn", ".s", ".asm")):
        return "asm"
    return "mlir"
