"""Random truncations, interleavings and garbage: no exception escapes, no byte is lost."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascend_ir_lab.dumps import index_log
from tests.conftest import ASCEND, fixture_bytes

REAL = fixture_bytes(ASCEND / "vadd.bishengir.log.gz")
FAILED = fixture_bytes(ASCEND / "failed.log")
BEFORE = fixture_bytes(ASCEND / "vadd.ttir-passes.log")
SOURCES = [REAL, FAILED, BEFORE]


def _check(data: bytes) -> None:
    idx = index_log(data, stage="s", log_id=0)
    assert b"".join(data[s.start : s.end] for s in idx.segments) == data
    pos = 0
    for seg in idx.segments:
        assert seg.start == pos and seg.end > seg.start
        pos = seg.end
    for d in idx.dumps:
        assert d.start <= d.body_start <= d.body_end <= d.end


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(src=st.sampled_from(SOURCES), cut=st.floats(0, 1), start=st.floats(0, 1))
def test_any_slice_of_a_real_log_is_read_losslessly(src: bytes, cut: float, start: float) -> None:
    a = int(len(src) * min(start, cut))
    b = int(len(src) * max(start, cut))
    _check(src[a:b])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    src=st.sampled_from(SOURCES),
    inserts=st.lists(st.tuples(st.floats(0, 1), st.binary(max_size=200)), max_size=8),
)
def test_garbage_interleaved_anywhere_is_kept(
    src: bytes, inserts: list[tuple[float, bytes]]
) -> None:
    data = src
    for where, junk in inserts:
        k = int(len(data) * where)
        data = data[:k] + junk + data[k:]
    _check(data)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=3000))
def test_pure_garbage_never_raises(data: bytes) -> None:
    _check(data)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                b"// -----// IR Dump After CSE (cse) //----- //\n",
                b"module {\n",
                b"}\n",
                b"\n",
                b"  %0 = arith.constant 1 : i32\n",
                b"[ERROR] oops\n",
                b"; *** IR Dump After X on f ***\n",
                b"*** IR Dump Before Y (y) ***\n",
                b"Traceback (most recent call last):\n",
                b'  File "x.py", line 1\n',
                b"// -----// IR Dump Before P: p{a=1} ('tt.func' operation: @f) //----- //\n",
            ]
        ),  # fmt: skip
        max_size=40,
    )
)
def test_shuffled_log_pieces_never_raise(pieces: list[bytes]) -> None:
    _check(b"".join(pieces))
