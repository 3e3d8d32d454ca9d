"""`capture` on a host with no NPU: the user's Python command runs under the virtual NPU.

`capture_offline(["python", "script.py", ...], folder)` starts the same Python with this
module as its main (`python -m ascend_ir_lab.toolchains.ascend.offline_script SETTINGS -- script.py
...`); there the script runs as `python script.py` would run it (`__main__`, its argv, its
folder first on sys.path; `-m pytest ...` and `-c CODE` too) inside `virtual_npu()` and
`intercept_launches()`: each launch is compiled offline into a Run in `folder`, and with
`interpret` it also runs in Triton's CPU interpreter, so the script's own checks see real
results. The child writes what happened to `folder/capture.json`; the parent reads it back.
"""

from __future__ import annotations

import json
import os
import re
import runpy
import signal
import subprocess
import sys
import traceback
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ascend_ir_lab.errors import CompilerError, InputError
from ascend_ir_lab.toolchains.ascend.npu_host import (
    invocation_run,
    invocations,
    wrapper_env,
    write_wrapper,
)
from ascend_ir_lab.toolchains.common.env import patched_environ, tool_env
from ascend_ir_lab.toolchains.common.outcome import missing_module_hint
from ascend_ir_lab.toolchains.common.process import end_with_parent
from ascend_ir_lab.toolchains.common.run import Run

__all__ = ["OfflineCapture", "capture_offline", "main"]

RESULT = "capture.json"
STOP_GRACE = 30.0  # seconds a stopped script has to end before it is killed
_PYTHON = re.compile(r"python[0-9.]*(\.exe)?")
_TWO_PART = ("-W", "-X")  # interpreter options that take a value


@dataclass
class OfflineCapture:
    """What a command did under the virtual NPU."""

    runs: list[Run]
    failures: list[str] = field(default_factory=list)
    returncode: int = 0  # the script's own exit status
    launches: int = 0
    summary: str = ""
    stopped: str = ""  # why the script was stopped before its end, "" when it was not


def split_python(command: Sequence[str]) -> tuple[str, list[str], list[str]]:
    """(interpreter, its options, `script.py args` / `-m mod args` / `-c code args`)."""
    if not command or not _PYTHON.fullmatch(Path(command[0]).name):
        shown = " ".join(command) or "(nothing)"
        raise InputError(
            f"{shown}: with no NPU, capture runs Python itself under the virtual NPU; give "
            "`-- python script.py ...` or `-- python -m pytest ...` (or --no-virtual-npu)"
        )
    rest, options = list(command[1:]), []
    while rest and rest[0].startswith("-") and rest[0] not in ("-m", "-c", "-"):
        options.append(rest.pop(0))
        if options[-1] in _TWO_PART and rest:
            options.append(rest.pop(0))
    if not rest or rest[0] == "-" or (rest[0] in ("-m", "-c") and len(rest) < 2):
        raise InputError(f"{' '.join(command)}: name a script, -m MODULE or -c CODE to run")
    return command[0], options, rest


def capture_offline(
    command: Sequence[str],
    folder: str | os.PathLike[str],
    *,
    target: str = "Ascend910B3",
    interpret: bool = True,
    timeout: float | None = None,
) -> OfflineCapture:
    """Run `command` (a Python command) under the virtual NPU; one Run per kernel compiled,
    in `folder`. The script's output goes where this process's output goes. With `timeout`
    (seconds) it is stopped after that long; by default it runs as long as it would alone."""
    python, options, rest = split_python(command)
    folder = Path(folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / RESULT).unlink(missing_ok=True)
    # bishengir-compile calls the script makes itself are recorded as on an NPU host
    wrapper = write_wrapper(folder / "capture")
    settings = folder / "settings.json"
    settings.write_text(
        json.dumps(
            {
                "target": target,
                "interpret": interpret,
                "wrapper": str(wrapper),
                "parent": os.getpid(),
            }
        )
    )
    root = str(Path(__file__).resolve().parents[3])  # the folder that holds ascend_ir_lab/
    site = str(_child_site(folder / "capture"))  # the Pythons the script starts: captured too
    path = os.pathsep.join(p for p in (site, root, os.environ.get("PYTHONPATH", "")) if p)
    env = tool_env({"PYTHONPATH": path, "PATH": wrapper_env(wrapper)["PATH"]})
    child = [python, *options, "-m", __name__, str(settings), "--", *rest]
    try:
        proc = subprocess.Popen(child, env=env)
    except FileNotFoundError:
        raise InputError(f"{python}: no such program") from None
    code, stopped = _wait(proc, timeout)
    try:
        result = _read_result(folder, command, code)
    except CompilerError:
        if not stopped:
            raise
        # stopped before it could say which Runs it made (still starting, or killed)
        result = OfflineCapture(runs=[])
    result.stopped = stopped
    return result


