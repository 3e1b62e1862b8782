"""Time `compare` (every schedule at each V it accepts, at one P and m) in Python and,
with --browser, its twin static/compare.js in the Debian chromium.

    .venv/bin/python benchmarks/compare.py [--repeat N] [--browser]

Python: median ms of `compare.compare` with the generators' caches cleared before
each call (ZB-H2's greedy rule and V-Half's and V-Min's squeezes are cached per P
and m; a cold call pays for them), without a model and with one (GPT-3 6.7B's shape
with 256 layers, so that every row runs at P = 32, where 6.7B's own 32 layers refuse
the 64 stages of V = 2); rows and total ops beside. Browser: the first call on a fresh page (the JIT cold, the
generators' caches empty) and the median of the next calls (caches warm).
"""

from __future__ import annotations

import argparse
import sys

from timing import median_ms  # benchmarks/timing.py

from pipeviz import Costs
from pipeviz.compare import compare, row_config
from pipeviz.memory import preset
from pipeviz.registry import SCHEDULES, check
from pipeviz.schedules import building_blocks, zb_h2

SIZES = [(8, 32), (32, 128)]


def model():
    return preset("gpt3-6.7b", L=256)


def cold():
    zb_h2.greedy_steady.cache_clear()
    building_blocks._schedule.cache_clear()


def python_rows(repeat: int) -> None:
    print(f"{'P':>3} {'m':>4} {'rows':>5} {'ops':>9} {'compare':>9} {'+model':>9}  ms (Python, caches cleared)")
    with_layers = model()
    for P, m in SIZES:
        c = compare(P, m)  # a first run, untimed (imports and first calls)
        ops = sum(SCHEDULES[r.schedule].n_ops(cfg) for r in c.rows
                  for cfg in [row_config(r.schedule, r.V, P, m, Costs())] if check(cfg))
        plain = median_ms(lambda P=P, m=m: (cold(), compare(P, m)), repeat)
        with_model = median_ms(lambda P=P, m=m: (cold(), compare(P, m, model=with_layers, hbm_gib=40)), repeat)
        print(f"{P:>3} {m:>4} {len(c.rows):>5} {ops:>9,} {plain:>9.1f} {with_model:>9.1f}")


JS = """([P, m, n, withModel]) => {
  const E = PipevizEngine, out = [];
  const model = withModel ? E.memory.preset('gpt3-6.7b', {L: 256}) : null;
  for (let k = 0; k < n; k++) {
    const t = performance.now();
    E.compare.compare(P, m, E.costs(1, 1, 1, 0), {model: model, hbmGib: 40});
    out.push(performance.now() - t);
  }
  return out;
}"""


def browser_rows(repeat: int) -> None:
    from playwright.sync_api import sync_playwright

    from pipeviz.page_document import scripts

    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    html = f"<!doctype html><html><head><meta charset='utf-8'>{scripts()}</head><body></body></html>"
    print(f"{'P':>3} {'m':>4} {'model':>6} {'first':>9} {'median':>9}  ms (chromium, static/compare.js)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=args)
        for with_model in (False, True):
            for P, m in SIZES:
                page = browser.new_page()
                page.set_content(html)
                times = page.evaluate(JS, [P, m, repeat + 1, with_model])
                page.close()
                rest = sorted(times[1:])
                print(f"{P:>3} {m:>4} {'yes' if with_model else 'no':>6} {times[0]:>9.1f} {rest[len(rest) // 2]:>9.1f}")
        browser.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="calls per cell (default 5)")
    ap.add_argument("--browser", action="store_true", help="also time static/compare.js in chromium")
    args = ap.parse_args()
    python_rows(args.repeat)
    if args.browser:
        sys.stdout.flush()
        browser_rows(args.repeat)


if __name__ == "__main__":
    main()
