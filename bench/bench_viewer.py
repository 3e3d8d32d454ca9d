"""Viewer speed in Chromium (Playwright): step render on a 10,000-line snapshot, first paint of
a 386-dump payload. Prints numbers; not a timed test.

    python bench/bench_viewer.py [--steps 30]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path
from typing import Any

from ascend_ir_lab.dumps import open_timeline
from ascend_ir_lab.export import build_payload
from ascend_ir_lab.export.html import render_html

ROOT = Path(__file__).resolve().parents[1]
MATMUL = ROOT / "tests" / "data" / "ascend" / "matmul.bishengir.log.gz"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]  # fmt: skip


def big_payload(real: dict[str, Any], n_lines: int = 10_000, n_dumps: int = 40) -> dict[str, Any]:
    """Snapshots of n_lines real IR lines (the matmul module repeated); each dump edits a few."""
    base = real["snapshots"][max(range(len(real["snapshots"])), key=lambda s: len(real["snapshots"][s]))]
    lines = list(real["lines"])
    body = [base[k % len(base)] for k in range(n_lines)]
    snaps, dumps = [], []
    for i in range(n_dumps):
        snap = list(body)
        for k in range(5):  # a handful of edited lines per pass, spread over the snapshot
            at = (i * 997 + k * 1999) % n_lines
            lines.append(f"    %edit{i}_{k} = arith.addi %c{i}, %c{k} : i32")
            snap[at] = len(lines) - 1
        snaps.append(snap)
        body = snap
        dumps.append({"i": i, "stage": 0, "pass": f"Pass{i}", "arg": f"pass-{i}", "phase": "after",
                      "scope": "builtin.module", "snap": i, "prev": i - 1, "changed": True,
                      "lines": n_lines, "truncated": False, "ms": None})  # fmt: skip
    return {**real, "title": "bench 10k", "lines": lines, "snapshots": snaps, "dumps": dumps,
            "stages": real["stages"][:1], "messages": [], "srcmap": [], "notes": []}  # fmt: skip


STEP_JS = """async (key) => {
  const root = document.querySelector('.air-root');
  const t0 = performance.now();
  root.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true}));
  const t1 = performance.now();
  await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  return [t1 - t0, performance.now() - t0];
}"""


def measure_steps(page: Any, view_key: str | None, steps: int) -> tuple[list[float], list[float]]:
    if view_key:
        page.keyboard.press(view_key)
    sync, painted = [], []
    for _ in range(steps):
        a, b = page.evaluate(STEP_JS, "j")
        sync.append(a)
        painted.append(b)
    return sync, painted


def report(name: str, xs: list[float]) -> None:
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, int(0.95 * len(xs)))]
    print(f"{name:44s} median {statistics.median(xs):7.1f} ms   p95 {p95:7.1f} ms   max {xs[-1]:7.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    opts = ap.parse_args()
    from playwright.sync_api import sync_playwright

    real = build_payload(open_timeline(MATMUL), title="matmul (386 dumps)")
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        big = Path(tmp) / "big.html"
        big.write_text(render_html(big_payload(real), title="bench"), encoding="utf-8")
        full = Path(tmp) / "matmul.html"
        full.write_text(render_html(real, title="matmul"), encoding="utf-8")
        browser = pw.chromium.launch(executable_path=opts.chromium, args=ARGS)
        print(f"payload 386 dumps: {full.stat().st_size / 1e6:.2f} MB html; 10k-line bench: {big.stat().st_size / 1e6:.2f} MB html")
        for label in ("IR view", "unified diff", "side by side"):
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(big.as_uri())
            page.wait_for_selector(".air-passname")
            for _ in range(["IR view", "unified diff", "side by side"].index(label)):
                page.keyboard.press("d")
            sync, painted = measure_steps(page, None, opts.steps)
            report(f"step, 10,000-line snapshot, {label} (js)", sync)
            report(f"step, 10,000-line snapshot, {label} (painted)", painted)
            page.close()
        loads = []
        for _ in range(5):
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(full.as_uri())
            page.wait_for_selector(".air-passname")
            loads.append(page.evaluate("""() => {
              const m = performance.getEntriesByName('ascend-ir-lab:mounted')[0];
              const fcp = performance.getEntriesByName('first-contentful-paint')[0];
              return [m ? m.startTime : -1, fcp ? fcp.startTime : -1];
            }"""))
            page.close()
        report("first paint, 386-dump payload (viewer mounted)", [m for m, _ in loads])
        report("first paint, 386-dump payload (FCP)", [f for _, f in loads])
        browser.close()


if __name__ == "__main__":
    main()
