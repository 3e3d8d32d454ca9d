"""Every read command over every hostile Run: a clear one-line error or a warning (exit 0 or
2), never a traceback, never a byte of the files beside the Run in what it prints or writes.
A precise one: an error that reaches the CLI's last resort (`cannot be read (SomeError: ...)`)
is input no reader foresaw, and fails here."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ascend_ir_lab import cli
from ascend_ir_lab.cli import main
from tests.conftest import Hung
from tests.runs.hostile import HOSTILE, SECRET, make_hostile

COMMANDS = {
    "inspect": ["inspect", "{run}"],
    "show": ["show", "{run}", "last"],
    "diff": ["diff", "{run}", "last"],
    "find": ["find", "{run}", "hivm.hir.vadd"],
    "search": ["search", "{run}", "func"],
    "sync": ["sync", "{run}"],
    "sync --check": ["sync", "--check", "{run}"],
    "source": ["source", "{run}", "3"],
    "ops": ["ops", "{run}"],
    "inspect --json": ["inspect", "--json", "{run}"],
    "html": ["html", "{run}", "-o", "{out}/page.html"],
    "report": ["report", "{run}", "-o", "{out}/bug"],
}


def _written(out: Path) -> Iterator[tuple[str, bytes]]:
    for path in sorted(out.rglob("*")):
        if path.is_file():
            yield str(path), path.read_bytes()
            if path.suffix == ".zip":
                with zipfile.ZipFile(path) as zf:
                    for name in zf.namelist():
                        assert ".." not in name.split("/") and not name.startswith("/"), name
                        yield f"{path}:{name}", zf.read(name)


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("hostile", list(HOSTILE))
def test_command_over_hostile_run(
    hostile: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, deadline: None,
) -> None:  # fmt: skip
    run, secret = make_hostile(tmp_path, hostile)
    before = sorted(p.name for p in secret.rglob("*"))
    out = tmp_path / "out"
    out.mkdir()
    argv = [a.format(run=run, out=out) for a in COMMANDS[command]]
    unforeseen: list[Exception] = []
    monkeypatch.setattr(cli, "_last_resort", lambda args, exc: unforeseen.append(exc) or 2)
    try:
        code = main(argv)
    except Hung:
        pytest.fail(f"{command} hung on the hostile Run {hostile}")
    o, e = capsys.readouterr()
    assert not unforeseen, f"{command} on {hostile} reached the last resort: {unforeseen[0]!r}"
    assert code in (0, 1, 2), (code, e)
    assert "Traceback" not in e and "Traceback" not in o
    if code == 2:
        errors = [line for line in e.splitlines() if ": error: " in line]
        assert len(errors) == 1 and e.rstrip().endswith(errors[0].rstrip()), e
        assert errors[0].startswith(f"ascend-ir-lab {argv[0]}: error: "), e
    assert SECRET not in o and SECRET not in e
    for where, data in _written(out):
        assert SECRET.encode() not in data, f"{where} holds the secret"
    for text in (o, e):
        assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
    assert sorted(p.name for p in secret.rglob("*")) == before  # nothing of theirs touched
    assert run.exists() or run.is_symlink()


@pytest.mark.parametrize(
    ("raised", "line"),
    [(ValueError("odd"), "cannot be read (ValueError: odd)"),
     (RecursionError(), "nested too deeply to read"), (MemoryError(), "too large to read into memory")],
)  # fmt: skip
def test_the_last_resort_is_still_one_line(
    raised: Exception, line: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    def fails(path: str) -> None:
        raise raised

    monkeypatch.setattr("ascend_ir_lab.cli.read.open_source", fails)
    assert main(["inspect", "some.log"]) == 2
    assert capsys.readouterr().err == f"ascend-ir-lab inspect: error: some.log: {line}\n"
