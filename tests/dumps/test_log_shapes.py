"""Logs as users hand them over, each as a tiny log between two ordinary dumps: every line
carrying a CI timestamp or a launcher's stream tag, headers glued after other output,
colour escapes, progress bars, NUL bytes, other encodings, truncation, a log appended to,
compressed files. The Dumps' IR is what the compiler printed; their offsets are into the
file as written."""

from __future__ import annotations

import bz2
import gzip
import lzma
import random
import re
from pathlib import Path

import pytest

from ascend_ir_lab.dumps import packed, read_log
from ascend_ir_lab.errors import InputError

IR_A = b"module {\n  func.func @f() {\n    return\n  }\n}\n"
IR_B = b"module {\n  func.func @f() {\n    %c1 = arith.constant 1 : i32\n    return\n  }\n}\n"
A = b"// -----// IR Dump After CSE (cse) //----- //\n" + IR_A + b"\n"
B = b"// -----// IR Dump After Canonicalizer (canonicalize) //----- //\n" + IR_B + b"\n"
C = b"// -----// IR Dump After SCCP (sccp) //----- //\n" + IR_B + b"\n"


def _read(tmp_path: Path, data: bytes, name: str = "shape.log"):  # type: ignore[no-untyped-def]
    path = tmp_path / name
    path.write_bytes(data)
    return read_log(path)


def _stamped(lines: list[bytes], stamp: str) -> bytes:
    """Each line after a prefix whose digits change from line to line, as a clock's do."""
    out = []
    for k, line in enumerate(lines):
        second, fraction = divmod(k * 137, 1000)
        out.append(stamp.format(s=second % 60, f=fraction, k=k).encode() + line)
    return b"".join(out)


# (name, the prefix of line k: {s} seconds, {f} milliseconds, {k} the line's number)
PREFIXES = [
    ("GitHub Actions", "2026-12-01T10:00:{s:02d}.{f:03d}4567Z "),
    ("GitLab FF_TIMESTAMPS", "2026-12-01T10:00:{s:02d}.{f:03d}123Z 00O "),
    ("Jenkins timestamper", "[2026-12-01T10:00:{s:02d}.{f:03d}Z] "),
    ("bracketed date and time", "[2026-12-01 10:00:{s:02d}] "),
    ("time of day", "10:00:{s:02d}.{f:03d} "),
    ("python logging format", "2026-12-01 10:00:{s:02d},{f:03d} - INFO - "),
    ("journalctl", "Dec 01 10:00:{s:02d} node1 python3[4242]: "),
    ("elapsed seconds", "[{k:>5d}.{f:03d}] "),
    ("torchrun rank", "[rank0]:"),
    ("torchrun role", "[default0]:"),
    ("mpirun --tag-output", "[1,0]<stderr>:"),
    ("docker compose", "compiler-1  | "),
    ("kubectl logs --prefix", "[pod/compile-7f9c/main] "),
    ("coloured docker compose", "\x1b[36mcompiler-1  |\x1b[0m "),
    ("Buildkite timestamp escapes", "\x1b_bk;t=17645832{k:05d}\x07"),
    ("docker logs --timestamps", "2026-12-01T10:00:{s:02d}.{f:03d}456789Z "),
]  # fmt: skip


@pytest.mark.parametrize(("name", "stamp"), PREFIXES, ids=[p[0] for p in PREFIXES])
def test_every_line_prefixed(tmp_path: Path, name: str, stamp: str) -> None:
    data = _stamped((A + B + C).splitlines(keepends=True), stamp)
    tl = _read(tmp_path, data)
    assert [d.label for d in tl.dumps] == ["cse", "canonicalize", "sccp"]
    assert [tl.raw(d) for d in tl.dumps] == [IR_A, IR_B, IR_B]
    assert tl.change_states() == ["changed", "changed", "unchanged"]
    assert tl.snapshot(1) == tl.snapshot(2) != tl.snapshot(0)
    assert not tl.messages and not any(d.truncated for d in tl.dumps)
    assert any("every line carries a prefix" in w for w in tl.warnings)
    # offsets are into the file: a Dump's span starts at its header line's prefix
    lines = data.splitlines(keepends=True)
    starts = [sum(map(len, lines[:k])) for k in (0, 7, 15)]
    assert [d.start for d in tl.dumps] == starts
    assert tl.dumps[-1].end == len(data)
    assert b"IR Dump After SCCP" in data[tl.dumps[2].start : tl.dumps[2].body_start]
    assert tl.logs[0].prefix.strip(" :") != ""
    assert tl.log_bytes(tl.dumps[0].log_id) == data


