"""Pass-level reproducer: re-run one pass of a module-scope Run on its recorded input.

For a Dump of pass P on function @F, the module before P (the previous Dump of the stage in
log order, or the stage's input file for its first Dump) is kept as `module-before.mlir`, and
`before.mlir` holds the same module with every function but @F left out, so that

    bishengir-opt before.mlir --pass-pipeline='builtin.module(func.func(P{options}))'

(nesting from the Dump's scope; triton-adapter-opt for the adapter stage) re-runs P on @F
alone, as the compiler did. A module-scope pass runs on the whole module. `run_reproducer`
runs it and compares @F (or the module) with what the compiler printed: locations,
whitespace and `#map` numbering ignored, nothing else. `repro.sh` beside the files runs the
same command from a fresh shell.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ascend_ir_lab.analysis.canonical import inline_aliases
from ascend_ir_lab.errors import InputError
from ascend_ir_lab.toolchains.ascend.mlir_split import (
    comparable,
    function_lines,
    only_function,
    scope_symbol,
)
from ascend_ir_lab.toolchains.common.env import tool_env
from ascend_ir_lab.toolchains.common.process import run_logged
from ascend_ir_lab.toolchains.common.run import Run, safe_name
from ascend_ir_lab.toolchains.common.tools import find_tool

STAGE_TOOLS = {"bishengir": "bishengir-opt", "adapter": "triton-adapter-opt"}
_PACKAGE = {"bishengir-opt": "ascendnpu-ir", "triton-adapter-opt": "triton-ascend"}
_ENV_NAME = {"bishengir-opt": "BISHENGIR_OPT", "triton-adapter-opt": "TRITON_ADAPTER_OPT"}


@dataclass
class Reproducer:
    """The files and the command that re-run one pass."""

    run: Run
    dump: Any
    folder: Path
    before: Path
    expected: Path
    output: Path
    pipeline: str
    command: list[str]
    symbol: str | None = None  # the function the pass is re-run on alone (None: module)
    script: Path | None = None
    note: str = ""  # which occurrence a bare pass name took (Timeline.selection_note)

    def shell(self) -> str:
        """The command as one line to paste into a shell."""
        return shlex.join(self.command)


@dataclass
class ReproResult:
    """How the re-run went: exit code, and whether its output matches the recorded Dump."""

    reproducer: Reproducer
    returncode: int
    match: bool
    diff: list[str] = field(default_factory=list)
    log: Path | None = None

    def summary(self) -> str:
        """One line for people."""
        d = self.reproducer.dump
        on = f"@{self.reproducer.symbol} alone" if self.reproducer.symbol else "the whole module"
        what = f"{d.stage}:{d.label} (dump {d.index}, {d.scope})"
        if self.returncode != 0:
            return f"{what}: reproducer failed with exit code {self.returncode} (see {self.log})"
        if self.match:
            return (
                f"{what}: re-run on {on}; output matches the recorded dump "
                "(locations, whitespace and #map numbering ignored)"
            )
        changed = sum(1 for s in self.diff if s[:1] in "+-" and s[:3] not in ("+++", "---"))
        if not changed:
            return f"{what}: re-run on {on}; not compared: {' '.join(self.diff)}"
        return f"{what}: re-run on {on}; output differs from the recorded dump ({changed} lines)"


# A pass argument or an op name: nothing that closes or opens a pipeline of its own.
_NAME = re.compile(r"[A-Za-z_][\w.$-]*")
# Options that name a file, a folder or a tool, at any depth (a nested pipeline's too): the
# pass would read or write that file or run that tool (`snapshot-op-locations{filename=F}`
# writes F, `inject-ir{file-path=F}` reads it, `gpu-module-to-binary{toolkit=D}` runs D's
# tools), and the log a Run's passes come from may be anyone's. An option is such when a
# word of its name (split at `-`/`_`) is one of these.
_OPTION_KEY = re.compile(r"(?<![\w-])([\w-]+)\s*=")
_FILE_WORDS = frozenset(
    "file filename files path paths dir dirs directory toolkit library libraries lib libs "
    "bitcode output out dump l opts".split()
)
_FILE_PASSES = re.compile(
    r"(?<![\w-])(?:snapshot-op-locations|inject-ir|transform-preload-library|"
    r"transform-interpreter|gpu-module-to-binary)(?![\w-])"
)


def _touches_files(spec: str) -> str:
    """The pass or option of `spec` that names a file or a tool, else ""."""
    found = _FILE_PASSES.search(spec)
    if found is not None:
        return found.group()
    for key in _OPTION_KEY.findall(spec):
        if _FILE_WORDS.intersection(re.split(r"[-_]", key.lower())):
            return str(key)
    return ""


def pass_pipeline(dump: Any, command: list[str] | None = None) -> str:
    """`--pass-pipeline` text for the Dump's pass, nested as its scope says.

    Options come from the header's `{...}` or, when the header has none (older MLIR), from
    `--ARG=OPTIONS` in the stage's command (triton-adapter-opt passes are given so). Both
    come from the Run, which may be someone else's: a pass that would touch a file or run a
    tool named there, or a name that is no plain name, is refused (InputError), never run.
    """
    if not dump.arg:
        raise InputError(f"dump {dump.index} ({dump.pass_name}) has no pass argument to re-run")
    options = dump.options or _command_options(dump.arg, command or [])
    op = dump.scope.split(" ", 1)[0] if dump.scope else "builtin.module"
    for what, name in (("pass argument", dump.arg), ("scope", op)):
        if _NAME.fullmatch(name) is None:
            raise InputError(f"dump {dump.index}: {what} {name!r} is not a plain name; not re-run")
    spec = dump.arg + options
    said = _touches_files(spec) or ("a line end" if "\n" in options or "\0" in options else "")
    if said:
        raise InputError(
            f"dump {dump.index}: {dump.arg} would be re-run with {said!r}, which names a file "
            "or a tool (or breaks the line); not re-run: run its command by hand if you trust "
            "the Run it came from"
        )
    if op == "builtin.module":
        return f"builtin.module({spec})"
    return f"builtin.module({op}({spec}))"


def _command_options(arg: str, command: list[str]) -> str:
    prefix = f"--{arg}="
    for part in command:
        if part.startswith(prefix):
            return "{" + part[len(prefix) :] + "}"
    return ""


def make_reproducer(
    run: Run | str | os.PathLike[str],
    which: str | int,
    folder: str | os.PathLike[str] | None = None,
) -> Reproducer:
    """Write before.mlir / expected.mlir for Dump `which` and build the command."""
    run = run if isinstance(run, Run) else Run(run)
    tl = run.timeline
    dump = tl.select(which)
    if dump.stage not in STAGE_TOOLS:
        raise InputError(
            f"dump {dump.index} is in stage {dump.stage!r}; reproducers exist for "
            f"stages {', '.join(STAGE_TOOLS)}"
        )
    if dump.stage == "bishengir" and not run.manifest.get("extra", {}).get("module_scope"):
        raise InputError(
            f"{run.path}: the bishengir Dumps are not complete modules; compile "
            "again with --module-scope to reproduce a pass"
        )
    out = Path(folder) if folder else run.file(f"repro/{safe_name(f'{dump.index}-{dump.label}')}")
    out.mkdir(parents=True, exist_ok=True)
    module = _before_text(run, tl, dump)
    symbol = scope_symbol(dump.scope)
    alone = only_function(module, symbol) if symbol else module
    if not alone:
        raise InputError(f"dump {dump.index}: @{symbol} is not in the module the pass saw")
    (out / "module-before.mlir").write_text(module)
    before, expected, output = out / "before.mlir", out / "expected.mlir", out / "output.mlir"
    before.write_text(alone)
    expected.write_text(tl.text(dump))
    pipeline = pass_pipeline(dump, run.stage(dump.stage).get("command"))
    tool = find_tool(STAGE_TOOLS[dump.stage])
    command = [str(tool), str(before), f"--pass-pipeline={pipeline}", "-o", str(output)]
    repro = Reproducer(run, dump, out, before, expected, output, pipeline, command, symbol)
    repro.note = tl.selection_note(which) if isinstance(which, str) else ""
    repro.script = write_script(repro, tool)
    return repro


def write_script(repro: Reproducer, tool: Path) -> Path:
    """`repro.sh`: the command from a fresh shell (the absolute tool path, else found again
    on PATH or in its pip package)."""
    name = tool.name
    package, sub = ("ascendnpuir", "'bin'") if name.startswith("bishengir-") else (
        "triton", "'backends', 'ascend'")  # fmt: skip
    find = f"import {package}, os; print(os.path.join(os.path.dirname({package}.__file__), {sub}, '{name}'))"
    finder = [
        f'[ -x "$TOOL" ] || TOOL=$(command -v {name})',
        *(
            f'[ -x "$TOOL" ] || TOOL=$({shlex.quote(py)} -c "{find}" 2>/dev/null)'
            for py in (sys.executable, "python3")
        ),
        f'[ -x "$TOOL" ] || {{ echo "{name} not found: pip install {_PACKAGE.get(name, name)}, '
        f'or set {_ENV_NAME.get(name, "TOOL")}" >&2; exit 127; }}',
    ]
    on = f"@{repro.symbol} alone" if repro.symbol else "the whole module"
    lines = [
        "#!/bin/sh",
        f"# re-runs {repro.dump.label} on {on}, on the module it saw; compare output.mlir",
        "# with expected.mlir (what the compiler printed), or run `ascend-ir-lab repro`:",
        f"#   {name} before.mlir {shlex.quote('--pass-pipeline=' + repro.pipeline)} -o output.mlir",
        'cd "$(dirname "$0")" || exit 1',
        f"TOOL=${{{_ENV_NAME.get(name, 'TOOL')}:-{shlex.quote(str(tool))}}}",
        *finder,
        f'exec "$TOOL" before.mlir {shlex.quote("--pass-pipeline=" + repro.pipeline)} -o output.mlir',
    ]
    path = repro.folder / "repro.sh"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def _before_text(run: Run, tl: Any, dump: Any) -> str:
    """The module the pass saw: the previous Dump of the stage, or the stage's input."""
    earlier = [d for d in tl.dumps[: dump.index] if d.stage == dump.stage and d.phase == "after"]
    if earlier:
        return str(tl.text(earlier[-1]))
    source = run.manifest.get("extra", {}).get("stage_inputs", {}).get(dump.stage)
    if not source:
        raise InputError(f"{run.path}: no recorded input for stage {dump.stage!r}")
    from ascend_ir_lab.dumps.zstd_log import stored_bytes

    try:  # kept compressed (`.zst`) by a finished Run, plain by older ones
        return stored_bytes(run.file(source), 1 << 30).decode(errors="replace")
    except (OSError, ValueError) as exc:
        raise InputError(f"{run.path}: the input of stage {dump.stage!r}: {exc}") from None


