"""`html` and `report`: share what was found, as one offline page or a bug-report zip."""

from __future__ import annotations

import argparse
from typing import Any

from ascend_ir_lab.safe_text import one_line

PATH_HELP = "a log (.log/.txt/.gz), a --mlir-print-ir-tree-dir folder, a Triton cache/dump folder or a Run folder"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the sharing subcommands."""
    p = sub.add_parser(
        "html", help="one self-contained offline page of every pass (opens from disk)"
    )
    p.add_argument("path", help=PATH_HELP)
    p.add_argument("-o", "--out", required=True, metavar="FILE", help="the .html file to write")
    p.add_argument("--title", help="page title (default: the Run's name and target)")
    p.add_argument(
        "--plain", action="store_true", help="embed the payload as plain JSON, not gzip+base64"
    )
    p.add_argument("--compare", metavar="PATH2",
                   help="a second Run (or log): the page shows both side by side, pass-aligned")  # fmt: skip
    p.add_argument("--noise", metavar="PATH3", action="append", default=[],
                   help="with --compare: another build of PATH; passes that vary are noise")  # fmt: skip
    p.set_defaults(handler=cmd_html)

    p = sub.add_parser(
        "report",
        help="bug-report zip + Markdown for the Triton-Ascend / AscendNPU-IR trackers",
        description="Everything the debugging guide asks for in a bug report: reproducer, cached "
        "IR, full logs, environment, barrier-all comparison, notes, offline HTML.",
    )
    p.add_argument("run", metavar="RUN", help="a Run folder (ascend-ir-lab compile ... -o RUN)")
    p.add_argument("--pass", dest="which", metavar="WHICH",
                   help="the suspect pass: a dump index, 'last' or a pass argument ('cse#3'); "
                   "adds the pass-level bishengir-opt reproducer")  # fmt: skip
    p.add_argument(
        "--against", metavar="BARRIER_RUN", help="the barrier-all Run of the same kernel"
    )
    p.add_argument(
        "--noise", metavar="RUN2",
        help="a second build of RUN: the sync section sets run-to-run noise apart",
    )  # fmt: skip
    p.add_argument(
        "-o",
        "--out",
        required=True,
        metavar="OUT",
        help="the zip to write (.zip added); OUT.md beside it",
    )
    p.add_argument("--notebook", metavar="NB.ipynb",
                   help="take the notes from this saved notebook's timeline of the Run "
                   "(notes made in JupyterLab, kernel or not) instead of the Run's notes.json")  # fmt: skip
    p.set_defaults(handler=cmd_report)


def cmd_html(args: Any) -> int:
    from ascend_ir_lab.cli.npu import with_passes
    from ascend_ir_lab.export.files import save_comparison_html, save_html

    with_passes(args.path)  # a cheap record opens with its passes
    compress = False if args.plain else None
    if args.compare:
        with_passes(args.compare)
        out = save_comparison_html(
            args.path, args.compare, args.out, noise=args.noise, title=args.title,
            compress=compress,
        )  # fmt: skip
    else:
        out = save_html(args.path, args.out, title=args.title, compress=compress)
    print(f"{one_line(str(out))} ({out.stat().st_size / 1e6:.2f} MB)")
    return 0


def cmd_report(args: Any) -> int:
    from ascend_ir_lab.share.report import make_report

    notes = None
    if args.notebook:
        notes = _notebook_notes(args.notebook, args.run)
        print(f"{len(notes)} note{'' if len(notes) == 1 else 's'} from {args.notebook}")
    report = make_report(
        args.run,
        which=args.which,
        against=args.against,
        out=args.out,
        again=args.noise,
        notes=notes,
    )
    print(f"{one_line(str(report.zip_path))} ({report.zip_path.stat().st_size / 1e6:.2f} MB)")
    print(f"{one_line(str(report.markdown_path))} (paste into the issue)")
    rep = report.facts.get("pass_reproducer")
    if rep:
        print(rep.get("summary") or f"pass reproducer not made: {rep.get('error')}")
    if report.facts.get("barrier_all"):
        print(report.facts["barrier_all"]["outcome"])
    return 0


def _notebook_notes(notebook: str, run_path: str) -> list[dict[str, Any]]:
    """Notes of the Run's timeline in a saved notebook (titled `name (target)` or `name`)."""
    from ascend_ir_lab.export.notes import notebook_notes
    from ascend_ir_lab.toolchains.common.run import Run

    manifest = Run(run_path).manifest
    name = str(manifest.get("name") or "")
    target = manifest.get("target")
    return notebook_notes(notebook, [name, f"{name} ({target})" if target else name])
