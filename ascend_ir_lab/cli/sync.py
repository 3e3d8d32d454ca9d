"""`sync --check` (the sync checker) and `sync --mutate` (how well it finds broken sync)."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ascend_ir_lab.dumps import Timeline

# Registered at start-up by every command: the checker is imported when it runs.


def add_check_options(p: argparse.ArgumentParser) -> None:
    """`--check`, `--mutate` and `--all` for the `sync` command."""
    p.add_argument(
        "--check", action="store_true",
        help="pair every wait with its set through the control flow and find hazards",
    )  # fmt: skip
    p.add_argument(
        "--mutate", action="store_true",
        help="delete/move waits, delete sets, drop barriers in the IR and show what --check finds",
    )  # fmt: skip
    p.add_argument("--all", action="store_true", help="list possible findings too (not just 5)")


def _dumps(args: argparse.Namespace, tl: Timeline) -> list[Any]:
    from ascend_ir_lab.cli.common import select

    if args.which is not None:
        return [select(tl, args.which)]
    from ascend_ir_lab.analysis.sync_timeline import sync_targets

    return sync_targets(tl)


def cmd_check(args: argparse.Namespace, tl: Timeline) -> int:
    """Run the checker (and the mutations); exit 1 when there is a definite finding."""
    dumps = _dumps(args, tl)
    if args.mutate:
        return _mutate(args, tl, dumps)
    from ascend_ir_lab.analysis.sync_timeline import check_timeline

    checked = check_timeline(tl, dumps)
    if args.json:
        out = {"dumps": {str(i): [f.as_json() for f in r.findings] for i, r in checked.items()},
               "cross_core": {str(i): [n + 1 for n in r.cross_core] for i, r in checked.items()},
               "distributed": {str(i): [n + 1 for n in r.distributed] for i, r in checked.items()}}  # fmt: skip
        json.dump(out, sys.stdout, indent=1)
        print()
    else:
        for d in dumps:
            result = checked[d.index]
            print(f"#{d.index} {d.stage}:{d.label} ({d.scope})")
            lines = result.lines(tl.lines(d))
            shown = [s for s in lines[1:] if " definite " in s]
            rest = [s for s in lines[1:] if " definite " not in s]
            keep = rest if args.all else rest[:5]
            print("\n".join([lines[0], *shown, *keep]))
            if len(rest) > len(keep):
                print(f"  ... {len(rest) - len(keep)} more possible findings (--all)")
    return 1 if any(r.definite for r in checked.values()) else 0


def _mutate(args: argparse.Namespace, tl: Timeline, dumps: list[Any]) -> int:
    from ascend_ir_lab.analysis.sync_mutate import run_mutations

    report: dict[str, Any] = {}
    for d in dumps:
        results = run_mutations(tl.lines(d), scope=d.scope)
        tried, found = Counter(r.mutant.kind for r in results), Counter(
            r.mutant.kind for r in results if r.found)  # fmt: skip
        report[str(d.index)] = [
            {"kind": r.mutant.kind, "line": r.mutant.line + 1, "found": r.found,
             "finding": r.finding.as_json() if r.finding else None}
            for r in results
        ]  # fmt: skip
        if not args.json:
            summary = ", ".join(f"{k} {found[k]}/{n}" for k, n in tried.items()) or "no site"
            print(f"#{d.index} {d.stage}:{d.label} ({d.scope}): found {summary}")
            for r in results:
                where = (
                    f"found: {r.finding.severity} {r.finding.kind} at line {r.finding.line + 1} "
                    "of the mutated IR"
                    if r.finding else "NOT FOUND"
                )  # fmt: skip
                if args.all or not r.found:
                    print(f"  {r.mutant.kind:<13} line {r.mutant.line + 1:>5}: {where}")
    if args.json:
        json.dump(report, sys.stdout, indent=1)
        print()
    return 0
