"""`%%mlir_opt TOOL --pass-pipeline '...'`: the MLIR in the cell through any opt tool, as a Run.

Glue only: the cell is written to a file and handed to toolchains.common.opt.run_opt (the tool runs
with --mlir-print-ir-after-all, and --mlir-timing where it has it); the Run is shown in the
explorer and joins the session, so `%ir_diff` reaches it by name.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from IPython.core.magic import Magics, magics_class

from ascend_ir_lab.errors import CompilerError, InputError, NoDumpsError
from ascend_ir_lab.notebook.explorer import RunView
from ascend_ir_lab.notebook.glue import friendly, magic_args
from ascend_ir_lab.notebook.ipython_api import argument, cell_magic, display, magic_arguments
from ascend_ir_lab.notebook.text import ErrorPanel

__all__ = ["OptMagics"]


@magics_class
class OptMagics(Magics):
    """`%%mlir_opt`; its Runs join the session of the other magics."""

    def __init__(self, shell: Any, session: Any) -> None:
        super().__init__(shell)
        self.session = session

    @magic_arguments()
    @argument("tool", help="bishengir-opt, mlir-opt, triton-opt, iree-opt... (name or path)")
    @argument(
        "--pass-pipeline", help="e.g. 'builtin.module(canonicalize,cse)' or 'cse,canonicalize'"
    )
    @argument(
        "--tool-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="extra argument for the tool (repeatable), e.g. --tool-arg=-cse",
    )
    @argument("--no-timing", action="store_true", help="do not pass --mlir-timing")
    @argument("--name", help="name of the Run (default: TOOL-cell)")
    @argument("--runs-dir", help="folder for the Run folders (default ./.ascend_ir_lab/runs)")
    @cell_magic
    @friendly
    def mlir_opt(self, line: str, cell: str) -> Any:
        """Run the MLIR in this cell through TOOL, printing the IR after every pass, into a Run.

        The tool's failure (a pass that fails, a parse error) shows as a panel with the
        command and the diagnostics; the Run is shown all the same, up to the failing pass.
        """
        from ascend_ir_lab.toolchains.common.launch import fresh_folder
        from ascend_ir_lab.toolchains.common.opt import find_opt_tool, run_opt
        from ascend_ir_lab.toolchains.common.run import Run

        args = magic_args(self.mlir_opt, line)
        if args is None:
            return None
        if not cell.strip():
            raise InputError("%%mlir_opt: the cell holds no MLIR; write the module below the magic")
        tool = find_opt_tool(args.tool)
        name = args.name or f"{tool.name}-cell"
        folder = fresh_folder(name, args.runs_dir)
        with tempfile.TemporaryDirectory(prefix="ascend-ir-lab-opt-") as tmp:
            source = Path(tmp) / f"{name}.mlir"
            source.write_text(cell)
            try:
                run = run_opt(tool, source, args.pass_pipeline, extra_args=args.tool_arg,
                              timing=not args.no_timing, name=name, out=folder)  # fmt: skip
            except CompilerError as exc:
                display(ErrorPanel(exc, name))
                run = Run(folder)
        try:
            return self.session.add(RunView.of(run))
        except NoDumpsError:
            return None  # failed before its first pass: the panel says why