def test_two_ranks_interleaved_line_by_line(tmp_path: Path) -> None:
    rank0 = (A + B).splitlines(keepends=True)
    rank1 = (A + C).splitlines(keepends=True)
    lines = []
    for k in range(max(len(rank0), len(rank1))):
        lines += [b"[rank0]:" + rank0[k]] if k < len(rank0) else []
        lines += [b"[rank1]:" + rank1[k]] if k < len(rank1) else []
    tl = _read(tmp_path, b"".join(lines))
    got = [(d.stage, d.label, tl.logs[d.log_id].prefix, tl.raw(d)) for d in tl.dumps]
    assert got == [
        ("log-rank0", "cse", "[rank0]:", IR_A), ("log-rank0", "canonicalize", "[rank0]:", IR_B),
        ("log-rank1", "cse", "[rank1]:", IR_A), ("log-rank1", "sccp", "[rank1]:", IR_B),
    ]  # fmt: skip
    assert tl.select("log-rank1:cse") is tl.dumps[2]
    # each rank's states follow that rank's own: rank1's first pass follows nothing
    assert tl.previous(2) is None and tl.previous(3) is tl.dumps[2]
    assert tl.snapshot(0) == tl.snapshot(2) and tl.snapshot(1) == tl.snapshot(3)


def test_gitlab_continuation_lines(tmp_path: Path) -> None:
    # GitLab marks a line the runner wrote in two pieces `00O+`; stderr's lines `00E`
    lines = (A + B).splitlines(keepends=True)
    tags = ["00O", "00O+", "00E", "00O"] * 4
    data = b"".join(
        f"2026-12-01T10:00:0{k % 10}.{k:06d}Z {tags[k]} ".encode() + line
        for k, line in enumerate(lines)
    )
    tl = _read(tmp_path, data)
    assert [tl.raw(d) for d in tl.dumps] == [IR_A, IR_B] and not tl.messages


def test_prefixed_lines_and_plain_lines_of_one_file(tmp_path: Path) -> None:
    # a wrapper's own lines (no prefix) between the lines a launcher tagged
    body = _stamped((A + B).splitlines(keepends=True), "[rank0]:")
    data = b"launching 1 process\n" + body + b"all processes exited\n"
    tl = _read(tmp_path, data)
    assert [tl.raw(d) for d in tl.dumps] == [IR_A, IR_B]
    assert [m.text for m in tl.messages] == ["launching 1 process", "all processes exited"]
    assert [data[m.start : m.end] for m in tl.messages] == [
        b"launching 1 process\n", b"all processes exited\n"
    ]  # fmt: skip


def test_prefixed_dumps_between_plain_dumps_are_a_stage_of_their_own(tmp_path: Path) -> None:
    # a script's own compile prints plain dumps; the one it launched prints `[rank0]:` ones
    ranked = b"".join(b"[rank0]:" + line for line in (C + B).splitlines(keepends=True))
    data = A + ranked + B
    tl = _read(tmp_path, data)
    got = [(d.stage, d.label, tl.raw(d)) for d in tl.dumps]
    assert got == [
        ("log", "cse", IR_A), ("log", "canonicalize", IR_B),
        ("log-rank0", "sccp", IR_B), ("log-rank0", "canonicalize", IR_B),
    ]  # fmt: skip
    assert tl.stages == ["log", "log-rank0"]
    assert tl.select("log-rank0:canonicalize") is tl.dumps[3]
    # each stream's states follow its own: the plain canonicalize follows the plain cse
    assert tl.previous(1) is tl.dumps[0]
    assert tl.previous(2) is None and tl.previous(3) is tl.dumps[2]
    assert [data[d.start : d.body_start] for d in tl.dumps[2:]] == [
        b"[rank0]:" + C.split(b"\n")[0] + b"\n", b"[rank0]:" + B.split(b"\n")[0] + b"\n"
    ]  # fmt: skip