def _wait(proc: subprocess.Popen[bytes], timeout: float | None) -> tuple[int, str]:
    """The script's exit status, and why it was stopped ("" when it ended by itself). Past
    `timeout`, or on Ctrl-C, the script gets SIGINT as a terminal would send it: it ends as
    an interrupted script does and the Runs made so far are kept; a script that ignores it
    is killed after STOP_GRACE seconds."""
    try:
        return proc.wait(timeout=timeout), ""
    except subprocess.TimeoutExpired:
        stopped = f"stopped after {timeout:.0f} s (--timeout)"
        proc.send_signal(signal.SIGINT)
    except KeyboardInterrupt:
        stopped = "interrupted"  # the terminal sent the script the same SIGINT
    try:
        return proc.wait(timeout=STOP_GRACE), stopped
    except (subprocess.TimeoutExpired, KeyboardInterrupt):
        proc.kill()
        return proc.wait(), f"{stopped}; killed"


def _read_result(folder: Path, command: Sequence[str], code: int) -> OfflineCapture:
    try:
        data = json.loads((folder / RESULT).read_text())
    except (OSError, ValueError):
        raise CompilerError(
            command, code, "the script ended before the capture could be written", stage="script"
        ) from None
    children = _children(folder)
    runs = []
    for name in [*data.get("runs", []), *(n for c in children for n in c.get("runs", []))]:
        path = (folder / str(name)).resolve()
        if path.parent == folder and path.is_dir():  # only Run folders this capture made
            runs.append(Run(path))
    for k, call in enumerate(invocations(folder / "capture")):
        runs.append(
            invocation_run(call, name=f"npu-compile-{k + 1}", out=folder / f"compile-{k + 1}")
        )
    return OfflineCapture(
        runs=runs,
        failures=[str(f) for d in (data, *children) for f in d.get("failures", [])],
        returncode=int(data.get("returncode", code)),
        launches=sum(int(d.get("launches", 0)) for d in (data, *children)),
        summary=str(data.get("summary", "")),
    )


def _children(folder: Path) -> list[dict[str, Any]]:
    """What each Python the script started wrote (`child_capture`), in the order they
    ended; one that cannot be read is left out."""
    found = []
    for path in sorted(folder.glob(CHILD_RESULT.format(pid="*")), key=_mtime):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            found.append(data)
    return found


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


# -- the Pythons the script starts: `subprocess.run([sys.executable, ...])`, pytest-xdist
# workers, multiprocessing's spawned processes -------------------------------------------------

CHILD_SETTINGS = "ASCEND_IR_LAB_CAPTURE"  # set for the script's own children only
CHILD_RESULT = "capture-child-{pid}.json"
_CHILD_SITE = '''"""Written by ascend-ir-lab capture: a Python started by the captured script runs under
the same virtual NPU, its launches compiled into the same folder; then the sitecustomize this
one stands before, if any, runs as Python would have run it."""
import os, sys
if os.environ.get("ASCEND_IR_LAB_CAPTURE"):
    try:
        from ascend_ir_lab.toolchains.ascend.offline_script import child_capture
        child_capture(os.environ["ASCEND_IR_LAB_CAPTURE"])
    except Exception as exc:  # this Python still runs, as it would have without capture
        sys.stderr.write("[ascend-ir-lab] this Python runs without the virtual NPU: "
                         f"{{type(exc).__name__}}: {{exc}}\\n")
def _next():
    import importlib
    here = os.path.dirname(os.path.abspath(__file__))
    saved = sys.path[:]
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    me = sys.modules.pop("sitecustomize", None)
    try:
        importlib.import_module("sitecustomize")
    except ImportError as exc:
        if exc.name != "sitecustomize":
            raise
    finally:
        sys.path[:] = saved
        sys.modules["sitecustomize"] = me  # what site's own import statement looks up
_next()
'''


