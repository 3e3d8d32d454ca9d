"""`inspect`, `show`, `diff`, `find`, `search`, `sync`, `source`, `ops`: read a Timeline from
the shell."""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from typing import Any

from ascend_ir_lab.analysis.align import counterpart
from ascend_ir_lab.analysis.compare import compare
from ascend_ir_lab.analysis.diff import unified
from ascend_ir_lab.analysis.locations import LineCensus
from ascend_ir_lab.analysis.normalize import Normalization, normalize_lines
from ascend_ir_lab.analysis.ops import Census, OpChange, known_ops, lifecycle
from ascend_ir_lab.analysis.search import search
from ascend_ir_lab.analysis.sync import SyncOp, sync_lens
from ascend_ir_lab.dumps import Dump, Timeline, open_timeline
from ascend_ir_lab.errors import InputError
from ascend_ir_lab.runs import inside, regular_file
from ascend_ir_lab.safe_text import for_terminal

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
    p.set_defaults(handler=cmd_diff)

    p = sub.add_parser("find", help="op lifecycle: every pass that changes how many OP there are")
    p.add_argument("path", help=PATH_HELP)
    p.add_argument("op", help="an op name such as hivm.hir.set_flag")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=cmd_find)

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
    p.set_defaults(handler=cmd_search)

    p = sub.add_parser("sync", help="sync lens: set_flag/wait_flag pairs, barriers, unpaired flags")
    p.add_argument("path", help=PATH_HELP)
    p.add_argument("which", nargs="?", default="last", help=WHICH_HELP + " (default: last)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=cmd_sync)

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
    p.set_defaults(handler=cmd_source)

    p = sub.add_parser("ops", help="op census of one dump")
    p.add_argument("path", help=PATH_HELP)
    p.add_argument("which", nargs="?", default="last", help=WHICH_HELP + " (default: last)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=cmd_ops)


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
    try:
        return Normalization.parse(args.normalize)
    except ValueError as exc:
        raise InputError(str(exc)) from None


def _warn(tl: Timeline) -> None:
    for w in tl.warnings:
        print(f"warning: {w}", file=sys.stderr)


def dump_record(tl: Timeline, d: Dump, changed: bool) -> dict[str, Any]:
    """The `inspect --json` record of one Dump."""
    return {
        "index": d.index, "stage": d.stage, "pass": d.pass_name, "arg": d.arg,
        "phase": d.phase, "scope": d.scope, "changed": changed,
        "lines": tl.line_count(d), "truncated": d.truncated, "options": d.options,
        "span": [d.start, d.end], "seconds": tl.seconds(d),
    }  # fmt: skip


def cmd_inspect(args: argparse.Namespace) -> int:
    tl = open_timeline(args.path)
    flags = tl.changed_flags()
    dumps = [d for d in tl.dumps if flags[d.index] or not args.changed]
    if args.json:
        out = {
            "path": tl.path, "title": tl.title, "stages": tl.stages,
            "dumps": [dump_record(tl, d, flags[d.index]) for d in dumps],
            "messages": [
                {"stage": m.stage, "after": m.after, "level": m.level, "text": m.text}
                for m in tl.messages
            ],
            "warnings": tl.warnings,
        }  # fmt: skip
        json.dump(out, sys.stdout, indent=1)
        print()
        return 0
    _warn(tl)
    print(_summary(tl, flags))
    width = max((len(d.label) for d in dumps), default=4)
    timed = [s for s in (tl.seconds(d) for d in dumps) if s is not None]
    slowest = max(timed, default=0.0)
    head = f"{'#':>5}  {'stage':<9} {'pass':<{width}}  {'phase':<7} {'lines':>6}  {'':2} "
    print(head + (f"{'ms':>8} {'':10} " if timed else "") + "scope")
    for d in dumps:
        mark = "*" if flags[d.index] else " "
        mark += "!" if d.truncated or d.phase == "failed" else " "
        row = f"{d.index:>5}  {d.stage:<9} {d.label:<{width}}  {d.phase:<7} {tl.line_count(d):>6}  {mark} "
        if timed:
            row += _timing_cell(tl.seconds(d), slowest)
        print(row + d.scope)
    for m in tl.messages:
        print(f"[{m.stage} after #{m.after}] {m.level}: {m.text}")
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
        f"{tl.title}: {len(tl.dumps)} dumps ({per_stage}), {sum(flags)} changed the IR, "
        f"{tl.snapshot_count()} distinct snapshots, {len(tl.messages)} messages"
        "\n(* changed the IR, ! failed or truncated)"
    )


def cmd_show(args: argparse.Namespace) -> int:
    tl = open_timeline(args.path)
    _warn(tl)
    d = tl.select(args.which)
    lines = normalize_lines(tl.lines(d), _norm(args))
    text = "\n".join(lines) + ("\n" if lines else "")
    if _colored(args) and d.family == "mlir":
        _trusted().write(_highlight_mlir(for_terminal(text)))
    else:
        sys.stdout.write(text)
    return 0


def _name(tl: Timeline, d: Dump) -> str:
    return f"{tl.title} #{d.index} {d.stage}:{d.label} ({d.scope})"


def cmd_diff(args: argparse.Namespace) -> int:
    a_tl = open_timeline(args.path)
    b_tl = open_timeline(args.against) if args.against else a_tl
    _warn(a_tl)
    if args.a is None:
        if b_tl is a_tl:
            raise InputError("diff needs a dump (A), or --against PATH2 to compare two timelines")
        return _aligned_summary(a_tl, b_tl, _norm(args), args.exit_code)
    da = a_tl.select(args.a)
    if args.b is not None:
        db: Dump | None = b_tl.select(args.b)
    elif b_tl is not a_tl:
        db = counterpart(a_tl, da, b_tl)
        if db is None:
            raise InputError(f"{args.against} never runs {da.label} on {da.scope}")
    else:
        old, db = a_tl.change(da)
        if db is None:
            raise InputError(f"dump #{da.index} is the last state of its scope: nothing follows it")
        da = old if old is not None else da
        if old is None:
            print(f"# #{db.index} is the first dump of {db.scope}: nothing to compare with")
            return 0
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


def _aligned_summary(a: Timeline, b: Timeline, norm: Normalization, exit_code: bool) -> int:
    result = compare(a, b, a.title, b.title, norm)
    print("\n".join(result.lines(limit=20)))
    return 1 if not result.identical and exit_code else 0


def cmd_find(args: argparse.Namespace) -> int:
    tl = open_timeline(args.path)
    census = Census(tl)
    changes = lifecycle(tl, args.op, census)
    if args.json:
        json.dump([c.as_json() for c in changes], sys.stdout, indent=1)
        print()
    else:
        _warn(tl)
        _print_changes(changes)
    if not changes:
        close = difflib.get_close_matches(args.op, list(known_ops(tl, census)), n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        print(f"{args.op} never appears in {tl.title}{hint}", file=sys.stderr)
    return 0


def _print_changes(changes: list[OpChange]) -> None:
    """The table of passes that changed a count (find, search, source)."""
    print(f"{'#':>5}  {'stage':<9} {'count':>5} {'delta':>6}  pass (scope)")
    for c in changes:
        print(
            f"{c.index:>5}  {c.stage:<9} {c.count:>5} {c.delta:>+6}  {c.arg or c.pass_name} ({c.scope})"
        )


def cmd_search(args: argparse.Namespace) -> int:
    tl = open_timeline(args.path)
    hits = search(tl, args.pattern, regex=args.regex, ignore_case=args.ignore_case)
    if args.json:
        out = {"counts": hits.counts, "first": hits.first, "last": hits.last,
               "changes": [c.as_json() for c in hits.changes]}  # fmt: skip
        json.dump(out, sys.stdout, indent=1)
        print()
        return 0
    _warn(tl)
    if hits.first is None:
        print(f"{args.pattern!r} appears in no pass of {tl.title}")
        return 0
    found = sum(1 for n in hits.counts if n)
    first, last = tl.dumps[hits.first], tl.dumps[hits.last]  # type: ignore[index]
    print(f"{args.pattern!r}: in {found} of {len(tl.dumps)} dumps, first #{first.index} "
          f"{first.stage}:{first.label}, last #{last.index} {last.stage}:{last.label}")  # fmt: skip
    _print_changes(hits.changes)
    return 0


def cmd_sync(args: argparse.Namespace) -> int:
    tl = open_timeline(args.path)
    d = tl.select(args.which)
    lines = tl.lines(d)
    lens = sync_lens(lines)
    if args.json:

        def op(o: SyncOp) -> dict[str, Any]:
            return {"line": o.line + 1, "kind": o.kind, "args": list(o.args)}

        out = {"dump": d.index, "counts": dict(lens.counts()),
               "pairs": [[op(a), op(b)] for a, b in lens.pairs],
               "unpaired": [op(o) for o in lens.unpaired]}  # fmt: skip
        json.dump(out, sys.stdout, indent=1)
        print()
        return 0
    print(f"#{d.index} {d.stage}:{d.label} ({d.scope}): {len(lens.ops)} sync ops")
    for kind, n in sorted(lens.counts().items()):
        print(f"{n:>7}  {kind}")
    print(f"set_flag/wait_flag pairs: {len(lens.pairs)}; unpaired: {len(lens.unpaired)}")
    if lens.unpaired:
        print(
            "  (paired in text order by pipes and event; loop-carried flags and runtime event ids"
        )
        print("   may pair across iterations: read these as places to look, not as bugs)")
    for o in lens.unpaired:
        print(
            f"  line {o.line + 1:>5}: unpaired {o.kind}[{', '.join(o.args)}]  {lines[o.line].strip()[:100]}"
        )
    return 0


def cmd_source(args: argparse.Namespace) -> int:
    tl = open_timeline(args.path)
    file = args.file or ((tl.run or {}).get("kernel") or {}).get("file")
    census = LineCensus(tl, args.line, file)
    changes = lifecycle(tl, "", census)
    d = tl.select(args.which)
    lines = tl.lines(d)
    located = census.lines_of(d)
    if args.json:
        out = {"line": args.line, "file": file, "changes": [c.as_json() for c in changes],
               "dump": d.index, "ops": [{"line": i + 1, "text": lines[i]} for i in located]}  # fmt: skip
        json.dump(out, sys.stdout, indent=1)
        print()
        return 0
    _warn(tl)
    if not changes:
        print(f"no IR carries the location {file or '*'}:{args.line}; compile with --line-info")
        return 0
    print(f"{file or '*'}:{args.line}: {_python_line(tl, args.line)}")
    print("IR lines located there, pass by pass:")
    _print_changes(changes)
    gone = changes[-1].count == 0
    print(
        f"{'vanish at #' + str(changes[-1].index) + ' ' + changes[-1].arg if gone else 'still present at the end'}"
    )
    print(f"\n#{d.index} {d.stage}:{d.label}: {len(located)} lines")
    for i in located:
        print(f"{i + 1:>6}  {lines[i].strip()[:160]}")
    return 0


def _python_line(tl: Timeline, number: int) -> str:
    """The text of a line of the Run's kernel source ("" when there is none)."""
    path = inside(tl.path, ((tl.run or {}).get("kernel") or {}).get("source"))
    try:
        text = path.read_text(errors="replace").splitlines() if path and regular_file(path) else []
    except OSError:
        return ""
    return text[number - 1].strip() if 0 < number <= len(text) else ""


def cmd_ops(args: argparse.Namespace) -> int:
    tl = open_timeline(args.path)
    d = tl.select(args.which)
    counts = Census(tl).of(d)
    if args.json:
        json.dump(dict(counts.most_common()), sys.stdout, indent=1)
        print()
        return 0
    print(f"#{d.index} {d.stage}:{d.label} ({d.scope}): {sum(counts.values())} ops")
    for op, n in counts.most_common():
        print(f"{n:>7}  {op}")
    return 0
