"""Execute the notebooks under notebooks/ with nbclient, as CI does; print the time of each.

    python scripts/run_notebooks.py [NOTEBOOK ...] [--write] [--timeout 600]

Runs land in a temporary folder ($ASCEND_IR_LAB_RUNS) unless it is already set. With
--write, the executed notebooks (outputs included) are written next to the originals as
*.executed.ipynb. Exit status 1 when a cell fails.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def execute(path: Path, *, timeout: int = 600) -> tuple[Any, float]:
    """Run every cell of `path` in a fresh python3 kernel; (executed notebook, seconds)."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    start = time.perf_counter()
    client.execute()
    return nb, time.perf_counter() - start


def errors(nb: Any) -> list[str]:
    """'cell N: Ename: value' for each error output of an executed notebook."""
    found = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                found.append(f"cell {i}: {out.get('ename')}: {out.get('evalue')}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--write", action="store_true", help="save *.executed.ipynb")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted(NOTEBOOKS.glob("[0-9]*.ipynb"))
    os.environ.setdefault("ASCEND_IR_LAB_RUNS", tempfile.mkdtemp(prefix="ascend-ir-lab-runs-"))
    failed = False
    for path in paths:
        from nbclient.exceptions import CellExecutionError

        try:
            nb, seconds = execute(path, timeout=args.timeout)
        except CellExecutionError as exc:
            print(f"FAIL {path.name}: {str(exc).splitlines()[0]}")
            failed = True
            continue
        print(f"ok   {path.name}: {len(nb.cells)} cells in {seconds:.1f} s")
        if args.write:
            import nbformat

            nbformat.write(nb, path.with_suffix(".executed.ipynb"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
