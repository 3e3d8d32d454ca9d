"""What reading a log and the text commands load: not the modules that cost start-up and that
they never use (`dataclasses` pulls in `inspect`, `orjson` pulls in `dataclasses`, `uuid` and
`datetime`, `hashlib` loads OpenSSL). Each is measured in a fresh interpreter, as a user's
command starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data"
LOG = DATA / "ascend" / "failed.log"
HEAVY = ("dataclasses", "orjson", "hashlib", "typing_extensions")
# The reader alone (a script's `open_timeline`) does without `typing` too: its names are
# for the type checker only (`TYPE_CHECKING = False`, which mypy reads as True).
READER_SPARES = (*HEAVY, "typing")


def _loaded(code: str, modules: tuple[str, ...] = HEAVY) -> list[str]:
    probe = f"{code}\nimport sys; print(' '.join(m for m in {modules!r} if m in sys.modules))"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    return out.stdout.split()


def test_reading_a_log_loads_none_of_them() -> None:
    code = f"from ascend_ir_lab.dumps import open_timeline; open_timeline({str(LOG)!r}).change_states()"
    assert _loaded(code, READER_SPARES) == []


@pytest.mark.parametrize(
    "argv",
    [["inspect", str(LOG)], ["find", str(LOG), "func.func"], ["search", str(LOG), "error"]],
)
def test_a_text_command_loads_none_of_them(argv: list[str]) -> None:
    # the CLI ends with os._exit: the probe runs from an exit function it registers first
    code = (
        "import atexit, sys\n"
        f"HEAVY = {HEAVY!r}\n"
        "atexit.register(lambda: sys.stderr.write('LOADED ' + ' '.join("
        "m for m in HEAVY if m in sys.modules) + '\\n'))\n"
        "from ascend_ir_lab.cli import main\n"
        f"main({argv!r})"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    line = next(x for x in out.stderr.splitlines() if x.startswith("LOADED"))
    assert line.split()[1:] == [], out.stderr
    assert out.stdout  # the command did its work
