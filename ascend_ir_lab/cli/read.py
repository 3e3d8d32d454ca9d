"""`inspect`, `show`, `diff`, `find`, `search`, `sync`, `source`, `ops`: read a Timeline from
the shell."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ascend_ir_lab.cli.common import (
    dump_record_texts,
    message_record_texts,
    open_source,
    select,
    warn,
)
from ascend_ir_lab.errors import InputError
from ascend_ir_lab.safe_text import for_terminal, one_line

if TYPE_CHECKING:
    from ascend_ir_lab.analysis.normalize import Normalization
    from ascend_ir_lab.dumps import Dump, Timeline

# Start-up is part of every command's time: a handler imports what it needs when it runs.

PATH_HELP = "a log (.log/.txt/.gz), a --mlir-print-ir-tree-dir folder, a Triton cache/dump folder or a Run folder"
WHICH_HELP = "a dump index, 'last', or a pass argument with an optional occurrence: 'cse#3'"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the read-only subcommands."""
    p = sub.add_parser("inspect", help="list the dumps of a log, folder or Run")
    p.add_argument("path", help=PATH_HELP)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--changed", action="store_true", help="only dumps whose pass changed the IR")
    p.set_defaults(handler=cmd_inspect)

    p = sub.add_parser("show", help="print the IR of one dump")
    p.add_argument("path", help=PATH_HELP)
    p.add_argument("which", help=WHICH_HELP)
    _add_normalize(p)
    _add_color(p)
    p.set_defaults(handler=cmd_show)

    p = sub.add_parser(
        "diff", help="unified diff of two dumps, or of a dump against its previous state"
    )
    p.add_argument("path", help=PATH_HELP)
    p.add_argument("a", nargs="?", help=WHICH_HELP + " (alone: diff against its previous state)")
    p.add_argument("b", nargs="?", help=WHICH_HELP)
    p.add_argument("--against", metavar="PATH2", help="take B from this second log (pass-aligned)")
    p.add_argument("-U", "--context", type=int, default=3, help="lines of context (default 3)")
    p.add_argument("--exit-code", action="store_true", help="exit 1 when the IR differs")
    _add_normalize(p)
    _add_color(p)
    from ascend_ir_lab.cli.noise import add_noise_options

    add_noise_options(p)
    p.set_defaults(handler=cmd_diff)

    p = sub.add_parser("find", help="op lifecycle: every pass that changes how many OP there are")
    p.add_argument("path", help=PATH_HELP)
    p.add_argument("op", help="an op name such as hivm.hir.set_flag")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=_lazy("lenses", "cmd_find"))

    p = sub.add_parser(
        "search", help="a text or regex in every pass: where it appears and disappears"
    )
    p.add_argument("path", help=PATH_HELP)
    p.add_argument("pattern", help="text to find (a regular expression with --regex)")
    p.add_argument(
        "-E", "--regex", action="store_true", help="PATTERN is a Python regular expression"
    )
    p.add_argument("-i", "--ignore-case", action="store_true")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=_lazy("lenses", "cmd_search"))

    p = sub.add_parser(
        "sync", help="sync lens (pairs, barriers, unpaired flags); --check: the sync checker"
    )
    p.add_argument("path", help=PATH_HELP)
    p.add_argument(
        "which", nargs="?", default=None,
        help=WHICH_HELP + " (default: last; with --check: after the sync pass and the final IR)",
    )  # fmt: skip
    p.add_argument("--json", action="store_true", help="machine-readable output")
    from ascend_ir_lab.cli.sync import add_check_options

    add_check_options(p)
    p.set_defaults(handler=_lazy("lenses", "cmd_sync"))

    p = sub.add_parser(
        "source", help="the ops one Python line produced, pass by pass, and where they vanish"
    )
    p.add_argument("path", help=PATH_HELP + " (compile with --line-info for every stage)")
    p.add_argument("line", type=int, help="the Python line (1-based)")
    p.add_argument("--file", help="the kernel file name its locations carry (default: the Run's)")
    p.add_argument(
        "--which", default="last", help=WHICH_HELP + " whose ops to print (default: last)"
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=_lazy("lenses", "cmd_source"))

    p = sub.add_parser("ops", help="op census of one dump")
    p.add_argument("path", help=PATH_HELP)
    p.add_argument("which", nargs="?", default="last", help=WHICH_HELP + " (default: last)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=_lazy("lenses", "cmd_ops"))


def _lazy(module: str, name: str) -> Callable[[argparse.Namespace], int]:
    """A handler that imports `ascend_ir_lab.cli.<module>` only when the command runs."""

    def handler(args: argparse.Namespace) -> int:
        return int(getattr(importlib.import_module(f"ascend_ir_lab.cli.{module}"), name)(args))

    return handler


def _add_color(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--color", choices=("auto", "always", "never"), default="auto",
        help="colour the output (auto: when writing to a terminal)",
    )  # fmt: skip


def _colored(args: argparse.Namespace) -> bool:
    return args.color == "always" or (args.color == "auto" and sys.stdout.isatty())


_DIFF_COLORS = (("+++", "1"), ("---", "1"), ("@@", "36"), ("+", "32"), ("-", "31"))


def _color_diff(lines: list[str]) -> list[str]:
    """ANSI colours for a unified diff: headers bold, hunks cyan, additions green, removals red."""
    out = []
    for line in lines:
        code = next((c for prefix, c in _DIFF_COLORS if line.startswith(prefix)), None)
        out.append(f"\x1b[{code}m{line}\x1b[0m" if code else line)
    return out


def _trusted() -> Any:
    """stdout for text already cleaned that carries the command's own colours."""
    return getattr(sys.stdout, "trusted", sys.stdout)


def _highlight_mlir(text: str) -> str:
    """MLIR in terminal colours through the project's Pygments lexer."""
    from pygments import highlight
    from pygments.formatters import TerminalFormatter

    from ascend_ir_lab.lexer import MLIRLexer

    return highlight(text, MLIRLexer(), TerminalFormatter())


def _add_normalize(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--normalize", nargs="?", const="all", default=None, metavar="WHAT",
        help="ignore differences: loc, ssa, whitespace, comma separated (alone: all)",
    )  # fmt: skip


def _norm(args: argparse.Namespace) -> Normalization:
    from ascend_ir_lab.analysis.normalize import Normalization

    try:
        return Normalization.parse(args.normalize)
    except ValueError as exc:
        raise InputError(str(exc)) from None


def cmd_inspect(args: argparse.Namespace) -> int:
    tl = open_source(args.path)
    states = tl.change_states()
    flags = [s == "changed" for s in states]
    dumps = [d for d in tl.dumps if flags[d.index] or not args.changed]
    if args.json:
        from ascend_ir_lab.cli.jsonout import Encoded, emit

        emit({
            "path": tl.path, "title": tl.title, "stages": tl.stages,
            "dumps": Encoded(dump_record_texts(tl, dumps, states)),
            "messages": Encoded(message_record_texts(tl.messages)),
            "warnings": tl.warnings,
        })  # fmt: skip
        return 0
    warn(tl)
    print(_summary(tl, flags))
    width = max((len(d.label) for d in dumps), default=4)
    timings = tl.timings()
    timed = [timings[d.index] for d in dumps if d.index in timings]
    slowest = max(timed, default=0.0)
    head = f"{'#':>5}  {'stage':<9} {'pass':<{width}}  {'phase':<7} {'lines':>6}  {'':2} "
    out = [head + (f"{'ms':>8} {'':10} " if timed else "") + "scope"]
    for d in dumps:
        mark = "*" if flags[d.index] else " "
        mark += "!" if d.truncated or d.phase == "failed" else " "
        row = f"{d.index:>5}  {d.stage:<9} {d.label:<{width}}  {d.phase:<7} {tl.line_count(d):>6}  {mark} "
        if timed:
            row += _timing_cell(timings.get(d.index), slowest)
        out.append(row + d.scope)
    out.extend(f"[{m.stage} after #{m.after}] {m.level}: {m.text}" for m in tl.messages)
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def _timing_cell(seconds: float | None, slowest: float) -> str:
    """Milliseconds and a bar scaled to the slowest pass (blank where no time was reported)."""
    if seconds is None:
        return " " * 20
    bar = "#" * round(10 * seconds / slowest) if slowest else ""
    return f"{seconds * 1000:8.2f} {bar:<10} "


def _summary(tl: Timeline, flags: list[bool]) -> str:
    per_stage = ", ".join(f"{s} {sum(1 for d in tl.dumps if d.stage == s)}" for s in tl.stages)
    return (
        f"{one_line(tl.title)}: {len(tl.dumps)} dumps ({per_stage}), {sum(flags)} changed the IR, "
        f"{tl.snapshot_count()} distinct snapshots, {len(tl.messages)} messages"
        "\n(* changed the IR, ! failed or truncated)"
    )


def cmd_show(args: argparse.Namespace) -> int:
    from ascend_ir_lab.analysis.normalize import normalize_lines

    tl = open_source(args.path)
    warn(tl)
    d = select(tl, args.which)
    lines = normalize_lines(tl.lines(d), _norm(args))
    text = "\n".join(lines) + ("\n" if lines else "")
    if _colored(args) and d.family == "mlir":
        _trusted().write(_highlight_mlir(for_terminal(text)))
    else:
        sys.stdout.write(text)
    return 0


def _name(tl: Timeline, d: Dump) -> str:
    return f"{one_line(tl.title)} #{d.index} {d.stage}:{d.label} ({d.scope})"


def cmd_diff(args: argparse.Namespace) -> int:
    from ascend_ir_lab.analysis.align import counterpart
    from ascend_ir_lab.analysis.change import pass_change
    from ascend_ir_lab.analysis.diff import unified
    from ascend_ir_lab.analysis.normalize import normalize_lines

    a_tl = open_source(args.path)
    b_tl = open_source(args.against) if args.against else a_tl
    warn(a_tl)
    if args.a is None:
        if b_tl is a_tl:
            raise InputError("diff needs a dump (A), or --against PATH2 to compare two timelines")
        from ascend_ir_lab.cli.noise import noise_of

        noise = noise_of(args, a_tl)
        norm = _norm(args) if args.normalize else None
        return _aligned_summary(a_tl, b_tl, norm, args.exit_code, noise)
    da = select(a_tl, args.a)
    db: Dump | None
    if args.b is not None:
        db = select(b_tl, args.b)
    elif b_tl is not a_tl:
        db = counterpart(a_tl, da, b_tl)
        if db is None:
            raise InputError(f"{args.against} never runs {da.label} on {da.scope}")
    else:
        change = pass_change(a_tl, da)
        if change.note:
            print(f"# {change.note}")
            return 0
        assert change.old is not None and change.new is not None
        da, db = change.old, change.new
    norm = _norm(args)
    a_lines = normalize_lines(a_tl.lines(da), norm)
    b_lines = normalize_lines(b_tl.lines(db), norm)
    out = list(
        unified(
            a_lines, b_lines, a_name=_name(a_tl, da), b_name=_name(b_tl, db), context=args.context
        )
    )
    if _colored(args):
        shown = _color_diff([for_terminal(line) for line in out])
        _trusted().write("\n".join(shown) + ("\n" if shown else ""))
    else:
        sys.stdout.write("\n".join(out) + ("\n" if out else ""))
    if not out:
        print(f"identical: {_name(a_tl, da)} and {_name(b_tl, db)}", file=sys.stderr)
    return 1 if out and args.exit_code else 0


def _aligned_summary(
    a: Timeline, b: Timeline, norm: Normalization | None, exit_code: bool, noise: Any = None
) -> int:
    from ascend_ir_lab.analysis.compare import compare

    result = compare(a, b, a.title, b.title, norm, noise)
    print("\n".join(result.lines(limit=20)))
    return 1 if not result.identical and exit_code else 0
