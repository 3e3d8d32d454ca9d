"""The header scan that skips to the `R` of `IR ` finds the lines the pattern finds: in
logs where that byte is rare, common (the pattern takes over), at window edges, and in
any part of a log the parallel read cuts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_ir_lab.dumps import scan
from tests.conftest import DATA

_PIECES = [
    b"IR Dump After CSE (cse) //----- //", b"IR Pass ", b"IR Deleted After X", b"IR ",
    b"R", b"I", b"IR", b"IIR Dump", b"RRR", b"\n", b"\n", b"\r\n", b"  %0 = arith.addi ",
    b"// -----// ", b"*** ", b"IR Dum", b"IR Pas", b"\xff\x00",
    b"IR Before Last Pass ", b"IR Before Last Pas",  # every literal of the pattern, whole and cut
]  # fmt: skip


def _by_pattern(data: bytes, lo: int, hi: int | None) -> list[tuple[int, int]]:
    size = len(data)
    out = []
    for m in scan.CANDIDATE_LINE.finditer(data, lo, size if hi is None else hi):
        stop = m.end()
        out.append((data.rfind(b"\n", 0, m.start()) + 1, stop + 1 if stop < size else size))
    return out


def _line_starts(data: bytes) -> list[int]:
    return [0] + [k + 1 for k in range(len(data)) if data[k : k + 1] == b"\n"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_PIECES), max_size=120),
    st.integers(1, 64),
    st.integers(1, 6),
    st.data(),
)
def test_the_lines_found_are_the_patterns(
    pieces: list[bytes], window: int, looks: int, draw: st.DataObject
) -> None:
    data = b"".join(pieces)
    starts = _line_starts(data)
    lo = draw.draw(st.sampled_from(starts))
    hi = draw.draw(st.sampled_from([None, *[s for s in starts if s >= lo]]))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scan, "_WINDOW", window)
        mp.setattr(scan, "_LOOKS", looks)
        assert list(scan._candidate_lines(data, lo, hi)) == _by_pattern(data, lo, hi)


@pytest.mark.parametrize("name", ["ascend/vadd.adapter.log", "llvm/loop.after-all.log"])
def test_real_logs_read_alike_with_the_byte_common_or_rare(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = (DATA / name).read_bytes()
    # a log where every line holds an `R`: the pattern searches most of it
    dense = data.replace(b"\n", b" R\n")
    for text in (data, dense):
        want = _by_pattern(text, 0, None)
        assert want and list(scan._candidate_lines(text, 0, None)) == want
        monkeypatch.setattr(scan, "_WINDOW", 4096)
        assert list(scan._candidate_lines(text, 0, None)) == want
        monkeypatch.undo()