def _child_site(folder: Path) -> Path:
    """A folder holding the sitecustomize that captures the script's own Pythons."""
    site = folder / "python"
    site.mkdir(parents=True, exist_ok=True)
    (site / "sitecustomize.py").write_text(_CHILD_SITE.format())
    return site


_child_stack: Any = None  # a captured child's virtual NPU and launch capture, until it exits


def child_capture(settings_path: str) -> None:
    """In a Python the captured script started (its sitecustomize calls this before
    `__main__` runs): the virtual NPU and the launch capture of the script's, until this
    Python exits; then what it did goes to `capture-child-PID.json` beside the settings."""
    global _child_stack
    import atexit
    from contextlib import ExitStack

    from ascend_ir_lab.toolchains.ascend.launch import intercept_launches
    from ascend_ir_lab.toolchains.ascend.virtual_npu import virtual_npu
    from ascend_ir_lab.toolchains.common.outcome import failures

    if _child_stack is not None:
        return
    path = Path(settings_path)
    settings = json.loads(path.read_text())
    target = str(settings.get("target") or "Ascend910B3")
    interpret = bool(settings.get("interpret"))
    _own_tools_past(str(settings.get("wrapper", "")))
    stack = ExitStack()
    stack.enter_context(virtual_npu(target))
    progress = _Progress()
    capture = stack.enter_context(
        intercept_launches(
            target=target, interpret=interpret, runs_dir=path.parent, progress=progress
        )  # fmt: skip
    )
    _child_stack = stack

    def ended() -> None:
        try:
            stack.close()  # compiles still running finish first
            progress.repeats()
        finally:
            result = {"runs": [run.path.name for run in capture.runs],
                      "failures": failures(capture), "launches": len(capture.launches),
                      "pid": os.getpid(), "argv": list(sys.argv)}  # fmt: skip
            out = path.parent / CHILD_RESULT.format(pid=os.getpid())
            out.write_text(json.dumps(result, indent=2) + "\n")

    atexit.register(ended)


# -- the child: runs inside the user's Python ---------------------------------------------------


def _run_target(rest: list[str]) -> int:
    """Run `script.py args`, `-m mod args` or `-c code args` as Python itself would."""
    try:
        if rest[0] == "-m":
            sys.argv = [rest[1], *rest[2:]]
            sys.path[0] = os.getcwd()
            runpy.run_module(rest[1], run_name="__main__", alter_sys=True)
        elif rest[0] == "-c":
            sys.argv = ["-c", *rest[2:]]
            sys.path[0] = ""
            exec(compile(rest[1], "<string>", "exec"), {"__name__": "__main__"})  # noqa: S102
        else:
            script = Path(rest[0])
            sys.argv = list(rest)
            sys.path[0] = str(script.resolve().parent)
            runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return int(exc.code or 0)
        print(exc.code, file=sys.stderr)
        return 1
    except BaseException as exc:  # noqa: BLE001 - the script's own failure, shown as Python does
        _print_traceback(exc)
        return 1
    return 0


def _print_traceback(exc: BaseException) -> None:
    """The traceback as `python script.py` prints it: the script's frames and its libraries',
    none of this runner's or the virtual NPU's (an NPU-only op ends at the script's line)."""
    ours = str(Path(__file__).resolve().parents[1])  # every toolchain module's frames
    shown = traceback.TracebackException.from_exception(exc)
    frames = [f for f in shown.stack if not f.filename.startswith((ours, "<frozen runpy"))]
    shown.stack = traceback.StackSummary.from_list(frames)
    print("".join(shown.format()), end="", file=sys.stderr)


