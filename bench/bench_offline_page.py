"""Offline page of a ~50 MB upstream-Triton log in Chromium: size, build time, time to paint.

The log is tests/data/triton/attention.cuda90.mlir-dump.txt.gz repeated until it reaches
--mb megabytes; each copy renames the kernel (@attention -> @attention_<k>) so that copies do
not collapse into the same snapshots. Goal: the viewer has painted within 1 s of navigation.

    python bench/bench_offline_page.py [--mb 50] [--loads 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

from _common import WORK, fixture

from ascend_ir_lab.dumps import open_timeline
from ascend_ir_lab.export import build_payload
from ascend_ir_lab.export.html import render_html

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]  # fmt: skip
PAINT_JS = """() => new Promise(done => requestAnimationFrame(() => setTimeout(() => {
  const get = n => { const e = performance.getEntriesByName(n)[0]; return e ? e.startTime : -1; };
  done({parsed: get('ascend-ir-lab:parsed'), mounted: get('ascend-ir-lab:mounted'),
        fcp: get('first-contentful-paint'), painted: performance.now()});
}, 0)))"""


def big_log(mb: float) -> Path:
    """A log of at least `mb` MB from repeated real attention dumps, kernel renamed per copy."""
    one = fixture("triton/attention.cuda90.mlir-dump.txt.gz").decode("utf-8")
    copies = max(1, int(mb * 1e6 // len(one)) + (1 if (mb * 1e6) % len(one) else 0))
    path = WORK / f"attention.x{copies}.mlir-dump.txt"
    if not path.exists():
        WORK.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8") as f:
            for k in range(copies):
                f.write(one.replace("@attention", f"@attention_{k}"))
    return path


def load_times(browser: Any, page_path: Path, loads: int) -> list[dict[str, float]]:
    """Per load: ms from navigation start to payload parsed, viewer mounted, first paint after."""
    out = []
    for _ in range(loads):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.route(
            "**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort()
        )
        page.goto(page_path.as_uri())
        page.wait_for_selector(".air-passname")
        out.append(page.evaluate(PAINT_JS))
        page.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=50)
    ap.add_argument("--loads", type=int, default=5)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    opts = ap.parse_args()
    from playwright.sync_api import sync_playwright

    log = big_log(opts.mb)
    t0 = time.perf_counter()
    payload = build_payload(open_timeline(log), title=log.name)
    t1 = time.perf_counter()
    html = render_html(payload, title=log.name)
    t2 = time.perf_counter()
    page_path = WORK / (log.name + ".html")
    page_path.write_text(html, encoding="utf-8")
    raw = log.stat().st_size
    print(f"log {raw / 1e6:.1f} MB, {len(payload['dumps'])} dumps, {len(payload['snapshots'])} snapshots, "
          f"{len(payload['lines'])} lines")  # fmt: skip
    print(f"page {page_path.stat().st_size / 1e6:.2f} MB = {100 * page_path.stat().st_size / raw:.2f}% of the log; "
          f"open+payload {t1 - t0:.2f} s, render_html {t2 - t1:.2f} s")  # fmt: skip
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=opts.chromium, args=ARGS)
        times = load_times(browser, page_path, opts.loads)
        browser.close()
    for key in ("parsed", "mounted", "fcp", "painted"):
        xs = sorted(t[key] for t in times)
        print(
            f"{key:8s} median {statistics.median(xs):7.1f} ms   max {xs[-1]:7.1f} ms   (goal: painted < 1000 ms)"
        )


if __name__ == "__main__":
    main()
