"""The command line's own process ends as soon as its output is written, without tearing the
interpreter down, and yet as any exit would: output flushed, exit handlers run, a thread still
running waited for, the exit code kept."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import ASCEND

LOG = ASCEND / "vadd.adapter.log"

_AS_THE_CONSOLE_SCRIPT = """
import atexit, sys, threading, time
atexit.register(lambda: print("exit handler ran", file=sys.stderr))
mark = sys.argv[2]
if sys.argv[1] == "thread":
    def late():
        time.sleep(0.5)
        open(mark, "w").write("the thread finished")
    threading.Thread(target=late).start()
sys.argv = ["ascend-ir-lab", *sys.argv[3:]]
from ascend_ir_lab.cli import main
main()
print("not reached", file=sys.stderr)
"""


def _run(
    *words: str, thread: bool = False, mark: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _AS_THE_CONSOLE_SCRIPT, "thread" if thread else "-",
         str(mark), *words],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_output_is_flushed_and_exit_handlers_run() -> None:
    done = _run("inspect", str(LOG))
    assert done.returncode == 0
    plain = subprocess.run(
        [sys.executable, "-m", "ascend_ir_lab", "inspect", str(LOG)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert done.stdout == plain.stdout and done.stdout.count("\n") > 5
    assert done.stderr == "exit handler ran\n"  # and main() did not return


def test_the_exit_code_is_kept() -> None:
    done = _run("show", str(LOG), "no-such-pass")
    assert done.returncode == 2
    assert "error" in done.stderr and done.stderr.endswith("exit handler ran\n")


def test_a_thread_still_running_is_waited_for(tmp_path: Path) -> None:
    mark = tmp_path / "mark"
    done = _run("inspect", str(LOG), thread=True, mark=mark)
    assert done.returncode == 0
    assert mark.read_text() == "the thread finished"