class _Progress:
    """Compile progress on stderr, one line per event worth a line. A launch note is said
    once: a loop launching the same kernel on the same grid says the same thing each time,
    and how many times is said at the end (`repeats`)."""

    def __init__(self) -> None:
        self.notes: Counter[str] = Counter()

    def __call__(self, event: str, info: dict[str, Any]) -> None:
        if event in ("done", "captured"):  # compiled; a record given every pass after
            run = info["run"]
            text = run.manifest.get("status", {}).get("text", "")
            again = "every pass captured: " if event == "captured" else ""
            _say(f"{run.path.name}: {again}{text}")
        elif event in ("failed", "error"):
            lines = str(info["error"]).splitlines() or [""]
            _say(f"{info.get('kernel', '')}: {type(info['error']).__name__}: {lines[0]}")
        elif event == "launch":
            note = info["launch"].note
            self.notes[note] += 1
            if self.notes[note] == 1:
                _say(note)

    def repeats(self) -> None:
        """Say how often each note said once was met again."""
        for note, count in self.notes.items():
            if count > 1:
                more = count - 1
                _say(f"{more} more launch{'es' if more > 1 else ''} as above: {note}")


def _say(text: str) -> None:
    print(f"[ascend-ir-lab] {text}", file=sys.stderr, flush=True)


class _NoCompiler(Exception):
    """The command's Python has no bishengir-compile (said): the script is not run."""


def _own_tools_past(wrapper: str) -> bool:
    """Our own compiles use the real bishengir-compile, not the recording one on PATH;
    False (said in one line) where the command's Python has none: `python` on PATH is
    another environment than the one ascend-ir-lab and triton-ascend are installed in."""
    from ascend_ir_lab.errors import ToolNotFoundError
    from ascend_ir_lab.toolchains.common.tools import find_tool

    kept = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p != wrapper]
    with patched_environ({"PATH": os.pathsep.join(kept)}):
        try:
            find_tool("bishengir-compile")  # looked up once per process: this answer stays
        except ToolNotFoundError as exc:
            _say(f"{exc}, for {sys.executable}, the Python the command runs (`python` on "
                 "PATH may be another environment than this one: activate it, or name its "
                 "python in the command); the script was not run")  # fmt: skip
            return False
    return True


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m ascend_ir_lab.toolchains.ascend.offline_script SETTINGS -- TARGET...`"""
    from ascend_ir_lab.toolchains.ascend.launch import intercept_launches
    from ascend_ir_lab.toolchains.ascend.virtual_npu import summary_line, virtual_npu
    from ascend_ir_lab.toolchains.common.outcome import failures, missing_triton_modules

    args = list(sys.argv[1:] if argv is None else argv)
    settings_path, rest = Path(args[0]), args[2:]
    settings = json.loads(settings_path.read_text())
    if isinstance(settings.get("parent"), int):  # capture's own process: ended with it
        end_with_parent(settings["parent"])
    folder = settings_path.parent
    interpret = bool(settings.get("interpret"))
    summary = summary_line(interpret)
    _say(summary)
    target = str(settings.get("target") or "Ascend910B3")
    capture, missing, progress = None, [], _Progress()
    # the Pythons the script starts are captured too (their sitecustomize reads this)
    os.environ[CHILD_SETTINGS] = str(settings_path.resolve())
    try:  # Ctrl-C or `--timeout` (SIGINT) before the script runs or after it: still said
        if not _own_tools_past(str(settings.get("wrapper", ""))):
            raise _NoCompiler
        with (
            missing_triton_modules() as missing,
            virtual_npu(target),
            intercept_launches(
                target=target, interpret=interpret, runs_dir=folder, progress=progress
            ) as capture,
        ):
            code = _run_target(rest)
    except KeyboardInterrupt:
        code = 130
    except _NoCompiler:
        code = 2
    progress.repeats()
    # a failed import of what this triton lacks, said once however it surfaced: the
    # script's traceback, pytest's collection error, a failed test
    hint = missing_module_hint(None, missing) if code not in (0, 130) else ""
    if hint:
        _say(hint)
    result = {
        "runs": [run.path.name for run in capture.runs] if capture else [],
        "failures": failures(capture) if capture else [],
        "returncode": code,
        "launches": len(capture.launches) if capture else 0,
        "summary": summary,
    }
    (folder / RESULT).write_text(json.dumps(result, indent=2) + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
