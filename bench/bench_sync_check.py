"""The sync checker measured on real compiles: findings on correct builds, mutations found,
run-to-run noise. Prints the Markdown table of docs/sync-checker.md.

For each kernel (tests/kernels and tests/kernels/extra, or the FILE.py arguments) it compiles a
fine-grained and a barrier-all build with the real tools (whole `ascend-ir-lab` processes,
as a user runs them; builds are kept in bench/.work/sync and reused, `--fresh` recompiles),
then

- `sync RUN --check --json` on both: definite / possible findings over the checked Dumps
  (after the sync pass and the final HIVM IR); on barrier-all builds the definite findings
  that are a scalar access (PIPE_S) are counted apart: the installed bishengir's barrier-all
  mode puts no barrier before `memref.load`/`memref.store` (docs/sync-checker.md);
- `sync RUN FINAL --mutate --json` on the fine build's final HIVM IR: which of the four kinds
  of break were found (k/4 of the kinds that have a site) and how many sites in all;
- `determinism RUN -n 3 --json`: passes whose canonical IR differs across identical compiles.

Goal: no definite finding on fine builds, none on barrier-all builds but the scalar-access
ones, every kind of mutation found, every kernel deterministic in canonical form.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from _common import ROOT, WORK

KINDS = ("delete-wait", "delete-set", "move-wait", "drop-barrier")
BASE = ("vadd", "softmax", "layernorm", "matmul", "attention")


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """One `ascend-ir-lab` process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "ascend_ir_lab", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)


def build(kernel: Path, barrier: bool, fresh: bool) -> Path | None:
    """The Run of one compile (reused unless `fresh`); None unless its HIVM IR is complete."""
    out = WORK / "sync" / f"{kernel.stem}-{'barrier' if barrier else 'fine'}"
    if fresh or not (out / "run.json").is_file():
        flags = ["--barrier-all"] if barrier else []
        cli("compile", str(kernel), "--module-scope", *flags, "-o", str(out))
    try:
        status = json.loads((out / "run.json").read_text())["status"]["code"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return out if status in ("ir-complete-no-binary", "ok") else None


def check(run: Path) -> tuple[int, int, int, int | None]:
    """(definite, possible, definite scalar-access, final Dump index) over the checked Dumps."""
    got = cli("sync", str(run), "--check", "--json")
    data = json.loads(got.stdout)
    findings = [f for fs in data["dumps"].values() for f in fs]
    definite = [f for f in findings if f["severity"] == "definite"]
    scalar = [f for f in definite if "PIPE_S" in f["pipes"] and f["kind"] == "hazard"]
    final = max((int(k) for k in data["dumps"]), default=None)
    return len(definite), len(findings) - len(definite), len(scalar), final


def mutate(run: Path, final: int) -> tuple[Counter[str], Counter[str]]:
    """(tried, found) per kind of mutation on one Dump."""
    got = cli("sync", str(run), str(final), "--mutate", "--json")
    results = [r for rs in json.loads(got.stdout).values() for r in rs]
    tried = Counter(r["kind"] for r in results)
    return tried, Counter(r["kind"] for r in results if r["found"])


def determinism(run: Path) -> str:
    """'yes' when 3 identical compiles agree in canonical form, else the noisy passes."""
    got = cli(
        "determinism", str(run), "-n", "3", "--json", "-o", str(run.parent / f"{run.name}-det")
    )
    if got.returncode != 0:
        return "error: " + (got.stderr.strip().splitlines() or ["?"])[-1]
    data = json.loads(got.stdout)
    if data["deterministic"]:
        return f"yes ({len(data['raw'])} dumps print differently)"
    first = data["sources"][0]["pass"] if data["sources"] else "?"
    return f"no: {len(data['noisy'])} dumps differ, from {first}"


def kernels(args: list[str]) -> list[Path]:
    """The kernels named, or every test kernel."""
    if args:
        return [Path(a) for a in args]
    here = ROOT / "tests" / "kernels"
    return [here / f"{n}.py" for n in BASE] + sorted((here / "extra").glob("*.py"))


def row(kernel: Path, fresh: bool) -> str:
    """One line of the table."""
    fine, barrier = build(kernel, False, fresh), build(kernel, True, fresh)
    if fine is None or barrier is None:
        return f"| {kernel.stem} | compile failed | | | | |"
    fd, fp, _, final = check(fine)
    bd, bp, bs, _ = check(barrier)
    assert final is not None
    tried, found = mutate(fine, final)
    kinds = [k for k in KINDS if tried[k]]
    k_of_4 = sum(1 for k in kinds if found[k])
    sites = f"{sum(found.values())}/{sum(tried.values())}"
    missing = ", ".join(f"{k} {found[k]}/{tried[k]}" for k in kinds if found[k] < tried[k])
    muts = f"{k_of_4}/{len(kinds)} kinds, {sites} sites" + (
        f" (missed: {missing})" if missing else ""
    )
    scalar = f" ({bs} scalar)" if bs else ""
    return f"| {kernel.stem} | {fd} / {fp} | {bd}{scalar} / {bp} | {muts} | {determinism(fine)} |"


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--fresh"]
    fresh = "--fresh" in sys.argv
    print("| kernel | fine: definite / possible | barrier-all: definite / possible "
          "| mutations found (fine, final IR) | deterministic (3 builds, canonical) |")  # fmt: skip
    print("|---|---|---|---|---|")
    for kernel in kernels(args):
        print(row(kernel, fresh), flush=True)


if __name__ == "__main__":
    main()
