"""Pass-level reproducer: re-run one pass of a module-scope Run on its recorded input.

For a Dump of pass P, the module before P (the previous Dump of the stage in log order, or
the stage's input file for its first Dump) is saved as `before.mlir`, and the one command

    bishengir-opt before.mlir --pass-pipeline='builtin.module(func.func(P{options}))'

(nesting from the Dump's scope; triton-adapter-opt for the adapter stage) re-runs P alone.
`run_reproducer` runs it and compares its output with the recorded Dump, normalised.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ascend_ir_lab.errors import InputError
from ascend_ir_lab.toolchains.env import tool_env
from ascend_ir_lab.toolchains.process import run_logged
from ascend_ir_lab.toolchains.run import Run, safe_name
from ascend_ir_lab.toolchains.tools import find_tool

STAGE_TOOLS = {"bishengir": "bishengir-opt", "adapter": "triton-adapter-opt"}


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
        what = f"{d.stage}:{d.label} (dump {d.index}, {d.scope})"
        if self.returncode != 0:
            return f"{what}: reproducer failed with exit code {self.returncode} (see {self.log})"
        if self.match:
            return f"{what}: reproduced, output matches the recorded dump (normalised)"
        changed = sum(1 for s in self.diff if s[:1] in "+-" and s[:3] not in ("+++", "---"))
        return f"{what}: output differs from the recorded dump ({changed} lines)"


def pass_pipeline(dump: Any, command: list[str] | None = None) -> str:
    """`--pass-pipeline` text for the Dump's pass, nested as its scope says.

    Options come from the header's `{...}` or, when the header has none (older MLIR), from
    `--ARG=OPTIONS` in the stage's command (triton-adapter-opt passes are given so).
    """
    spec = dump.arg + (dump.options or _command_options(dump.arg, command or []))
    if not dump.arg:
        raise InputError(f"dump {dump.index} ({dump.pass_name}) has no pass argument to re-run")
    op = dump.scope.split(" ", 1)[0] if dump.scope else "builtin.module"
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
    before, expected = out / "before.mlir", out / "expected.mlir"
    before.write_text(_before_text(run, tl, dump))
    expected.write_text(tl.text(dump))
    output = out / "output.mlir"
    pipeline = pass_pipeline(dump, run.stage(dump.stage).get("command"))
    command = [
        str(find_tool(STAGE_TOOLS[dump.stage])),
        str(before),
        f"--pass-pipeline={pipeline}",
        "-o",
        str(output),
    ]
    return Reproducer(run, dump, out, before, expected, output, pipeline, command)


def _before_text(run: Run, tl: Any, dump: Any) -> str:
    """The module the pass saw: the previous Dump of the stage, or the stage's input."""
    earlier = [d for d in tl.dumps[: dump.index] if d.stage == dump.stage and d.phase == "after"]
    if earlier:
        return str(tl.text(earlier[-1]))
    source = run.manifest.get("extra", {}).get("stage_inputs", {}).get(dump.stage)
    if not source:
        raise InputError(f"{run.path}: no recorded input for stage {dump.stage!r}")
    return run.file(source).read_text(errors="replace")


def run_reproducer(repro: Reproducer, *, timeout: float = 300.0) -> ReproResult:
    """Run the reproducer; compare its output with the recorded Dump (locations and
    whitespace ignored; for a function-scope Dump, that function only)."""
    log = repro.folder / "repro.log"
    result = run_logged(repro.command, log=log, env=tool_env(), timeout=timeout)
    if result.returncode != 0 or not repro.output.is_file():
        return ReproResult(repro, result.returncode or 1, False, [], log)
    got_text, want_text = repro.output.read_text(), repro.expected.read_text()
    symbol = _scope_symbol(repro.dump.scope)
    if symbol:  # the pipeline also re-ran the pass on the other functions: compare only this one
        got_text, want_text = _function(got_text, symbol), _function(want_text, symbol)
    got, want = _normalised(got_text), _normalised(want_text)
    diff = [] if got == want else _unified(want, got)
    return ReproResult(repro, 0, got == want and bool(got), diff, log)


def _scope_symbol(scope: str) -> str | None:
    op, _, sym = (scope or "").partition(" @")
    return sym if op != "builtin.module" and sym else None


def _function(text: str, symbol: str) -> str:
    """The lines of the top-level op defining @symbol (header line to its closing brace)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if f"@{symbol}(" in line and not line.lstrip().startswith(("//", "%", "call")):
            indent = line[: len(line) - len(line.lstrip())]
            for j in range(i + 1, len(lines)):
                if lines[j].rstrip() == indent + "}" or lines[j].startswith(indent + "} "):
                    return "\n".join(lines[i : j + 1])
            return "\n".join(lines[i:])
    return ""


def reproduce(run: Run | str | os.PathLike[str], which: str | int, **kw: Any) -> ReproResult:
    """make_reproducer + run_reproducer in one call."""
    return run_reproducer(make_reproducer(run, which), **kw)


def _normalised(text: str) -> list[str]:
    from ascend_ir_lab.analysis.normalize import Normalization, normalize_lines

    norm = Normalization(locations=True, whitespace=True)
    return [s for s in normalize_lines(text.splitlines(), norm) if s]


def _unified(a: list[str], b: list[str]) -> list[str]:
    from ascend_ir_lab.analysis.diff import unified

    return list(unified(a, b, a_name="recorded", b_name="reproduced"))
