"""`find`, `search`, `sync`, `source`, `ops`: lenses over a Timeline, from the shell."""

from __future__ import annotations

import argparse
import difflib
import sys
from typing import Any

from ascend_ir_lab.analysis.ops import OpChange
from ascend_ir_lab.cli.common import dump_ref, open_source, select, warn
from ascend_ir_lab.cli.jsonout import emit
from ascend_ir_lab.dumps import Timeline
from ascend_ir_lab.errors import InputError
from ascend_ir_lab.runs import run_file
from ascend_ir_lab.runs.paths import read_small
from ascend_ir_lab.safe_text import one_line


def _change(tl: Timeline, c: OpChange) -> dict[str, Any]:
    """A change record: the Dump's keys, then the count after its pass and the delta."""
    return {**dump_ref(tl.dumps[c.index]), "count": c.count, "delta": c.delta}


def cmd_find(args: argparse.Namespace) -> int:
    from ascend_ir_lab.analysis.ops import Census, known_ops, lifecycle

    tl = open_source(args.path)
    census = Census(tl)
    changes = lifecycle(tl, args.op, census)
    if args.json:
        emit([_change(tl, c) for c in changes])
    else:
        warn(tl)
        _print_changes(changes)
    if not changes:
        close = difflib.get_close_matches(args.op, list(known_ops(tl, census)), n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        print(f"{args.op} never appears in {one_line(tl.title)}{hint}", file=sys.stderr)
    return 0


def _print_changes(changes: list[OpChange]) -> None:
    """The table of passes that changed a count (find, search, source)."""
    print(f"{'#':>5}  {'stage':<9} {'count':>5} {'delta':>6}  pass (scope)")
    for c in changes:
        print(
            f"{c.index:>5}  {c.stage:<9} {c.count:>5} {c.delta:>+6}  {c.arg or c.pass_name} ({c.scope})"
        )


def cmd_search(args: argparse.Namespace) -> int:
    from ascend_ir_lab.analysis.search import search

    tl = open_source(args.path)
    hits = search(tl, args.pattern, regex=args.regex, ignore_case=args.ignore_case)
    if args.json:
        emit({"hits": hits.counts, "first": hits.first, "last": hits.last,
              "changes": [_change(tl, c) for c in hits.changes]})  # fmt: skip
        return 0
    warn(tl)
    if hits.first is None:
        print(f"{args.pattern!r} appears in no pass of {one_line(tl.title)}")
        return 0
    found = sum(1 for n in hits.counts if n)
    first, last = tl.dumps[hits.first], tl.dumps[hits.last]  # type: ignore[index]
    print(f"{args.pattern!r}: in {found} of {len(tl.dumps)} dumps, first #{first.index} "
          f"{first.stage}:{first.label}, last #{last.index} {last.stage}:{last.label}")  # fmt: skip
    _print_changes(hits.changes)
    return 0


def cmd_sync(args: argparse.Namespace) -> int:
    from ascend_ir_lab.analysis.sync import SyncOp, sync_lens

    tl = open_source(args.path)
    if args.check or args.mutate:
        from ascend_ir_lab.cli.sync import cmd_check

        return cmd_check(args, tl)
    d = select(tl, args.which or "last")
    lines = tl.lines(d)
    lens = sync_lens(lines)
    if args.json:

        def op(o: SyncOp) -> dict[str, Any]:
            return {"line": o.line + 1, "op": o.kind, "args": list(o.args)}

        emit({**dump_ref(d), "counts": dict(lens.counts()),
              "pairs": [[op(a), op(b)] for a, b in lens.pairs],
              "unpaired": [op(o) for o in lens.unpaired]})  # fmt: skip
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
    from ascend_ir_lab.analysis.locations import LineCensus
    from ascend_ir_lab.analysis.ops import lifecycle

    tl = open_source(args.path)
    file = args.file or ((tl.run or {}).get("kernel") or {}).get("file")
    census = LineCensus(tl, args.line, file)
    changes = lifecycle(tl, "", census)
    d = select(tl, args.which)
    lines = tl.lines(d)
    located = census.lines_of(d)
    if args.json:
        emit({"source_line": args.line, "file": file,
              "changes": [_change(tl, c) for c in changes], **dump_ref(d),
              "ops": [{"line": i + 1, "text": lines[i]} for i in located]})  # fmt: skip
        return 0
    warn(tl)
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
    source = ((tl.run or {}).get("kernel") or {}).get("source")
    path = run_file(tl.path, source, 64 << 20) if tl.path else None
    try:
        text = read_small(path, 64 << 20).decode("utf-8", "replace").splitlines() if path else []
    except InputError:
        return ""
    return text[number - 1].strip() if 0 < number <= len(text) else ""


def cmd_ops(args: argparse.Namespace) -> int:
    from ascend_ir_lab.analysis.ops import Census

    tl = open_source(args.path)
    d = select(tl, args.which)
    counts = Census(tl).of(d)
    if args.json:
        emit({**dump_ref(d), "counts": dict(counts.most_common())})
        return 0
    print(f"#{d.index} {d.stage}:{d.label} ({d.scope}): {sum(counts.values())} ops")
    for op, n in counts.most_common():
        print(f"{n:>7}  {op}")
    return 0