# (name, the bytes between the first ordinary dump and the middle one's header line,
#  the Messages they make as (level, text))
GLUED = [
    ("progress text without a newline", b"compiling kernel... ", [("text", "compiling kernel... ")]),
    ("python logging's first line", b"INFO:root:", [("info", "INFO:root:")]),
    ("progress bar overwritten with \\r", b"  3%|#  |\r 100%|###|\r", [("text", "  3%|#  |\r 100%|###|")]),
    ("NUL bytes of a padded write", b"\0\0\0\0", []),
    ("colour escape before the header", b"\x1b[1;32m", []),
    ("an escape and a carriage return", b"\x1b[2K\r", []),
]  # fmt: skip


@pytest.mark.parametrize(("name", "lead", "messages"), GLUED, ids=[g[0] for g in GLUED])
def test_header_after_other_output_on_its_line(
    tmp_path: Path, name: str, lead: bytes, messages: list[str]
) -> None:
    tl = _read(tmp_path, A + lead + B + C)
    assert [d.label for d in tl.dumps] == ["cse", "canonicalize", "sccp"]
    assert [tl.raw(d) for d in tl.dumps] == [IR_A, IR_B, IR_B]
    assert [(m.level, m.text) for m in tl.messages] == messages
    assert all(m.after == 0 for m in tl.messages)
    seg = tl.logs[0].segments
    data = A + lead + B + C
    assert b"".join(data[s.start : s.end] for s in seg) == data  # lossless


def test_colour_escapes_around_a_header_and_inside_ir(tmp_path: Path) -> None:
    # `script`/`unbuffer` keep what a colouring tool wrote: escapes in IR stay as printed
    coloured = b"\x1b[1m// -----// IR Dump After Canonicalizer (canonicalize) //----- //\x1b[0m\n"
    ir = IR_B.replace(b"arith.constant", b"\x1b[33marith.constant\x1b[0m")
    tl = _read(tmp_path, A + coloured + ir + b"\n" + C)
    assert [d.label for d in tl.dumps] == ["cse", "canonicalize", "sccp"]
    assert tl.raw(1) == ir and not tl.messages
    assert tl.change_states() == ["changed", "changed", "changed"]


