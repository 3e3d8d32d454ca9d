"""A large log's index kept after its first read: the next open reads it instead of the log,
and only while the log, the stage and the reader are what they were."""

from __future__ import annotations

import marshal
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from ascend_ir_lab import forked
from ascend_ir_lab.dumps import builder, index_cache, open_timeline, sources
from ascend_ir_lab.dumps import timeline as timeline_module
from ascend_ir_lab.dumps.timeline import Timeline
from tests.conftest import ASCEND, fixture_bytes

LOG = fixture_bytes(ASCEND / "vadd.adapter.log") + fixture_bytes(ASCEND / "failed.log")


@pytest.fixture
def folder(index_folder: Path) -> Path:
    return index_folder


def _read_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on, reading a log's text for its index fails the test."""

    def refuse(*_args: object, **_kw: object) -> None:
        raise AssertionError("the log was read again")

    monkeypatch.setattr(builder, "index_in_parts", refuse)
    monkeypatch.setattr(builder, "index_log", refuse)


def _fields(tl: Timeline) -> tuple[object, ...]:
    return (
        [d.values() for d in tl.dumps],
        [m.values() for m in tl.messages],
        [s.values() for info in tl.logs for s in info.segments],
        tl.warnings,
        tl.change_states(),
    )


def _log(tmp_path: Path, data: bytes = LOG) -> Path:
    path = tmp_path / "big.log"
    path.write_bytes(data)
    return path


