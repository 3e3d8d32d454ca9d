"""Reading real logs: every dump found, scopes right, messages kept, byte-for-byte lossless."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ascend_ir_lab.dumps import open_timeline, read_log
from ascend_ir_lab.errors import InputError, NoDumpsError
from tests.conftest import ASCEND, fixture_bytes, real_logs

# (an MLIR header glued to output before it on its line, stdout flushed in blocks, too)
HEADER_LINE = re.compile(rb"// -----// .*IR Dump|^(?:; \*\*\* IR Dump|(?:# )?\*\*\* IR Dump)", re.M)
# LLVM's -print-changed banners name a pass that printed no IR: they are messages, not Dumps.
BANNER_LINE = re.compile(
    rb"^\*\*\* IR Dump After .* (?:omitted because no change|filtered out) \*\*\*$", re.M
)


@pytest.mark.parametrize("path", real_logs(), ids=lambda p: p.name)
def test_every_real_log_round_trips_and_finds_every_header(path: Path) -> None:
    data = fixture_bytes(path)
    tl = read_log(path)
    assert len(tl.dumps) == len(HEADER_LINE.findall(data)) - len(BANNER_LINE.findall(data))
    for log_id, info in enumerate(tl.logs):
        whole = tl.log_bytes(log_id)
        assert b"".join(whole[s.start : s.end] for s in info.segments) == whole
    assert [d.index for d in tl.dumps] == list(range(len(tl.dumps)))


def test_bishengir_after_all_scopes_and_messages() -> None:
    tl = read_log(ASCEND / "vadd.bishengir.log.gz")
    assert len(tl.dumps) == 254
    scopes = {d.scope for d in tl.dumps}
    assert scopes == {
        "builtin.module",
        "func.func @vadd",
        "func.func @vadd_infer_task_type_function",
    }
    assert tl.dumps[0].arg == "canonicalize-module" and tl.dumps[0].phase == "after"
    texts = [m.text for m in tl.messages]
    assert "[ERROR] Cannot find hivmc under $PATH " in texts
    assert texts[-1] == "[ERROR] Failed to run BiShengIR pipeline"
    assert tl.messages[-1].after == 253 and tl.messages[-1].level == "error"
    assert tl.messages[0].after == -1  # printed before the first dump
    assert not any(d.truncated for d in tl.dumps)
    assert all(tl.text(d).rstrip().endswith("}") for d in tl.dumps)


def test_module_scope_header_names_the_pass_scope_but_text_holds_the_module() -> None:
    tl = read_log(ASCEND / "vadd.bishengir.module-scope.log.gz")
    d = tl.select("erase-symbol")
    assert d.scope == "func.func @vadd"
    assert d.holds == "builtin.module"
    assert tl.text(d).startswith("module")


def test_tree_dir_reads_in_execution_order_like_the_log() -> None:
    tree = open_timeline(ASCEND / "vadd.bishengir.tree")
    log = read_log(ASCEND / "vadd.bishengir.log.gz")
    assert len(tree.dumps) == len(log.dumps)
    assert [d.arg for d in tree.dumps if d.scope == "builtin.module"] == [
        d.arg for d in log.dumps if d.scope == "builtin.module"
    ]
    assert sorted(d.arg for d in tree.dumps) == sorted(d.arg for d in log.dumps)


def test_failed_pass_dumps_are_flagged_and_diagnostics_kept() -> None:
    tl = read_log(ASCEND / "failed.log")
    failed = [d for d in tl.dumps if d.phase == "failed"]
    assert [d.arg for d in failed] == ["hivm-plan-memory"] * 3
    assert any("ub overflow" in m.text and m.level == "error" for m in tl.messages)
    assert any(m.text.startswith("[NOTE] Ub overflow detected") for m in tl.messages)


def test_result_printed_after_a_function_passs_last_dump_is_no_ir_of_it() -> None:
    """bishengir-opt with no `-o`: the result (a module) follows the last Dump, a function
    pass's, after one blank line (a module's Dump ends with two)."""
    tl = read_log(ASCEND / "vadd.bishengir-opt.stdout.log")
    last = tl.dumps[-1]
    assert (last.arg, last.holds) == ("canonicalize", "func.func @vadd")
    assert tl.text(last).startswith("func.func @vadd(") and tl.text(last).endswith("\n}\n")
    assert "module {" not in tl.text(last)
    after = [m.text for m in tl.messages if m.after == last.index]
    assert after[0] == "module {" and after[-1] == "}"


def test_result_printed_between_two_compiles_of_one_log_is_no_ir(tmp_path: Path) -> None:
    """The same log appended twice (`>>`): the first compile's result, printed after its last
    Dump, is text of that compile, as the log's last is; each last Dump holds its function."""
    data = fixture_bytes(ASCEND / "vadd.bishengir-opt.stdout.log")
    (tmp_path / "twice.log").write_bytes(data + data)
    tl = read_log(tmp_path / "twice.log")
    assert tl.logs[0].compiles == [3]
    once = read_log(ASCEND / "vadd.bishengir-opt.stdout.log")
    assert [tl.text(d) for d in tl.dumps] == [once.text(d) for d in once.dumps] * 2
    assert tl.change_states() == once.change_states() * 2
    assert [m.text for m in tl.messages] == [m.text for m in once.messages] * 2
    assert [m.after for m in tl.messages if m.text == "module {"] == [2, 5]


