"""`cache list` and `cache search` over a Triton cache of 10,000 kernel folders.

Goal: `ascend-ir-lab cache list` over 10,000 folders in under 2 s. Baseline beside it, whole
processes: a bare Python walk that stats the same files. A listing keeps an index of the
folders it read (toolchains/common/cache_index.py): the first listing of a cache reads every
folder ("first listing", the index dropped before each try), later ones one stat per folder.
Wall and CPU time of each process (best of 3); both sides import from cached bytecode, as a
user's Python does; the load (`uptime`) is printed before and after.
"""

from __future__ import annotations

import json
import os
import resource
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


def timed(argv: list[str], env: dict[str, str], before: object = None) -> tuple[float, float]:
    """Best (wall, CPU) of 3 runs of `argv`; `before()` is called before each."""
    best = (float("inf"), float("inf"))
    for _ in range(3):
        if callable(before):
            before()
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t
        now = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = now.ru_utime - used.ru_utime + now.ru_stime - used.ru_stime
        best = (min(best[0], wall), min(best[1], cpu))
    return best


def uptime() -> str:
    """The machine's load, as `uptime` says it (timings on a loaded machine are noisy)."""
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def main() -> None:
    from ascend_ir_lab.toolchains.common.cache_index import forget

    root = make_cache()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(TRITON_CACHE_DIR=root, TRITON_DUMP_DIR=root + "-none",
               PYTHONPYCACHEPREFIX=str(WORK / "pycache"))  # fmt: skip
    cli = [sys.executable, "-m", "ascend_ir_lab", "cache"]
    print(f"load before: {uptime()}")
    subprocess.run([*cli, "list"], env=env, check=True, stdout=subprocess.DEVNULL)  # warm
    walk = timed([sys.executable, "-c", WALK, root], env)
    first = timed([*cli, "list"], env, lambda: forget(root, "cache"))
    ours = timed([*cli, "list"], env)
    for what, i in (("wall", 0), ("CPU", 1)):
        report(f"cache list, first listing ({what})", first[i], walk[i], "python walk",
               "<= 2 s absolute")  # fmt: skip
        report(f"cache list, {FOLDERS} folders ({what})", ours[i], walk[i], "python walk",
               "<= 2 s absolute")  # fmt: skip
    one = timed([*cli, "search", "arith.addf", "--jobs", "1"], env)
    many = timed([*cli, "search", "arith.addf"], env)
    report(f"cache search, {FOLDERS} folders", many[0], one[0], "one process",
           f"{os.cpu_count()} CPUs")  # fmt: skip
    print(f"load after:  {uptime()}")


if __name__ == "__main__":
    main()
