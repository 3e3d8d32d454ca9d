"""A Run is untrusted input: one validating reader, paths confined, a writer that replaces
only its own folders, reports that zip nothing from outside and show text as text."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ascend_ir_lab.dumps import open_timeline
from ascend_ir_lab.errors import InputError
from ascend_ir_lab.export.files import save_html
from ascend_ir_lab.runs import Run, RunWriter, inside, safe_arcname, safe_name
from ascend_ir_lab.safe_text import for_terminal, markdown_text, visible
from ascend_ir_lab.share.report import make_report
from tests.runs.hostile import BASE, SECRET, make_hostile
from tests.toolchains.conftest import needs_ascend

HOST = {"npu_model": None, "versions": {}}


def _zip_texts(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


@pytest.mark.parametrize(
    ("hostile", "field"),
    [("not-utf8", "not UTF-8"), ("nan", "x: nan"), ("infinity", "stages[0].seconds"),
     ("deep", "nested deeper"), ("lone-surrogate", "name:"), ("top-level-list", "JSON object"),
     ("other-format", "format 'someone-else/run@9'"), ("stages-not-list", "stages:")],
)  # fmt: skip
def test_unusable_manifest_is_one_error_naming_the_field(
    hostile: str, field: str, tmp_path: Path
) -> None:
    run, _ = make_hostile(tmp_path, hostile)
    with pytest.raises(InputError) as info:
        Run(run)
    assert field in str(info.value) and "run.json" in str(info.value)
    assert "\n" not in str(info.value)
    with pytest.raises(InputError):  # the Timeline reader uses the same reader
        open_timeline(run)


def test_wrong_fields_are_warnings_and_a_degraded_view(tmp_path: Path) -> None:
    run, _ = make_hostile(tmp_path, "stage-records-wrong")
    r = Run(run)
    assert [s["name"] for s in r.stages] == ["s"]
    stage = r.stages[0]
    assert stage["log"] is None and stage["seconds"] is None and stage["returncode"] is None
    assert stage["command"] == [] and stage["timings"] == {}
    assert any("stages[0]: a stage record needs a name" in w for w in r.warnings)
    run, _ = make_hostile(tmp_path / "b", "fields-wrong")
    r = Run(run)
    assert r.name == "fields-wrong" and r.status == "interrupted" and r.manifest["kernel"] is None
    assert r.manifest["env"] == {} and r.manifest["extra"] == {}
    assert len(open_timeline(run).dumps) > 0  # the rest is usable


def test_records_of_the_wrong_shape_in_status_and_extra_are_warnings_naming_them(
    tmp_path: Path,
) -> None:
    status, _ = make_hostile(tmp_path, "status-code-not-text")
    r = Run(status)
    assert r.status == "interrupted"
    assert any("status: " in w and "not what the format allows" in w for w in r.warnings)
    records, _ = make_hostile(tmp_path / "b", "extra-records-wrong")
    r = Run(records)
    for key in ("recompile", "autotune", "planned_stages"):
        assert key not in r.manifest["extra"]
        assert any(f"extra.{key}: " in w and "left out" in w for w in r.warnings), key
    assert not r.passes_captured  # a record still, with nothing of the wrong shape
    r = Run(make_hostile(tmp_path / "c", "extra-passes-captured-text")[0])
    assert r.passes_captured and any("extra.passes_captured: " in w for w in r.warnings)
    assert open_timeline(status).dumps and open_timeline(records).dumps


def test_times_that_add_up_to_infinity_are_warnings_and_no_time(tmp_path: Path) -> None:
    run, _ = make_hostile(tmp_path, "times-past-years")
    r = Run(run)
    assert r.stages[0]["seconds"] is None and r.stages[0]["timings"] == {}
    assert any("stages[0].timings: " in w for w in r.warnings)
    assert all(s is None for s in open_timeline(run).timings().values())
    assert "Infinity" not in save_html(run, tmp_path / "page.html").read_text()


@pytest.mark.parametrize(
    "hostile",
    ["log-absolute", "log-dotdot", "artifact-dotdot", "source-outside", "log-symlink",
     "artifacts-symlink", "source-symlink", "cache-dir-outside", "captured-from-outside",
     "notes-symlink", "artifact-inside-symlink"],
)  # fmt: skip
def test_nothing_outside_the_run_is_read_or_zipped(hostile: str, tmp_path: Path) -> None:
    run, secret = make_hostile(tmp_path, hostile)
    tl = open_timeline(run)
    for d in tl.dumps:
        assert SECRET not in tl.text(d)
    page = save_html(run, tmp_path / "page.html")
    assert SECRET not in page.read_text()
    report = make_report(run, out=tmp_path / "bug", host=HOST)
    for name, data in _zip_texts(report.zip_path).items():
        assert SECRET.encode() not in data, name
        assert not name.startswith("/") and ".." not in name.split("/")
    assert SECRET not in report.markdown
    assert (secret / "ssh" / "id_rsa").is_file()


@pytest.mark.parametrize(
    ("hostile", "why"),
    [("artifact-zst-bomb", "more text than its seek table says"),
     ("artifact-zst-huge-frame", "a zstd bomb?"), ("artifact-zst-truncated", "no seek table")],
)  # fmt: skip
def test_a_hostile_compressed_artifact_is_one_line_and_nothing_more(
    hostile: str, why: str, tmp_path: Path
) -> None:
    run, _ = make_hostile(tmp_path, hostile)
    tl = open_timeline(run)
    said = [w for w in tl.warnings if "output.mlir.zst" in w]
    assert len(said) == 1 and why in said[0] and "\n" not in said[0]
    assert tl.dumps and all(d.phase != "artifact" for d in tl.dumps)  # the log still reads
    assert max(len(tl.text(d)) for d in tl.dumps) < 1 << 20  # nothing decompressed big
    page = save_html(run, tmp_path / "page.html")
    assert page.is_file()
    done = subprocess.run(
        [sys.executable, "-m", "ascend_ir_lab", "inspect", str(run)],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert sum(why in line for line in done.stderr.splitlines()) == 1


def test_paths_resolve_inside_the_folder(tmp_path: Path) -> None:
    (tmp_path / "run" / "a").mkdir(parents=True)
    (tmp_path / "run" / "out").symlink_to(tmp_path)
    assert inside(tmp_path / "run", "a") == tmp_path / "run" / "a"
    for bad in ("../x", "/etc/passwd", "a/../../x", "out/elsewhere", "", None, 5, "a\0b"):
        assert inside(tmp_path / "run", bad) is None, bad
    assert safe_arcname("logs/../../../../etc/passwd") == "logs/etc/passwd"
    assert safe_arcname("/abs/x") == "abs/x" and safe_arcname("C:/x") == "x"


def test_a_cache_entry_inside_the_run_is_attached_and_named(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(BASE, run)
    (run / "cache" / "KEY").mkdir(parents=True)
    (run / "cache" / "KEY" / "k.ttir").write_text("module {}\n")
    (run / "cache" / "KEY" / "k.json").write_text('{"name": "k"}')
    m = json.loads((run / "run.json").read_text())
    m["extra"]["cache_dir"] = "cache/KEY"
    (run / "run.json").write_text(json.dumps(m))
    report = make_report(run, out=tmp_path / "bug", host=HOST)
    names = set(_zip_texts(report.zip_path))
    assert {"cache/k.ttir", "cache/k.json"} <= names
    assert "cache/KEY" in report.markdown and "2 files" in report.markdown


def test_broken_notes_never_block_a_page_or_a_report(tmp_path: Path) -> None:
    for hostile in ("notes-broken", "notes-wrong", "notes-deep"):
        run, _ = make_hostile(tmp_path / hostile, hostile)
        assert save_html(run, tmp_path / hostile / "p.html").is_file()
        report = make_report(run, out=tmp_path / hostile / "bug", host=HOST)
        assert report.zip_path.is_file()


def test_failed_report_leaves_no_partial_zip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, _ = make_hostile(tmp_path, "log-dotdot")

    def disk_full(*args: object, **kwargs: object) -> str:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("ascend_ir_lab.export.bundle.render_html", disk_full)
    with pytest.raises(OSError, match="No space"):
        make_report(run, out=tmp_path / "bug", host=HOST)
    assert not list(tmp_path.glob("*.zip")) and not list(tmp_path.glob(".*partial"))


def test_report_markdown_shows_names_and_notes_as_text(tmp_path: Path) -> None:
    run, _ = make_hostile(tmp_path, "hostile-text")
    md = make_report(run, out=tmp_path / "bug", host=HOST).markdown
    assert "\x1b" not in md and "\u202e" not in md
    assert "&lt;script&gt;" in md and "<U+202E>" in md
    md = re.sub(r"(`+)[^`]*?\1", "", re.sub(r"(?ms)^(`{3,}).*?^\1", "", md))  # code shows as code
    for raw in ("<img", "<script", "\x07"):
        assert raw not in md, raw
    assert not re.search(r"(?<!\\)\]\(javascript:", md)  # brackets escaped: no link
    kernel = _zip_texts(tmp_path / "bug.zip")["repro/kernel.py"].decode()
    compile_(kernel)


def compile_(source: str) -> None:
    """The reproducer stays valid Python whatever the names held."""
    compile(source, "kernel.py", "exec")


def test_text_helpers() -> None:
    assert visible("a\u202eb\u200bc") == "a<U+202E>b<U+200B>c"
    assert for_terminal("x\x1b[31mred\x1b[0m\x1b]0;t\x07\r\x9b2J\n") == "xred\n"
    assert markdown_text("[a](javascript:x) <b>|") == "\\[a\\](javascript:x) &lt;b&gt;\\|"


def test_default_names_never_leave_the_folder() -> None:
    for name in ("../../x", "/tmp/y/x", "..", "a/../../b", "\u202e"):
        safe = safe_name(name)
        assert "/" not in safe and safe not in ("", ".", "..") and not safe.startswith(".")


def test_out_replaces_only_a_run_of_our_format(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "run.json").write_text('{"format": "mlflow/run", "id": 1}')
    (theirs / "model.bin").write_text("precious")
    with pytest.raises(InputError, match="not a Run folder of ascend-ir-lab/run@1"):
        RunWriter.create("x", {}, theirs)
    assert (theirs / "model.bin").read_text() == "precious"
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(InputError, match="symbolic link"):
        RunWriter.create("x", {}, tmp_path / "link")
    ours = RunWriter.create("a", {}, tmp_path / "ours")
    ours.finish("ok")
    assert Run(RunWriter.create("b", {}, tmp_path / "ours").finish("ok").path).name == "b"


def test_two_builds_of_one_folder_give_one_clear_failure(tmp_path: Path) -> None:
    first = RunWriter.create("a", {}, tmp_path / "r")
    code = (
        "import sys; from ascend_ir_lab.runs import RunWriter\n"
        "try:\n    RunWriter.create('b', {}, sys.argv[1])\n"
        "except Exception as e:\n    print(e); sys.exit(3)\n"
    )
    other = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "r")],
        capture_output=True, text=True, timeout=60, env={**os.environ},
    )  # fmt: skip
    assert other.returncode == 3 and "another build is writing this Run folder" in other.stdout
    assert Run(first.finish("ok").path).name == "a"  # the first build's folder, whole
    assert RunWriter.create("c", {}, tmp_path / "r").finish("ok").name == "c"
    assert not list(tmp_path.glob(".*.lock"))


def test_a_build_left_unfinished_in_this_process_does_not_block_the_next(tmp_path: Path) -> None:
    left = RunWriter.create("a", {}, tmp_path / "r")  # as after an exception in a notebook cell
    again = RunWriter.create("b", {}, tmp_path / "r")
    assert again.finish("ok").name == "b" and left.path == again.path
    assert not list(tmp_path.glob(".*.lock"))


def test_pages_made_in_python_show_bidi_controls(tmp_path: Path) -> None:
    from ascend_ir_lab.export.files import payload_of
    from ascend_ir_lab.export.html import render_html, static_html

    run, _ = make_hostile(tmp_path, "hostile-text")
    payload = payload_of(run)
    assert "\u202e" in payload["title"]  # the payload keeps the text as it is
    fallback = static_html(payload)
    page = render_html(payload, title=payload["title"])
    assert "\u202e" not in fallback and "&lt;U+202E&gt;" in fallback
    assert "<title>&lt;U+202E&gt;evil" in page and "<img" not in fallback


@needs_ascend
def test_compile_out_never_removes_a_folder_of_someone_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ascend_ir_lab.cli import main

    theirs = tmp_path / "experiment"
    theirs.mkdir()
    (theirs / "run.json").write_text('{"format": "mlflow/run", "id": 1}')
    (theirs / "weights.bin").write_bytes(b"\x00precious")
    kernel = Path(__file__).resolve().parents[1] / "kernels" / "vadd.py"
    assert main(["compile", str(kernel), "-o", str(theirs)]) == 2
    err = capsys.readouterr().err
    assert "not a Run folder of ascend-ir-lab/run@1 (nothing was removed)" in err
    assert sorted(p.name for p in theirs.iterdir()) == ["run.json", "weights.bin"]