def test_results_flushed_between_dumps_are_no_ir_and_no_line_prefix() -> None:
    """`--split-input-file` with no `-o`: stdout (each chunk's result) is flushed in blocks
    between the Dumps on stderr, a block's last line cut short and glued to a header. That
    indented cut line is no prefix the log's lines carry, and each Dump is its function."""
    tl = read_log(ASCEND / "split4.bishengir-opt.stdout.log")
    assert tl.warnings == []
    assert [d.holds for d in tl.dumps] == ["func.func @vadd", "func.func @softmax"] * 2
    assert not any(d.truncated for d in tl.dumps)
    texts = [tl.text(d) for d in tl.dumps]
    assert all(t.startswith("func.func @") and t.endswith("\n}\n") for t in texts)
    assert all("module {" not in t and "// -----" not in t for t in texts)
    assert texts[0] == texts[2] and texts[1] == texts[3]  # the same kernels, read the same
    assert sum(m.text == "// -----" for m in tl.messages) == 4


def test_before_only_triton_log_and_traceback_is_kept_as_messages() -> None:
    tl = read_log(ASCEND / "vadd.ttir-passes.log")
    assert {d.phase for d in tl.dumps} == {"before"}
    assert any(m.text.startswith("Traceback") for m in tl.messages)
    # the change of pass i is Before(i+1) vs Before(i) of the same scope
    first = tl.dumps[0]
    old, new = tl.change(first)
    assert old is first and new is not None and new.index > first.index


def test_cache_folder_is_a_coarse_stage_timeline() -> None:
    folder = next((ASCEND / "cache").iterdir())
    tl = open_timeline(folder)
    assert [d.stage for d in tl.dumps] == ["ttir", "adapter"]
    assert {d.phase for d in tl.dumps} == {"artifact"}
    assert tl.dumps[0].scope == "builtin.module"


def test_truncated_last_dump_opens_with_a_warning(tmp_path: Path) -> None:
    data = fixture_bytes(ASCEND / "vadd.bishengir.log.gz")
    last = data.rfind(b"// -----// IR Dump")
    cut = tmp_path / "cut.log"
    cut.write_bytes(data[: last + 400])
    tl = read_log(cut)
    assert len(tl.dumps) == 254
    assert tl.dumps[-1].truncated
    assert not any(d.truncated for d in tl.dumps[:-1])
    assert any("truncated" in w for w in tl.warnings)


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "empty"), (b"\x7fELF\x00\x00binary", "binary"), (b"hello\nworld\n", "no IR dumps")],
)
def test_bad_input_has_a_clear_error(tmp_path: Path, content: bytes, message: str) -> None:
    p = tmp_path / "bad.log"
    p.write_bytes(content)
    with pytest.raises(NoDumpsError, match=message):
        read_log(p)


def test_missing_path_and_unknown_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        open_timeline(tmp_path / "nope.log")
    with pytest.raises(InputError, match="not a Run folder"):
        open_timeline(tmp_path)


def test_plain_ir_file_opens_as_one_artifact_dump() -> None:
    tl = open_timeline(ASCEND / "vadd.ttadapter")
    assert len(tl.dumps) == 1 and tl.dumps[0].phase == "artifact"
    assert tl.dumps[0].stage == "adapter"


def test_snapshots_are_stored_once() -> None:
    tl = read_log(ASCEND / "vadd.bishengir.log.gz")
    assert tl.snapshot_count() < len(tl.dumps) / 3
    same = [d for d in tl.dumps if not tl.changed(d)]
    assert all(tl.snapshot(d) == tl.snapshot(tl.previous(d)) for d in same)  # type: ignore[arg-type]


def test_cache_root_names_its_kernel_folders(tmp_path: Path) -> None:
    import shutil

    shutil.copytree(ASCEND / "cache", tmp_path / "cache")
    with pytest.raises(InputError, match="cache or dump root with 1 kernel folders; open one"):
        open_timeline(tmp_path / "cache")


def test_crlf_log_reads_the_same(tmp_path: Path) -> None:
    data = fixture_bytes(ASCEND / "vadd.bishengir.log.gz")
    crlf = tmp_path / "crlf.log"
    crlf.write_bytes(data.replace(b"\n", b"\r\n"))
    a, b = read_log(ASCEND / "vadd.bishengir.log.gz"), read_log(crlf)
    assert [(d.arg, d.scope, d.truncated) for d in a.dumps] == [
        (d.arg, d.scope, d.truncated) for d in b.dumps
    ]
    assert a.changed_flags() == b.changed_flags()
    assert [m.text for m in a.messages] == [m.text.rstrip("\r") for m in b.messages]


def test_equal_snapshot_ids_mean_equal_bytes_even_when_the_crc_collides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A stand-in CRC that collides on everything: identity must still follow the bytes.
    import ascend_ir_lab.dumps.snapshots as snapshots

    monkeypatch.setattr(snapshots.zlib, "crc32", lambda _data: 7)
    body = "module {{\n  func.func @f() {{\n    %0 = arith.constant {} : i32\n  }}\n}}\n"
    log = tmp_path / "collide.log"
    log.write_text(
        "".join(
            f"// -----// IR Dump After P{i} (p{i}) //----- //\n{body.format(v)}\n"
            for i, v in enumerate((11, 22, 11))
        )
    )
    tl = open_timeline(log)
    ids = [tl.snapshot(d) for d in tl.dumps]
    assert ids[0] == ids[2] and ids[0] != ids[1]
    assert tl.snapshot_count() == 2