def run_reproducer(repro: Reproducer, *, timeout: float = 300.0) -> ReproResult:
    """Run the reproducer; compare its output with the recorded Dump: the function it names
    (or the module), locations, whitespace and `#map` numbering ignored."""
    log = repro.folder / "repro.log"
    result = run_logged(repro.command, log=log, env=tool_env(), timeout=timeout)
    if result.returncode != 0 or not repro.output.is_file():
        return ReproResult(repro, result.returncode or 1, False, [], log)
    got_text, want_text = repro.output.read_text(), repro.expected.read_text()
    if repro.symbol:
        got = comparable(function_lines(got_text, repro.symbol))
        want = comparable(function_lines(want_text, repro.symbol))
    else:
        got = comparable(inline_aliases(got_text.splitlines()))
        want = comparable(inline_aliases(want_text.splitlines()))
    if not got or not want:
        side = "reproduced" if not got else "recorded"
        return ReproResult(repro, 0, False, [f"@{repro.symbol} is missing from the {side} IR"], log)
    diff = [] if got == want else _unified(want, got)
    return ReproResult(repro, 0, got == want, diff, log)


def reproduce(run: Run | str | os.PathLike[str], which: str | int, **kw: Any) -> ReproResult:
    """make_reproducer + run_reproducer in one call."""
    return run_reproducer(make_reproducer(run, which), **kw)


def _unified(a: list[str], b: list[str]) -> list[str]:
    from ascend_ir_lab.analysis.diff import unified

    return list(unified(a, b, a_name="recorded", b_name="reproduced"))
