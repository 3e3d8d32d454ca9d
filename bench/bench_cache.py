"""`cache list` and `cache search` over a Triton cache of 10,000 kernel folders.

Goal (issue "Capture that scales"): `ascend-ir-lab cache list` over 10,000 folders in under
2 s. Baseline beside it, whole processes: a bare Python walk that stats the same files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from _common import DATA, WORK, report

FOLDERS = 10_000
WALK = (
    "import os,sys\n"
    "n=0\n"
    "for d in (d for d in os.scandir(sys.argv[1]) if d.is_dir()):\n"
    "    for f in os.scandir(d.path): f.stat(); n+=1\n"
    "print(n)\n"
)


def make_cache(n: int = FOLDERS) -> str:
    """n kernel folders laid out as triton-ascend writes them, with real IR files: half
    named after the kernel (release), half `kernel.*` with metadata json (master)."""
    root = WORK / f"cache-{n}"
    if (root / ".complete").exists():
        return str(root)
    entry = next((DATA / "ascend" / "cache").iterdir())
    ttir = (entry / "vadd.ttir").read_bytes()
    adapter = (entry / "vadd.ttadapter").read_bytes()
    for k in range(n):
        folder = root / f"{k:064x}"
        folder.mkdir(parents=True, exist_ok=True)
        name = f"kernel_{k % 97}"
        stem = name if k % 2 else "kernel"
        (folder / f"{stem}.ttir").write_bytes(ttir.replace(b"vadd", name.encode()))
        (folder / f"{stem}.ttadapter").write_bytes(adapter)
        (folder / f"{stem}.json").write_text(json.dumps({"name": f"{name} aiv"}))
        (folder / f"__grp__{stem}.json").write_text("{}")
    (root / ".complete").touch()
    return str(root)


def timed(argv: list[str], env: dict[str, str]) -> float:
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    root = make_cache()
    env = {**os.environ, "TRITON_CACHE_DIR": root, "TRITON_DUMP_DIR": root + "-none"}
    cli = [sys.executable, "-m", "ascend_ir_lab", "cache"]
    walk = timed([sys.executable, "-c", WALK, root], env)
    ours = timed([*cli, "list"], env)
    report(f"cache list, {FOLDERS} folders", ours, walk, "python walk", "<= 2 s absolute")
    one = timed([*cli, "search", "arith.addf", "--jobs", "1"], env)
    many = timed([*cli, "search", "arith.addf"], env)
    report(f"cache search, {FOLDERS} folders", many, one, "one process", f"{os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