def test_a_second_open_reads_the_kept_index(
    tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _log(tmp_path)
    first = open_timeline(str(path))
    (kept,) = folder.iterdir()
    assert kept.suffix == ".idx" and oct(folder.stat().st_mode & 0o777) == "0o700"
    _read_refused(monkeypatch)
    again = open_timeline(str(path))
    assert _fields(again) == _fields(first)
    assert again.text(again.dumps[-1]) == first.text(first.dumps[-1])


def test_a_changed_log_is_read_again(tmp_path: Path, folder: Path) -> None:
    path = _log(tmp_path)
    st = path.stat()
    open_timeline(str(path))
    changed = LOG.replace(b"IR Dump After Discrete", b"IR Dump After Xiscrete", 1)
    assert len(changed) == len(LOG)
    path.write_bytes(changed)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same modification time
    assert open_timeline(str(path)).dumps[0].pass_name.startswith("Xiscrete")
    assert len(list(folder.iterdir())) == 2


def test_the_same_log_as_another_stage_is_read_again(tmp_path: Path, folder: Path) -> None:
    path = _log(tmp_path)
    assert sources.read_log(str(path), stage="adapter").dumps[0].stage == "adapter"
    assert sources.read_log(str(path), stage="ttir").dumps[0].stage == "ttir"


def _rows(stem: str, dumps: list[object]) -> bytes:
    return marshal.dumps((1, stem, dumps, [], [], []))


@pytest.mark.parametrize(
    "damage",
    [
        lambda blob, stem: blob[: len(blob) // 2],  # cut
        lambda blob, stem: b"\x00" * len(blob),  # overwritten
        lambda blob, stem: b"",  # empty
        lambda blob, stem: _rows("another log", []),  # another log's name inside
        lambda blob, stem: _rows(stem, [(1, 2)]),  # rows that are no Dumps
        lambda blob, stem: _rows(stem, [None]),
        lambda blob, stem: marshal.dumps((1, stem, [], [], [], [7])),  # a warning not text
    ],
)
def test_a_damaged_index_is_ignored(
    tmp_path: Path, folder: Path, damage: Callable[[bytes, str], bytes]
) -> None:
    path = _log(tmp_path)
    first = open_timeline(str(path))
    (kept,) = folder.iterdir()
    kept.write_bytes(damage(kept.read_bytes(), kept.stem))
    assert _fields(open_timeline(str(path))) == _fields(first)


def test_no_private_folder_no_index(tmp_path: Path, folder: Path) -> None:
    folder.mkdir(mode=0o755)
    folder.chmod(0o777)  # open to others: not ours alone
    path = _log(tmp_path)
    first = open_timeline(str(path))
    assert list(folder.iterdir()) == []
    assert _fields(open_timeline(str(path))) == _fields(first)


def test_kept_indexes_are_numbered_for_their_place(
    tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = tmp_path / "a.log", tmp_path / "b.log"
    a.write_bytes(fixture_bytes(ASCEND / "vadd.adapter.log"))
    b.write_bytes(LOG)

    def two(b_: builder.LogBuilder) -> Timeline:
        b_.add_log(a, a.read_bytes(), "adapter")
        b_.add_log(b, b.read_bytes(), "bishengir")
        return b_.timeline(title="two", path=tmp_path)

    first = two(builder.LogBuilder())
    _read_refused(monkeypatch)
    again = two(builder.LogBuilder())
    assert _fields(again) == _fields(first)
    assert again.dumps[-1].log_id == 1 and again.dumps[-1].index == len(first.dumps) - 1


def test_the_least_recently_used_go_first(
    tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_cache, "KEEP", 2)
    logs = []
    for k in range(3):
        logs.append(tmp_path / f"{k}.log")
        logs[-1].write_bytes(LOG)
        open_timeline(str(logs[-1]))
    assert len(list(folder.iterdir())) == 2
    _read_refused(monkeypatch)
    open_timeline(str(logs[2]))  # the newest is kept
    with pytest.raises(AssertionError, match="read again"):
        open_timeline(str(logs[0]))  # the oldest is gone


def test_snapshot_ids_are_kept_beside_the_index(
    tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _log(tmp_path)
    first = _fields(open_timeline(str(path)))  # compares the Dumps, keeps their ids
    assert {p.suffix for p in folder.iterdir()} == {".idx", ".snap"}

    def refuse(*_args: object) -> None:
        raise AssertionError("the Dumps were compared again")

    monkeypatch.setattr(timeline_module, "snapshot_ids", refuse)
    assert _fields(open_timeline(str(path))) == first


@pytest.mark.parametrize(
    "ids",
    [
        lambda snap: snap[:-1],  # another count of Dumps
        lambda snap: [snap[0] + 1, *snap[1:]],  # a first id that is not 0
        lambda snap: [*snap[:-1], max(snap) + 2],  # a new id that skips one
        lambda snap: [str(x) for x in snap],
    ],
)
def test_kept_snapshot_ids_that_cannot_be_are_ignored(
    tmp_path: Path, folder: Path, ids: Callable[[list[int]], list[object]]
) -> None:
    path = _log(tmp_path)
    first = _fields(open_timeline(str(path)))
    (snap_file,) = folder.glob("*.snap")
    fmt, stem, snap = marshal.loads(snap_file.read_bytes())
    snap_file.write_bytes(marshal.dumps((fmt, stem, ids(snap))))
    assert _fields(open_timeline(str(path))) == first


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is not available")
@pytest.mark.parametrize("copy_fails", [False, True])
def test_a_forked_copy_writes_the_index_meanwhile(
    tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch, copy_fails: bool
) -> None:
    monkeypatch.setattr(index_cache, "BACKGROUND_FROM", 1)
    monkeypatch.setattr(forked, "idle_cpus", lambda: 1)
    monkeypatch.setattr(forked, "can_fork", lambda: True)
    here, write = os.getpid(), index_cache._write_index

    def written_by(name: Path, idx: object) -> bool:
        if copy_fails and os.getpid() != here:
            raise OSError("the copy fails")  # a stand-in: a real write seldom fails on demand
        (tmp_path / f"by-{'here' if os.getpid() == here else 'copy'}").touch()
        return write(name, idx)  # type: ignore[arg-type]

    monkeypatch.setattr(index_cache, "_write_index", written_by)
    path = _log(tmp_path)
    first = open_timeline(str(path))
    assert [p for _, p in index_cache._writing] and all(p.started for _, p in index_cache._writing)
    index_cache.settle()
    assert not index_cache._writing
    assert (tmp_path / "by-here").exists() == copy_fails
    assert (tmp_path / "by-copy").exists() != copy_fails
    (kept,) = folder.iterdir()
    assert kept.suffix == ".idx"
    _read_refused(monkeypatch)
    assert _fields(open_timeline(str(path))) == _fields(first)
