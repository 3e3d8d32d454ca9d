"""Viewer speed in Chromium (Playwright): step render on a 10,000-line snapshot, first paint of
a 386-dump payload. Prints numbers; not a timed test.

    python bench/bench_viewer.py [--steps 30] [--rounds 1]
    python bench/bench_viewer.py --against 84fde19     # this tree vs the viewer of a commit

With --against, pages with either bundle are measured in turn, round after round, so both see
the same machine load (the numbers move a lot on a shared machine; compare within one run).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ascend_ir_lab.dumps import open_timeline
from ascend_ir_lab.export import build_payload
from ascend_ir_lab.export import html as html_export
from ascend_ir_lab.export.html import render_html

ROOT = Path(__file__).resolve().parents[1]
MATMUL = ROOT / "tests" / "data" / "ascend" / "matmul.bishengir.log.gz"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]  # fmt: skip


def big_payload(real: dict[str, Any], n_lines: int = 10_000, n_dumps: int = 40) -> dict[str, Any]:
    """Snapshots of n_lines real IR lines (the matmul module repeated); each dump edits a few."""
    base = real["snapshots"][
        max(range(len(real["snapshots"])), key=lambda s: len(real["snapshots"][s]))
    ]
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
            "stages": real["stages"][:1], "messages": [], "srcmap": [], "notes": [],
            "sync_check": {"dumps": {}}}  # fmt: skip


# One step, timed in the page: the key handler (js); the end of the first frame after it, when
# style, layout and paint of that frame are done (painted: rAF, then a message task, which runs
# after the frame's rendering); and the start of the frame after that (2x rAF). Both painted
# figures include the wait for the next frame, which a no-op key shows on its own (floor).
# With atFrame the key is pressed at the start of a frame (in a rAF callback), so "painted" is
# the work alone: handler, style, layout and paint, with no wait for a frame.
# coloured: rows past a frame's colouring budget are drawn plain (.air-plain) and coloured in
# the frames after; this is the end of the first frame that paints no plain row.
STEP_JS = """async ([key, atFrame]) => {
  const root = document.querySelector('.air-root');
  const plain = () => document.querySelector('.air-plain') !== null;
  await new Promise(r => (atFrame ? requestAnimationFrame(r) : setTimeout(r, 0)));
  const t0 = performance.now();
  root.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true}));
  const t1 = performance.now();
  // the next frame: its start (rAF), its end (a message task after its rendering), and
  // whether it painted rows still plain (read before its rendering)
  const frame = () => new Promise(resolve => requestAnimationFrame(() => {
    const start = performance.now();
    const drawnPlain = plain();
    const ch = new MessageChannel();
    ch.port1.onmessage = () => resolve([start, performance.now(), drawnPlain]);
    ch.port2.postMessage(0);
  }));
  const [, painted, plain1] = await frame();
  let [twoRaf, coloured, left] = await frame();
  if (!plain1) {
    coloured = painted;
  }
  while (left) {
    [, coloured, left] = await frame();
  }
  return [t1 - t0, painted - t0, twoRaf - t0, coloured - t0];
}"""


def measure_steps(
    page: Any, key: str, steps: int, at_frame: bool = False
) -> tuple[list[float], list[float], list[float], list[float]]:
    sync: list[float] = []
    painted: list[float] = []
    two_raf: list[float] = []
    coloured: list[float] = []
    for _ in range(steps):
        a, b, c, d = page.evaluate(STEP_JS, [key, at_frame])
        sync.append(a)
        painted.append(b)
        two_raf.append(c)
        coloured.append(d)
    return sync, painted, two_raf, coloured


def report(name: str, xs: list[float]) -> None:
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, int(0.95 * len(xs)))]
    med = statistics.median(xs)
    print(f"{name:58s} median {med:6.1f} ms   p95 {p95:6.1f} ms   max {xs[-1]:6.1f} ms")


VIEWS = ["IR view", "unified diff", "side by side"]
METRICS = ["js", "painted", "2x rAF", "coloured", "work to paint"]


def bundle_at(rev: str) -> Callable[[str], str]:
    """html._static as it was at a commit: the viewer bundle and CSS of that revision."""

    def static(name: str) -> str:
        path = f"ascend_ir_lab/static/{name}"
        show = ["git", "-C", str(ROOT), "show", f"{rev}:{path}"]
        return subprocess.run(show, capture_output=True, text=True, check=True, timeout=60).stdout

    return static


def write_pages(tmp: Path, tag: str, payloads: dict[str, dict[str, Any]]) -> dict[str, Path]:
    out = {}
    for name, payload in payloads.items():
        out[name] = tmp / f"{tag}-{name}.html"
        out[name].write_text(render_html(payload, title=name), encoding="utf-8")
    return out


def step_round(browser: Any, page_path: Path, steps: int, res: dict[str, list[float]]) -> None:
    def open_view(label: str) -> Any:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(page_path.as_uri())
        page.wait_for_selector(".air-passname")
        for _ in range(VIEWS.index(label)):
            page.keyboard.press("d")
        return page

    for label in VIEWS:
        page = open_view(label)
        if label == "IR view":
            _, floor, floor2, _ = measure_steps(page, "x", steps)  # unbound key: no work
            res["floor"] += floor
            res["floor2"] += floor2
        sync, painted, two_raf, coloured = measure_steps(page, "j", steps)
        page.close()
        page = open_view(label)  # a fresh page: the same cold steps, pressed at frame start
        _, work, _, _ = measure_steps(page, "j", steps, at_frame=True)
        page.close()
        for metric, xs in zip(METRICS, (sync, painted, two_raf, coloured, work), strict=True):
            res[f"{label}|{metric}"] += xs


def first_paints(browser: Any, page_path: Path, res: dict[str, list[float]]) -> None:
    for _ in range(5):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(page_path.as_uri())
        page.wait_for_selector(".air-passname")
        page.wait_for_timeout(100)
        mounted, fcp = page.evaluate("""() => {
          const m = performance.getEntriesByName('ascend-ir-lab:mounted')[0];
          const fcp = performance.getEntriesByName('first-contentful-paint')[0];
          return [m ? m.startTime : -1, fcp ? fcp.startTime : -1];
        }""")
        res["mounted"].append(mounted)
        if fcp >= 0:
            res["fcp"].append(fcp)
        page.close()


def print_results(tag: str, res: dict[str, list[float]]) -> None:
    print(f"--- {tag}")
    report("no-op key (floor: wait for the next frame)", res["floor"])
    report("no-op key (floor, 2x rAF)", res["floor2"])
    for label in VIEWS:
        for metric in METRICS:
            report(f"step, 10,000-line snapshot, {label} ({metric})", res[f"{label}|{metric}"])
    report("first paint, 386-dump payload (viewer mounted)", res["mounted"])
    if res["fcp"]:
        report("first paint, 386-dump payload (FCP)", res["fcp"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=None, help="default 1, or 3 with --against")
    ap.add_argument(
        "--against", metavar="REV", help="also measure the viewer bundle of this commit"
    )
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    opts = ap.parse_args()
    rounds = opts.rounds or (3 if opts.against else 1)
    from playwright.sync_api import sync_playwright

    real = build_payload(open_timeline(MATMUL), title="matmul (386 dumps)")
    payloads = {"big": big_payload(real, n_dumps=max(40, opts.steps + 2)), "matmul": real}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        variants = {"this tree": write_pages(Path(tmp), "tree", payloads)}
        if opts.against:
            current = html_export._static
            html_export._static = bundle_at(opts.against)  # type: ignore[assignment]
            try:
                variants[opts.against] = write_pages(Path(tmp), "rev", payloads)
            finally:
                html_export._static = current
        pages = variants["this tree"]
        size = pages["big"].stat().st_size / 1e6
        print(
            f"payload 386 dumps: {pages['matmul'].stat().st_size / 1e6:.2f} MB html; 10k-line: {size:.2f} MB"
        )
        browser = pw.chromium.launch(executable_path=opts.chromium, args=ARGS)
        results: dict[str, dict[str, list[float]]] = {tag: defaultdict(list) for tag in variants}
        for _ in range(rounds):
            for tag, paths in variants.items():
                step_round(browser, paths["big"], opts.steps, results[tag])
                first_paints(browser, paths["matmul"], results[tag])
        browser.close()
    for tag in reversed(list(variants)):
        print_results(tag, results[tag])


if __name__ == "__main__":
    main()
