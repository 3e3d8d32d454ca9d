"""Reading a 200 MB real log vs `grep -c 'IR Dump'`; memory; changed flags of a 386-dump log.

Goals (issue "Foundation"): read at most 3x grep's time, peak Python memory under half the
file size, changed flags under 50 ms after reading.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import tracemalloc

from _common import WORK, best_of, fixture, report

from ascend_ir_lab.dumps import index_cache, open_timeline, read_log

# Every read here is a first read: no index kept from the one before (bench_cli times both).
index_cache.INDEX_FROM = 1 << 62


def big_log(target_mb: int = 200) -> str:
    """A real bishengir module-scope log repeated to about `target_mb` MB."""
    WORK.mkdir(exist_ok=True)
    path = WORK / f"big-{target_mb}mb.log"
    if not path.exists() or path.stat().st_size < target_mb << 20:
        chunk = fixture("ascend/matmul.bishengir.log.gz")
        with path.open("wb") as f:
            for _ in range((target_mb << 20) // len(chunk) + 1):
                f.write(chunk)
    return str(path)


def main() -> None:
    path = big_log(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
    size = __import__("os").path.getsize(path)
    subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)  # warm the page cache
    grep = best_of(
        lambda: subprocess.run(["grep", "-c", "IR Dump", path], capture_output=True, check=True)
    )
    ours = best_of(lambda: open_timeline(path))
    report(f"read {size / 2**20:.0f} MB log", ours, grep, "grep -c", "<= 3x")

    gc.collect()
    tracemalloc.start()
    tl = open_timeline(path)
    _, peak_read = tracemalloc.get_traced_memory()
    flags = tl.changed_flags()
    _, peak_flags = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"{'memory (Python heap, peak)':<34} read {peak_read / 2**20:7.1f} MB, with changed flags "
        f"{peak_flags / 2**20:7.1f} MB; file {size / 2**20:.0f} MB; ratio "
        f"{peak_flags / size:.3f}   goal < 0.5   ({len(tl.dumps)} dumps, {sum(flags)} changed)"
    )

    small = str(WORK.parent.parent / "tests" / "data" / "ascend" / "matmul.bishengir.log.gz")
    read_only = best_of(lambda: read_log(small))

    def read_and_flag() -> None:
        read_log(small).changed_flags()

    with_flags = best_of(read_and_flag)
    flags_ms = (with_flags - read_only) * 1000
    n = len(read_log(small).dumps)
    print(
        f"{'changed flags, ' + str(n) + '-dump log':<34} {flags_ms:9.2f} ms after reading   goal < 50 ms"
    )


if __name__ == "__main__":
    main()
