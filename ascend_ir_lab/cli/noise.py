"""`determinism`: which passes print different IR across identical compiles; and the noise
of a `diff A --against B` (`--noise A2`, `--rebuild`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ascend_ir_lab.errors import InputError

if TYPE_CHECKING:
    from ascend_ir_lab.analysis.noise import Noise
    from ascend_ir_lab.dumps import Timeline

# Registered at start-up by every command: the analysis is imported when it runs.


def register(sub: Any) -> None:
    """Add `determinism`."""
    p = sub.add_parser(
        "determinism",
        help="compile a kernel N times and report which passes give different output",
        description="Identical compiles, compared pass by pass (raw and canonical form).",
    )
    p.add_argument(
        "kernel", metavar="KERNEL", help="a Run folder, or FILE.py[::KERNEL] with a COMPILE dict"
    )
    p.add_argument("-n", type=int, default=5, help="how many builds in all (default 5)")
    p.add_argument("--barrier-all", action="store_true", help="for FILE.py: barrier-all builds")
    p.add_argument("-o", "--out", metavar="DIR", help="keep the builds here (default: a temp dir)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_determinism)


def add_noise_options(p: argparse.ArgumentParser) -> None:
    """`--noise PATH` (repeatable) and `--rebuild` for `diff --against`."""
    p.add_argument(
        "--noise", action="append", default=[], metavar="A2",
        help="another build of PATH: passes that differ between the two are noise",
    )  # fmt: skip
    p.add_argument(
        "--rebuild", action="store_true",
        help="compile PATH (a Run) once more, or reuse PATH/noise/again-*, to measure its noise",
    )  # fmt: skip


def noise_of(args: argparse.Namespace, a: Timeline) -> Noise | None:
    """The noise of A from `--noise` builds, a build kept in RUN/noise/ (reused by itself),
    or one `--rebuild` compiles; None when there is none."""
    from ascend_ir_lab.toolchains.ascend.rebuild import rebuild, sibling_builds

    paths = [Path(p) for p in args.noise]
    reuse = sibling_builds(args.path) if (Path(args.path) / "run.json").is_file() else []
    if reuse and (args.rebuild or not paths):  # a second build kept beside the Run
        print(f"# noise: reusing {reuse[0]}", file=sys.stderr)
        paths.append(reuse[0])
    elif args.rebuild:
        target = Path(args.path) / "noise" / "again-1"
        print(f"# noise: compiling {args.path} again into {target}", file=sys.stderr)
        paths.append(rebuild(args.path, target).path)
    if not paths:
        return None
    from ascend_ir_lab.analysis.noise import measure_noise
    from ascend_ir_lab.dumps import open_timeline

    return measure_noise([a, *(open_timeline(p) for p in paths)])


def cmd_determinism(args: argparse.Namespace) -> int:
    if args.n < 2:
        raise InputError(f"-n {args.n}: at least 2 builds are needed to compare")
    import tempfile

    with tempfile.TemporaryDirectory(prefix="ascend-ir-lab-determinism-") as tmp:
        root = Path(args.out) if args.out else Path(tmp)
        builds = _builds(args, root)
        from ascend_ir_lab.analysis.noise import measure_noise
        from ascend_ir_lab.dumps import open_timeline

        noise = measure_noise([open_timeline(r.path) for r in builds])
    if args.json:
        import json  # --json only: start-up stays small

        json.dump(noise.as_json(), sys.stdout, indent=1)
        print()
    else:
        print("\n".join(noise.lines()))
    return 0


def _builds(args: argparse.Namespace, root: Path) -> list[Any]:
    from ascend_ir_lab.toolchains.ascend.rebuild import rebuilds
    from ascend_ir_lab.toolchains.common.run import Run

    def say(k: int) -> None:
        print(f"# build {k + 1} of {args.n}", file=sys.stderr)

    if (Path(args.kernel) / "run.json").is_file():
        first = Run(args.kernel)
    else:
        first = _compile_first(args, root / "build-1")
    return [first, *rebuilds(first, args.n - 1, root, progress=say)]


def _compile_first(args: argparse.Namespace, out: Path) -> Any:
    from ascend_ir_lab.toolchains.ascend.compile import compile_kernel
    from ascend_ir_lab.toolchains.triton.compile import compile_spec

    print(f"# build 1 of {args.n}", file=sys.stderr)
    named, signature, constexprs = compile_spec(args.kernel.split("::")[0])
    return compile_kernel(
        named, signature=signature, constexprs=constexprs, barrier_all=args.barrier_all,
        module_scope=True, out=out, check=False,
    )  # fmt: skip
