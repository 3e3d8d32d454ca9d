"""IPython magics (`%load_ext ascend_ir_lab`): `%%triton_npu`, `%ir_diff`, `%ir_load`,
`%ir_cache`, `%ir_report`, `%%mlir_opt`; `%%triton_ir` is `%%triton_npu` by another name.

Glue only: arguments are parsed here and handed to toolchains.ascend.launch, the engine and
notebook.explorer; what comes back is displayed.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any

from IPython.core.interactiveshell import InteractiveShell
from IPython.core.magic import Magics, magics_class

from ascend_ir_lab.errors import InputError, LaunchFailedError, NoDumpsError
from ascend_ir_lab.notebook.explorer import RunView
from ascend_ir_lab.notebook.glue import cell_error, friendly, magic_args, run_nested
from ascend_ir_lab.notebook.ipython_api import (
    Markdown,
    argument,
    cell_magic,
    display,
    line_magic,
    magic_arguments,
)
from ascend_ir_lab.notebook.listings import RunViews, cache_table, collection_table
from ascend_ir_lab.notebook.progress import CompileProgress
from ascend_ir_lab.notebook.resolve import Session
from ascend_ir_lab.runs import safe_name

__all__ = ["IRLabMagics", "load_ipython_extension"]


def _flag(text: str) -> str:
    return text if text.startswith("-") else "--" + text


@magics_class
class IRLabMagics(Magics):
    """The ascend-ir-lab magics; Runs made or loaded in this session are kept in `.session`."""

    def __init__(self, shell: Any) -> None:
        super().__init__(shell)
        self.session = Session(shell)

    @property
    def _ip(self) -> InteractiveShell:
        """The shell the magics run in (a loaded extension always has one)."""
        if self.shell is None:
            raise InputError("the ascend-ir-lab magics need an IPython shell")
        return self.shell

    @magic_arguments()
    @argument(
        "--target",
        help="Ascend910B3 (the default where triton is triton-ascend), or cuda:90, cuda:80, "
        "hip:gfx942 for upstream Triton (in its venv, .venv-gpu; the default there: this "
        "host's GPU, else cuda:90)",
    )
    @argument(
        "--barrier-all",
        action="store_true",
        help="replace fine-grained sync with barriers (--enable-hivm-inject-barrier-all-sync)",
    )
    @argument(
        "--flag",
        action="append",
        default=[],
        metavar="F",
        help="extra bishengir-compile flag, repeatable; write --flag=--name=value "
        "(or --flag name=value)",
    )
    @argument("--name", help="name of the Run (default: the kernel's name)")
    @argument(
        "--module-scope",
        action="store_true",
        help="print whole modules at every pass (needed for pass reproducers)",
    )
    @argument(
        "--no-line-info",
        action="store_true",
        help="compile without line info (TRITON_DISABLE_LINE_INFO unset): no source panel past ttir",
    )
    @argument(
        "--kernel",
        action="append",
        metavar="NAME",
        help="compile only this kernel (repeatable); with --signature, the kernel to compile",
    )
    @argument("--signature", help="compile a kernel that is only defined: 'x_ptr=*fp32,n=i32,...'")
    @argument(
        "--constexpr",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="constexpr values with --signature, e.g. BLOCK=1024 (repeatable)",
    )
    @argument(
        "--interpret",
        action="store_true",
        help="also run each launch on the CPU in Triton's interpreter (TRITON_INTERPRET=1)",
    )
    @argument(
        "--configs",
        metavar="I,J",
        help="autotune configs (0-based) to capture every pass of; default: the one that runs",
    )
    @argument(
        "--llvm",
        action="store_true",
        help="upstream targets: also LLVM's pass dumps (slow; MLIR passes are always captured)",
    )
    @argument(
        "--all-passes",
        action="store_true",
        help="upstream targets: every distinct compile keeps its passes (default: the first of "
        "each kernel and argument types; the others are cheap records, run.capture() away)",
    )
    @argument(
        "--no-virtual-npu",
        action="store_true",
        help="with no NPU, run the cell as is: no torch_npu, no device='npu' (the virtual NPU "
        "is on by default there); upstream targets with no GPU: no virtual GPU either",
    )
    @argument(
        "--keep-going",
        action="store_true",
        help="a failed compile, launch or interpreter run does not fail the cell",
    )
    @argument("--runs-dir", help="folder for the Run folders (default ./.ascend_ir_lab/runs)")
    @cell_magic
    @friendly
    def triton_npu(self, line: str, cell: str) -> Any:
        """Run the cell; compile every Triton kernel it launches for an Ascend NPU into a Run.

        With no NPU, launches are taken over: the kernel is compiled offline with the
        argument types of the call and the launch is skipped (with --interpret it runs in
        Triton's CPU interpreter instead). Returns the Run's view (`run = _`), displayed as
        the explorer. With no NPU the cell runs on a virtual NPU (`import torch_npu`,
        device='npu', torch.npu.*, triton's driver queries work; tensors live on the CPU),
        unless --no-virtual-npu. A failed compile, launch or interpreter run keeps its panel
        and fails the cell (Run All stops there), unless --keep-going.

        With --target cuda:90, cuda:80 or hip:gfx942 (in a kernel of .venv-gpu, where
        upstream Triton lives) the cell runs under upstream Triton: a launch with tensors on
        this host's GPU runs for real and is recorded (grid, shapes, dtypes); numpy arrays or
        CPU tensors are cross-compiled for the target and the launch is skipped.
        """
        from ascend_ir_lab.toolchains.ascend.launch import (
            compile_defined,
            intercept_launches,
            npu_available,
        )
        from ascend_ir_lab.toolchains.ascend.virtual_npu import summary_line, virtual_npu
        from ascend_ir_lab.toolchains.common.outcome import (
            failure_message,
            failures,
            missing_triton_modules,
        )
        from ascend_ir_lab.toolchains.triton.environment import (
            is_upstream_target,
            upstream_triton_here,
        )

        args = magic_args(self.triton_npu, line)
        if args is None:
            return None
        if is_upstream_target(args.target) or (args.target is None and upstream_triton_here()):
            from ascend_ir_lab.notebook.upstream import run_upstream_cell

            return run_upstream_cell(self, args, cell)
        progress = CompileProgress()
        settings = dict(
            target=args.target or "Ascend910B3",
            barrier_all=args.barrier_all,
            bishengir_flags=[_flag(f) for f in args.flag],
            module_scope=args.module_scope,
            line_info=not args.no_line_info,
            name=args.name,
            runs_dir=args.runs_dir,
            progress=progress,
        )
        before = dict(self._ip.user_ns)
        configs = [int(c) for c in args.configs.split(",")] if args.configs else None
        with contextlib.ExitStack() as stack:
            missing = stack.enter_context(missing_triton_modules())
            if not args.no_virtual_npu and not npu_available():
                print(summary_line(args.interpret))
                stack.enter_context(virtual_npu(settings["target"]))
            cap = stack.enter_context(
                intercept_launches(
                    interpret=args.interpret, kernels=args.kernel, configs=configs, **settings
                )
            )
            outcome = run_nested(self._ip, cell)
            if getattr(outcome, "error_in_exec", None) is not None:
                cap.stop_pending()  # Ctrl-C or an error in the cell: no compile left running
        runs = [(r, [ln for ln in cap.launches if ln.run is r]) for r in cap.runs]
        if args.signature:
            for fn in self.defined_kernels(args.kernel, before):
                run = compile_defined(
                    fn, signature=args.signature, constexprs=args.constexpr, **settings
                )
                runs.append((run, []))
        failed = failures(cap) + cell_error(outcome, missing)
        if failed and not args.keep_going:
            self.show_runs(runs, cap.errors, show_last=True)
            raise LaunchFailedError(
                failure_message(failed, "this cell", "(%%triton_npu --keep-going runs on)")
            )
        return self.show_runs(runs, cap.errors)

    def show_runs(
        self,
        runs: list[tuple[Any, list[Any]]],
        errors: list[BaseException],
        show_last: bool = False,
    ) -> Any:
        """Add the Runs to the session and return them: one Run's view, or a RunViews of
        every Run the cell made (displayed one after the other). With `show_last` (a failing
        cell returns nothing) every Run is displayed instead. A Run that failed before any
        IR (a kernel triton's frontend refused) has no view: its failure is shown already."""
        views = []
        for run, launches in runs:
            try:
                view = RunView.of(run, launches)
            except NoDumpsError:
                continue
            views.append(self.session.add(view))
        if show_last:
            for view in views:
                display(view)
            return None
        if not views:
            if not errors:
                print(
                    "no Triton launch in this cell: launch a kernel (kernel[grid](...)), or "
                    "compile one that is only defined with --signature ... [--kernel NAME]",
                    file=sys.stderr,
                )
            return None
        if len(views) > 1:
            display(collection_table([view.run for view in views]))
        full = [v for v in views if v.run is None or v.run.passes_captured] or views
        return full[0] if len(full) == 1 else RunViews(full)

    def defined_kernels(self, names: list[str] | None, before: dict[str, Any]) -> list[Any]:
        """The kernels `--kernel NAMES` names, else the one kernel the cell defined anew."""
        ns = self._ip.user_ns
        if names:
            missing = [n for n in names if n not in ns]
            if missing:
                raise InputError(f"--kernel {missing[0]}: no such name in the notebook")
            return [ns[n] for n in names]
        new = [
            v
            for k, v in ns.items()
            if hasattr(v, "params") and hasattr(v, "fn") and before.get(k) is not v
        ]
        if len(new) != 1:
            found = ", ".join(getattr(v.fn, "__name__", "?") for v in new) or "none"
            raise InputError(
                f"--signature: name the kernel with --kernel NAME "
                f"(kernels defined in this cell: {found})"
            )
        return new

    @magic_arguments()
    @argument(
        "a", help="a Run (variable or name), RUN:PASS[#k], or a pass/dump index of the latest Run"
    )
    @argument("b", nargs="?", help="the same forms; left out: what A's pass changed")
    @argument("-n", "--normalize", help="ignore differences: loc, ssa or loc,ssa")
    @argument("-U", "--context", type=int, default=3, help="lines of context (default 3)")
    @argument("--noise", action="append", help="another build of A: passes that vary are noise")
    @argument("--rebuild", action="store_true", help="compile A again to measure its noise")
    @line_magic
    @friendly
    def ir_diff(self, line: str) -> Any:
        """Diff two passes, a pass against its previous state, or two whole Runs (aligned).

        `%ir_diff fine barrier` compares two Runs pass by pass (passes on one side only, first
        divergence); `%ir_diff fine:hivm-graph-sync-solver barrier` diffs that pass across
        the Runs; `%ir_diff cse#2` shows what the second cse of the latest Run changed.
        """
        args = magic_args(self.ir_diff, line)
        if args is None:
            return None
        return self.session.diff(
            args.a, args.b, normalize=args.normalize, context=args.context,
            noise=args.noise, rebuild=args.rebuild,
        )  # fmt: skip

    @magic_arguments()
    @argument(
        "path",
        help="a log, --mlir-print-ir-tree-dir folder, Triton cache/dump folder or Run folder",
    )
    @argument("--name", help="name to refer to it by in %%ir_diff")
    @line_magic
    @friendly
    def ir_load(self, line: str) -> Any:
        """Open compiler output into the explorer."""
        args = magic_args(self.ir_load, line)
        if args is None:
            return None
        return self.session.add(RunView.load(args.path, name=args.name))

    @magic_arguments()
    @argument("key", nargs="?", help="open this entry (key prefix, kernel name, or 'latest')")
    @argument("--limit", type=int, default=20, help="entries to list (default 20)")
    @line_magic
    @friendly
    def ir_cache(self, line: str) -> Any:
        """The Triton cache and dump folders, newest first; with KEY, open that kernel."""
        from ascend_ir_lab.toolchains.common import cache

        args = magic_args(self.ir_cache, line)
        if args is None:
            return None
        entries = cache.list_entries()
        if args.key:
            entry = cache.find_entry(args.key, entries)
            return self.session.add(RunView.load(entry.path, name=entry.name))
        return cache_table(entries, args.limit)

    @magic_arguments()
    @argument("run", nargs="?", help="the Run to report (variable or name; default: the latest)")
    @argument("--pass", dest="which", help="add the bishengir-opt reproducer of this pass")
    @argument("--against", help="a barrier-all Run to compare with")
    @argument("-o", "--out", help="zip to write (default: <run>-report.zip beside the Runs)")
    @line_magic
    @friendly
    def ir_report(self, line: str) -> Any:
        """Bug-report bundle: reproducer, logs, environment, barrier-all verdict, notes, HTML."""
        args = magic_args(self.ir_report, line)
        if args is None:
            return None
        view = self.session.run(args.run) if args.run else self.session.latest()
        if view is None:
            raise InputError(f"no Run named {args.run!r}; known: {', '.join(self.session.names())}")
        against = self.session.run(args.against) if args.against else None
        if args.against and against is None:
            raise InputError(f"no Run named {args.against!r}")
        # the default name comes from the safe form of the Run's name: it never leaves the folder
        out = args.out or str(Path(view.run.path).parent / f"{safe_name(view.name)}-report.zip")
        report = view.report(out, which=args.which, against=against)
        return Markdown(report.markdown + f"\n\n*Bundle: `{report.zip_path}`*")


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics (`%%triton_ir` is `%%triton_npu` under a target-neutral name) and
    the HTML form of a Run comparison."""
    from ascend_ir_lab.analysis.compare import Comparison
    from ascend_ir_lab.notebook.opt_magic import OptMagics
    from ascend_ir_lab.notebook.text import comparison_html

    magics = IRLabMagics(ipython)
    ipython.register_magics(magics)
    ipython.register_magics(OptMagics(ipython, magics.session))
    ipython.magics_manager.register_alias("triton_ir", "triton_npu", "cell")
    ipython.display_formatter.formatters["text/html"].for_type(Comparison, comparison_html)