@pytest.mark.parametrize(
    ("name", "middle", "utf8"),
    [
        ("invalid UTF-8 in a location", b'return loc("k\xff\xfe.py":3:1)', False),
        ("Latin-1 in a location", b'return loc("caf\xe9.py":3:1)', False),
        ("tabs for indentation", b"\treturn", True),
        ("a NUL byte inside the IR", b"return // \0", True),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_bytes_inside_ir_kept_exactly(tmp_path: Path, name: str, middle: bytes, utf8: bool) -> None:
    body = IR_B.replace(b"    return", b"    " + middle)
    tl = _read(tmp_path, A + B.replace(IR_B, body) + C)
    assert [d.label for d in tl.dumps] == ["cse", "canonicalize", "sccp"]
    assert tl.raw(1) == body and not tl.messages
    # the text shows what is not UTF-8 as U+FFFD; the raw bytes keep it
    assert ("\ufffd" in tl.text(1)) is not utf8
    assert tl.snapshot(1) != tl.snapshot(2)


def test_windows_line_ends_mixed_with_unix_ones(tmp_path: Path) -> None:
    crlf = B.replace(b"\n", b"\r\n")
    tl = _read(tmp_path, A + crlf + C)
    assert [tl.raw(d) for d in tl.dumps] == [IR_A, IR_B.replace(b"\n", b"\r\n"), IR_B]
    assert not tl.messages and not any(d.truncated for d in tl.dumps)


LLVM_A = b"; *** IR Dump After VerifierPass on [module] ***\n; ModuleID = 'm'\ndefine void @f() {\n  ret void\n}\n"
LLVM_B = LLVM_A.replace(b"VerifierPass", b"GlobalDCEPass")


@pytest.mark.parametrize("indent", [b"    ", b"\t", b"  "], ids=["4 blanks", "a tab", "2 blanks"])
@pytest.mark.parametrize("log", [A + B + C, LLVM_A + LLVM_B], ids=["mlir", "llvm"])
@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_every_line_indented(tmp_path: Path, indent: bytes, log: bytes, gz: bool) -> None:
    """A log pasted from Markdown or an issue, or a wrapper that indents what it runs:
    every line indented alike (blank lines empty) is read without its indent, the IR as the
    compiler printed it, not every Dump cut short (or, LLVM IR, a diff)."""
    lines = log.splitlines(keepends=True)
    data = b"Output:\n\n" + b"".join(indent + ln if ln.strip() else ln for ln in lines)
    tl = _read(tmp_path, gzip.compress(data) if gz else data, "shape.log.gz" if gz else "shape.log")
    plain = _read(tmp_path, log, "plain.log")
    assert [(d.label, d.scope, d.holds, tl.raw(d)) for d in tl.dumps] == [
        (d.label, d.scope, d.holds, plain.raw(d)) for d in plain.dumps
    ]
    assert tl.change_states() == plain.change_states()
    assert not any(d.truncated for d in tl.dumps)
    assert [m.text for m in tl.messages] == ["Output:"]
    assert any("every line carries a prefix" in w for w in tl.warnings)


def test_a_header_indented_alone_is_no_prefix(tmp_path: Path) -> None:
    """A header that blanks precede, its IR at column 0 as printed: read as it stands."""
    tl = _read(tmp_path, A + b"  " + B + C)
    assert [tl.raw(d) for d in tl.dumps] == [IR_A, IR_B, IR_B]
    assert not tl.warnings and not tl.messages


def test_a_dump_with_no_ir(tmp_path: Path) -> None:
    empty = b"// -----// IR Dump After Inliner (inline) //----- //\n\n"
    tl = _read(tmp_path, A + empty + C)
    assert [d.label for d in tl.dumps] == ["cse", "inline", "sccp"]
    assert tl.raw(1) == b"" and not tl.messages
    # it shows no state: the next pass follows the last state shown
    assert tl.dumps[1].holds == "no IR" and tl.previous(2) is tl.dumps[0]
    assert tl.change_states() == ["changed", "unknown", "changed"]


def test_log_cut_in_the_middle_of_its_last_dump(tmp_path: Path) -> None:
    cut = B[: B.index(b"    return")]
    tl = _read(tmp_path, A + C + cut)
    assert [d.label for d in tl.dumps] == ["cse", "sccp", "canonicalize"]
    assert tl.dumps[-1].truncated and not tl.dumps[1].truncated
    assert tl.raw(2) == cut[cut.index(b"\n") + 1 :]
    assert any("truncated" in w for w in tl.warnings)


def test_two_compiles_in_one_log(tmp_path: Path) -> None:
    # a log appended to by a second run: its first pass follows nothing of the first run
    d = b"// -----// IR Dump After Inliner (inline) //----- //\n" + IR_B + b"\n"
    run = A + B + C + d
    tl = _read(tmp_path, run + run)
    assert [x.label for x in tl.dumps] == ["cse", "canonicalize", "sccp", "inline"] * 2
    assert tl.previous(4) is None and tl.previous(5) is tl.dumps[4]
    assert tl.change_states()[4] == "changed"
    assert tl.following(3) is None
    assert tl.logs[0].compiles == [4]


def test_a_pipeline_that_repeats_itself_is_one_compile(tmp_path: Path) -> None:
    tl = _read(tmp_path, (A + B) * 4)
    assert tl.logs[0].compiles == []
    assert [tl.previous(k) is tl.dumps[k - 1] for k in range(1, 8)] == [True] * 7


def test_a_50mb_single_line_constant(tmp_path: Path) -> None:
    dense = b"0x" + b"3F800000" * (50 << 17)  # 50 MB of hex on one line
    huge = (
        b"// -----// IR Dump After Canonicalizer (canonicalize) //----- //\n"
        b"module {\n  func.func @f() -> tensor<4xf32> {\n"
        b'    %0 = arith.constant dense<"' + dense + b'"> : tensor<4xf32>\n'
        b"    return %0 : tensor<4xf32>\n  }\n}\n\n"
    )
    tl = _read(tmp_path, A + huge + C)
    assert [d.label for d in tl.dumps] == ["cse", "canonicalize", "sccp"]
    assert len(tl.raw(1)) == len(huge) - huge.index(b"\n") - 2
    assert tl.dumps[1].holds == "builtin.module" and not tl.messages


@pytest.mark.parametrize(
    ("suffix", "pack"),
    [(".gz", gzip.compress), (".xz", lzma.compress), (".bz2", bz2.compress), ("", gzip.compress)],
    ids=["gzip", "xz", "bzip2", "gzip without its suffix"],
)
def test_compressed_logs(tmp_path: Path, suffix: str, pack: object) -> None:
    data = A + B + C
    tl = _read(tmp_path, pack(data), f"shape.log{suffix}")  # type: ignore[operator]
    assert [tl.raw(d) for d in tl.dumps] == [IR_A, IR_B, IR_B]
    assert tl.log_bytes(0) == data and not tl.warnings


def test_truncated_xz_log_is_read_as_far_as_it_goes(tmp_path: Path) -> None:
    packed = lzma.compress(A + B + C * 200)
    tl = _read(tmp_path, packed[: len(packed) // 2], "cut.log.xz")
    assert [d.label for d in tl.dumps][:2] == ["cse", "canonicalize"]
    assert any("ends early" in w for w in tl.warnings)


@pytest.mark.parametrize("suffix", [".xz", ".lzma", ".bz2"])
def test_a_damaged_xz_lzma_or_bzip2_log_is_read_as_far_as_it_goes(
    tmp_path: Path, suffix: str
) -> None:
    pack = {".xz": lzma.compress, ".bz2": lambda data: bz2.compress(data, 1)}.get(
        suffix, lambda data: lzma.compress(data, lzma.FORMAT_ALONE)
    )
    numbers = random.Random(0)
    varied = b"".join(C.replace(b"1 :", b"%d :" % numbers.getrandbits(60)) for _ in range(20000))
    packed = bytearray(pack(A + B + varied))  # 3 MB of text in some 190 kB
    packed[len(packed) // 2 :] = b"\xa5" * (len(packed) - len(packed) // 2)  # damaged, not cut
    tl = _read(tmp_path, bytes(packed), f"damaged.log{suffix}")
    assert [d.label for d in tl.dumps][:2] == ["cse", "canonicalize"]
    assert any("damaged" in w and "read as far as it goes" in w for w in tl.warnings)
    garbage = {".xz": b"\xfd7zXZ\x00", ".lzma": b"\x5d\x00\x00", ".bz2": b"BZh9"}[suffix]
    with pytest.raises(InputError, match=r"damaged .* data \(.*\); read as far as it goes"):
        _read(tmp_path, garbage + b"x" * 64, f"garbage.log{suffix}")


@pytest.mark.parametrize(("suffix", "pack"), [(".xz", lzma.compress), (".bz2", bz2.compress)])
def test_an_xz_or_bzip2_bomb_is_refused_before_it_fills_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str, pack: object
) -> None:
    # the bounds of a zstd log (a large text at most MAX_RATIO times its file), made small
    monkeypatch.setattr(packed, "MAX_FRAME_BYTES", 1 << 20)
    monkeypatch.setattr(packed, "MAX_RATIO", 100)
    bomb = pack(A + bytes(64 << 20))  # type: ignore[operator]
    with pytest.raises(InputError, match=r"bomb\?\); not read"):
        _read(tmp_path, bomb, f"bomb.log{suffix}")
    ordinary = pack(A + B + C * 2000)  # type: ignore[operator]
    assert len(_read(tmp_path, ordinary, f"ok.log{suffix}").dumps) == 2002


def test_a_compression_not_read_says_so(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"lz4-compressed; decompress it"):
        _read(tmp_path, b"\x04\x22\x4d\x18" + bytes(64), "shape.log.lz4")


def test_a_retried_compile_in_a_real_log() -> None:
    # bishengir-compile retries after a UB overflow, printing the whole pipeline again
    from ascend_ir_lab.dumps import open_timeline
    from tests.conftest import ASCEND

    tl = open_timeline(ASCEND / "matmul.ub-overflow.bishengir.log.gz")
    starts = tl.logs[0].compiles
    assert len(starts) == 2
    notes = [m.after for m in tl.messages if m.text.startswith("[NOTE] Ub overflow detected")]
    assert [k - 1 for k in starts] == notes  # each retry starts right after its note
    for k in starts:
        assert tl.dumps[k].label == tl.dumps[0].label and tl.previous(k) is None


def test_a_terminal_session_recorded_by_script(tmp_path: Path) -> None:
    # `script` keeps what the terminal got: `\r\n` line ends, colour escapes, its own banners
    tty = (A + B + C).replace(b"\n", b"\r\n").replace(b"// -----//", b"\x1b[0m// -----//")
    data = (
        b'Script started on 2026-12-01 10:00:00+00:00 [COMMAND="python k.py" TERM="xterm"]\r\n'
        + tty + b'\r\nScript done on 2026-12-01 10:00:09+00:00 [COMMAND_EXIT_CODE="0"]\r\n'
    )  # fmt: skip
    tl = _read(tmp_path, data)
    crlf = [ir.replace(b"\n", b"\r\n") for ir in (IR_A, IR_B, IR_B)]
    assert [tl.raw(d) for d in tl.dumps] == crlf
    assert [m.text.split(" ")[:2] for m in tl.messages] == [
        ["Script", "started"],
        ["Script", "done"],
    ]
    assert tl.change_states() == ["changed", "changed", "unchanged"]


def test_a_pytest_captured_section(tmp_path: Path) -> None:
    # pytest prints captured output after a section rule, the lines as written
    rule = b"----------------------------- Captured stderr call -----------------------------\n"
    tl = _read(tmp_path, b"FAILED test_k.py::test_vadd\n" + rule + A + B + C)
    assert [tl.raw(d) for d in tl.dumps] == [IR_A, IR_B, IR_B]
    assert [m.text for m in tl.messages] == ["FAILED test_k.py::test_vadd", rule.decode().strip()]


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le"], ids=["with a BOM", "without"])
def test_a_utf16_log(tmp_path: Path, codec: str) -> None:
    # PowerShell 5's `python k.py > log.txt` writes UTF-16
    data = (A + B + C).decode().replace("\n", "\r\n").encode(codec)
    tl = _read(tmp_path, data)
    assert [tl.raw(d) for d in tl.dumps] == [
        ir.replace(b"\n", b"\r\n") for ir in (IR_A, IR_B, IR_B)
    ]
    assert any("UTF-16" in w for w in tl.warnings)


def test_log_cut_in_the_middle_of_a_header_line(tmp_path: Path) -> None:
    cut = B[:30]  # `// -----// IR Dump After Canon`
    tl = _read(tmp_path, A + C + cut)
    assert [tl.raw(d) for d in tl.dumps] == [IR_A, IR_B]
    assert [m.text for m in tl.messages] == [cut.decode()]


def test_llvm_header_glued_after_other_output(tmp_path: Path) -> None:
    ir = b"; ModuleID = 'm'\ndefine i32 @sum(i32 %n) {\n  ret i32 %n\n}\n"
    a = b"; *** IR Dump After VerifierPass on [module] ***\n" + ir
    b = b"*** IR Dump After GlobalDCEPass on [module] ***\n" + ir
    tl = _read(tmp_path, a + b"[3/5] linking " + b)
    assert [(d.label, tl.raw(d)) for d in tl.dumps] == [("VerifierPass", ir), ("GlobalDCEPass", ir)]
    assert [m.text for m in tl.messages] == ["[3/5] linking "]
    assert tl.change_states() == ["changed", "unchanged"]


def test_many_ranks_interleaved(tmp_path: Path) -> None:
    # 24 ranks printing the same pipeline, their lines taking turns
    lines = (A + B).splitlines(keepends=True)
    data = b"".join(f"[rank{r}]:".encode() + line for line in lines for r in range(24))
    tl = _read(tmp_path, data)
    assert len(tl.stages) == 24 and len(tl.dumps) == 48
    assert {tl.raw(d) for d in tl.dumps} == {IR_A, IR_B}
    assert tl.change_states() == ["changed", "changed"] * 24


def test_a_prefix_whose_blank_lines_lose_their_trailing_space(tmp_path: Path) -> None:
    # a timestamp before an empty line, the space after it trimmed
    lines = (A + B + C).splitlines(keepends=True)
    stamp = "2026-12-01T10:00:00.{k:07d}Z"
    data = b"".join(
        stamp.format(k=k).encode() + (b" " + line if line.strip() else line)
        for k, line in enumerate(lines)
    )
    tl = _read(tmp_path, data)
    assert [tl.raw(d) for d in tl.dumps] == [IR_A, IR_B, IR_B] and not tl.messages


@pytest.mark.parametrize("stamp", ["", "[rank0]:", "2026-12-01T10:00:{s:02d}.{f:03d}4567Z "])
def test_a_byte_order_mark_before_the_first_line(tmp_path: Path, stamp: str) -> None:
    """A log saved by an editor or PowerShell's `Out-File -Encoding utf8` starts with a
    UTF-8 byte-order mark, before the first line's prefix if lines carry one: it is no
    message and no part of the prefix; the first Dump keeps its IR."""
    data = b"\xef\xbb\xbf" + _stamped((A + B + C).splitlines(keepends=True), stamp)
    tl = _read(tmp_path, data)
    assert [tl.raw(d) for d in tl.dumps] == [IR_A, IR_B, IR_B]
    assert tl.change_states() == ["changed", "changed", "unchanged"]
    assert not tl.messages and not any(d.truncated for d in tl.dumps)
    assert all("\ufeff" not in info.prefix for info in tl.logs)
    assert tl.dumps[0].start == 0


@pytest.mark.parametrize(
    ("name", "shape"),
    [
        ("CR alone everywhere", lambda a, b, c: (a + b + c).replace(b"\n", b"\r")),
        ("CR alone in the middle dump", lambda a, b, c: a + b.replace(b"\n", b"\r") + c),
        ("CRLF, CR and LF", lambda a, b, c: a.replace(b"\n", b"\r\n") + b.replace(b"\n", b"\r") + c),
        ("CR CR LF", lambda a, b, c: (a + b + c).replace(b"\n", b"\r\r\n")),
        ("a CR progress bar before a CR header", lambda a, b, c: (a + b"  3%\r100%\n" + b + c).replace(b"\n", b"\r")),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)  # fmt: skip
def test_lines_that_end_in_a_carriage_return_alone(tmp_path: Path, name: str, shape) -> None:  # type: ignore[no-untyped-def]
    """Old tools and some terminals' captures end lines in `\\r` alone: each is a line end,
    the log one message no more; offsets stay into the file (the same length)."""
    data = shape(A, B, C)
    tl = _read(tmp_path, data)
    assert [d.label for d in tl.dumps] == ["cse", "canonicalize", "sccp"]
    raw = [re.sub(rb"\r+\n?", b"\n", tl.raw(d)) for d in tl.dumps]
    assert raw == [IR_A, IR_B, IR_B]
    assert tl.change_states() == ["changed", "changed", "unchanged"]
    assert not any(d.truncated for d in tl.dumps)
    assert [m.text for m in tl.messages] == (["  3%", "100%"] if "progress" in name else [])
    # `\r\r\n` (a text-mode write of `\r\n`) ends its lines as `\r\n` does
    assert any("carriage return alone" in w for w in tl.warnings) is (b"\r\r\n" not in data)
    assert len(tl.log_bytes(0)) == len(data)
    assert data[tl.dumps[2].start :].startswith(b"// -----// IR Dump After SCCP")


@pytest.mark.parametrize("cut", [1, 4, 7], ids=lambda n: f"{n} bytes")
@pytest.mark.parametrize(
    ("name", "stamp"),
    PREFIXES[:3] + PREFIXES[8:9],
    ids=lambda v: v if isinstance(v, str) and "{" not in v and ":" != v[-1:] else None,
)
def test_a_log_cut_inside_a_prefix_ends_with_the_fragment(tmp_path: Path, name: str, stamp: str, cut: int) -> None:  # fmt: skip
    """A prefixed log cut short inside the prefix of a line: the fragment is the last
    thing of the log, after the last Dump, not before the first."""
    lines = (A + B + C).splitlines(keepends=True)
    data = _stamped([*lines, b"x"], stamp)[: -1 - len(stamp.format(s=0, f=0, k=99)) + cut]
    tl = _read(tmp_path, data)
    assert [d.label for d in tl.dumps] == ["cse", "canonicalize", "sccp"]
    assert [tl.raw(d) for d in tl.dumps] == [IR_A, IR_B, IR_B]
    assert [m.after for m in tl.messages] == [2]
    assert data.endswith(tl.messages[0].text.encode())


@pytest.mark.parametrize(
    "shape",
    [lambda a, b, c: (a + b + c).replace(b"\n", b"\n\r"), lambda a, b, c: a + b.replace(b"\n", b"\n\r") + c],
    ids=["everywhere", "in the middle dump"],
)  # fmt: skip
def test_lines_that_begin_with_a_carriage_return(tmp_path: Path, shape) -> None:  # type: ignore[no-untyped-def]
    """`\\n\\r` line ends (a serial console's capture, some Windows tools): each a line end
    as `\\r\\n` is, not a log of dumps without IR and IR lines as messages."""
    data = shape(A, B, C)
    tl = _read(tmp_path, data)
    assert [d.label for d in tl.dumps] == ["cse", "canonicalize", "sccp"]
    assert [tl.raw(d).replace(b"\r\n", b"\n") for d in tl.dumps] == [IR_A, IR_B, IR_B]
    assert not tl.messages and not any(d.truncated for d in tl.dumps)
    assert any("begin with one" in w for w in tl.warnings)
    assert len(tl.log_bytes(0)) == len(data)
    assert data[tl.dumps[2].start :].startswith(b"// -----// IR Dump After SCCP")


def test_carriage_return_lines_between_the_first_and_last_mib(tmp_path: Path) -> None:
    """A large log whose dumps with `\\r` line ends lie wholly between its first and last
    MiB (a tool's output appended in the middle of a capture): they are found there."""
    ir = IR_A.replace(b"    return\n", b"    return  // " + b"x" * 400 + b"\n")
    pad = (b"// -----// IR Dump After CSE (cse) //----- //\n" + ir + b"\n") * 5000
    data = pad + (B + C).replace(b"\n", b"\r") + pad
    assert len(pad) > 1 << 20
    tl = _read(tmp_path, data)
    assert len(tl.dumps) == 10002
    middle = tl.dumps[5000:5002]
    assert [d.label for d in middle] == ["canonicalize", "sccp"]
    assert [tl.raw(d).replace(b"\r", b"\n") for d in middle] == [IR_B, IR_B]
    assert tl.raw(tl.dumps[4999]) == ir and tl.raw(tl.dumps[5002]) == ir
    assert not tl.messages and any("carriage return alone" in w for w in tl.warnings)


def test_a_truncated_compressed_log_of_carriage_return_lines_says_both(tmp_path: Path) -> None:
    data = gzip.compress((A + B + C).replace(b"\n", b"\r"))[:-30]
    tl = _read(tmp_path, data, "cr.log.gz")
    assert [d.label for d in tl.dumps][:2] == ["cse", "canonicalize"]
    assert any("carriage return alone" in w for w in tl.warnings)
    assert any("ends early" in w for w in tl.warnings)


def test_a_dot_cfg_folder_says_it_holds_no_ir(tmp_path: Path) -> None:
    """`-print-changed=dot-cfg` writes `passes.html` and one `diff_N.pdf` graph per change
    into its `-dot-cfg-dir`: no IR text to read, said in one line, the folder or the page."""
    from ascend_ir_lab.dumps import open_timeline
    from ascend_ir_lab.errors import NoDumpsError

    (tmp_path / "passes.html").write_text(
        '<!doctype html><html><head></head><body>\n  <a href="diff_1.pdf" target="_blank">1. Pass '
        "SimplifyCFGPass on f</a><br/>\n</body></html>\n"
    )
    (tmp_path / "diff_1.pdf").write_bytes(b"%PDF-1.5\n")
    with pytest.raises(InputError, match="dot-cfg output .* no IR text"):
        open_timeline(tmp_path)
    with pytest.raises(NoDumpsError, match="dot-cfg output .* no IR text"):
        open_timeline(tmp_path / "passes.html")
