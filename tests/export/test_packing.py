"""Packed payloads: round trip, validation, and the size goals on a real 386-pass bishengir log."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any

import nbformat
import pytest

from ascend_ir_lab import forked
from ascend_ir_lab.dumps import open_timeline
from ascend_ir_lab.export import build_payload, deflate, validate_payload
from ascend_ir_lab.export.html import embed_json, render_html, static_html
from ascend_ir_lab.export.packing import (
    AUTO_THRESHOLD,
    auto_pack,
    is_packed,
    pack_payload,
    payload_json,
    unpack_payload,
)

MATMUL = Path(__file__).resolve().parents[1] / "data" / "ascend" / "matmul.bishengir.log.gz"


@pytest.fixture(scope="module")
def matmul() -> dict[str, Any]:
    payload: dict[str, Any] = build_payload(open_timeline(MATMUL), title="matmul")
    payload["notes"] = [{"id": "n1", "dump": 3, "line": 2, "text": "look </script>", "created": ""}]
    return payload


def test_round_trip_keeps_everything_and_notes_stay_plain(matmul: dict[str, Any]) -> None:
    packed = pack_payload(matmul)
    assert is_packed(packed) and not is_packed(matmul)
    assert packed["notes"] == matmul["notes"] and packed["title"] == "matmul"
    assert unpack_payload(packed) == matmul
    assert pack_payload(matmul) == packed  # deterministic: same payload, same bytes
    assert validate_payload(packed) == []


def test_bad_packed_data_is_a_validation_problem() -> None:
    bad = {"format": "ascend-ir-lab/timeline@1", "packed": "gzip+base64", "data": "!!", "notes": []}
    assert "not gzip+base64" in validate_payload(bad)[0]
    listed = base64.b64encode(gzip.compress(b"[1, 2]")).decode()
    assert "holds a list" in validate_payload({**bad, "data": listed})[0]
    with pytest.raises(ValueError, match="must be a base64 string, got int"):
        unpack_payload({**bad, "data": 3})


def test_offline_page_of_386_passes_is_under_5_percent_of_the_log(matmul: dict[str, Any]) -> None:
    assert len(matmul["dumps"]) == 386
    raw = len(gzip.decompress(MATMUL.read_bytes()))
    page = render_html(matmul, title="matmul").encode("utf-8")
    assert len(page) / raw < 0.05, f"{len(page)} bytes is {100 * len(page) / raw:.1f}% of {raw}"
    assert b'"packed":"gzip+base64"' in page


def test_small_payload_stays_plain_unless_asked(matmul: dict[str, Any]) -> None:
    small = {**matmul, "lines": matmul["lines"][:3], "snapshots": [[0, 1, 2]], "dumps": matmul["dumps"][:1],
             "srcmap": [], "notes": []}  # fmt: skip
    small["dumps"] = [{**small["dumps"][0], "snap": 0, "prev": -1}]
    assert '"packed"' not in render_html(small, title="s")
    assert '"packed":"gzip+base64"' in render_html(small, title="s", compress=True)
    with pytest.raises(TypeError, match="compress must be True, False or None, got 'yes'"):
        render_html(small, title="s", compress="yes")  # type: ignore[arg-type]


def test_saved_notebook_grows_by_less_than_the_payload(matmul: dict[str, Any]) -> None:
    from ascend_ir_lab.notebook.widget import TimelineWidget

    data, meta = TimelineWidget(matmul)._repr_mimebundle_()
    assert is_packed(data["application/vnd.ascend-ir-lab.timeline+json"])
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("%ir_load matmul")])
    before = len(nbformat.writes(nb).encode("utf-8"))
    nb.cells[0].outputs.append(nbformat.v4.new_output("display_data", data=data, metadata=meta))
    grown = len(nbformat.writes(nb).encode("utf-8")) - before
    assert grown <= len(payload_json(matmul).encode("utf-8")), grown
    # the static fallback reads the packed form too
    assert static_html(pack_payload(matmul)) == static_html(matmul)
    json.loads(nbformat.writes(nb))


def _one_shot(payload: dict[str, Any], compress: bool | None) -> Any:
    """What a page embedded before packing went key by key: the whole body's JSON, gzipped
    in one call where it is packed."""
    body = payload_json({k: v for k, v in payload.items() if k != "notes"})
    if compress is False or (compress is None and len(body) <= AUTO_THRESHOLD):
        return payload
    return pack_payload(payload, body_json=body)


@pytest.mark.parametrize("compress", [None, True, False])
@pytest.mark.parametrize("size", ["small", "at-threshold", "over-threshold", "whole"])
def test_packing_key_by_key_gives_the_bytes_of_one_shot(
    matmul: dict[str, Any], compress: bool | None, size: str
) -> None:
    payload = dict(matmul)
    if size != "whole":  # a body of about, or exactly, the threshold's length
        payload.update(lines=[], snapshots=[], dumps=[], srcmap=[], messages=[])
        room = AUTO_THRESHOLD - len(
            payload_json({k: v for k, v in payload.items() if k != "notes"})
        )
        filler = {"small": 10, "at-threshold": room, "over-threshold": room + 1}[size]
        payload["lines"] = ["é" * (filler - 2)]  # characters count, not bytes
    got = auto_pack(payload, compress)
    assert embed_json(got) == embed_json(_one_shot(payload, compress))
    assert is_packed(got) == (
        compress or (compress is None and size in ("over-threshold", "whole"))
    )


def test_a_value_in_the_making_is_taken_after_the_rest_is_packed(
    matmul: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(forked, "idle_cpus", lambda: 1)
    monkeypatch.setattr(deflate, "PART_BYTES", 16 << 10)  # the matmul payload in many parts
    made: list[str] = []

    class Findings(forked.Pending):
        def result(self) -> Any:
            made.append("findings")
            return super().result()

    real_start = deflate.PartedGzip._start

    def start(self: deflate.PartedGzip, part: bytes, *, last: bool) -> None:
        made.append("packed")
        real_start(self, part, last=last)

    monkeypatch.setattr(deflate.PartedGzip, "_start", start)
    with Findings(lambda: matmul["sync_check"]).start() as pending:
        page = embed_json(auto_pack({**matmul, "sync_check": pending}, None))
    assert made.index("findings") > made.index("packed")  # the rest was packed first
    assert page == embed_json(_one_shot(matmul, None))
