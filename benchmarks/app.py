"""Update latency of the explorer, on the server and in the browser.

    .venv/bin/python benchmarks/app.py [--presses N]

1. Server side: the time from a parameter change to new columns and readouts
   (engine + data build + comparison table), in-process, with the result cache
   cleared before each change (cold) and without clearing it (warm).
2. In the Debian chromium against `panel serve app.py` (cache off): keypress on a
   slider handle to the repaint after the readout changed (the next paint),
   measured inside the page. Medians and 90th percentiles, in ms. Two ways to press:
   "at rest", each key once the last one's deferred refresh (table, sweep, URL:
   view/state.LATER_MS later) has arrived and painted, which is the keypress-to-repaint
   of a reader who moves a slider a step; and "held", a key every 30 ms after the
   last repaint, as a held key or a drag, where the deferred refreshes fall between.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

CASES = {
    # name: (URL query, slider handle index, keys pressed in turn)
    "defaults (1f1b, 4, 8, 1)": ("?schedule=1f1b&P=4&m=8&V=1", 1, ["ArrowRight", "ArrowLeft"]),
    "interleaved (16, 64, 4)": ("?schedule=interleaved&P=16&m=64&V=4", 2, ["ArrowLeft", "ArrowRight"]),
    "interleaved (32, 128, 8)": ("?schedule=interleaved&P=32&m=128&V=8", 1, ["ArrowLeft", "ArrowRight"]),
}
TARGETS = {"defaults (1f1b, 4, 8, 1)": 80, "interleaved (32, 128, 8)": 150}  # ms, keypress to repaint (issue 13)


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def server_side(presses: int) -> None:
    from pipeviz.served import Explorer
    from pipeviz.served.session import run_cached

    print("server side (ms): parameter change -> chart columns and readout ('update'),")
    print("then the comparison table, bars key and URL sent after it ('after')")
    for label, params, flip in [
        ("defaults (1f1b, 4, 8, 1)", dict(), ("m", 8, 9)),
        ("interleaved (16, 64, 4)", dict(schedule="interleaved", P=16, m=64, V=4), ("V", 4, 3)),
        ("interleaved (32, 128, 8)", dict(schedule="interleaved", P=32, m=128, V=8), ("m", 128, 127)),
    ]:
        app = Explorer(**params)
        deferred = []
        app.deferred.changed = lambda app=app, later=deferred: later.append(  # timed on its own
            lambda: app.refresh_later(run_cached))
        name, a, b = flip
        for cold in (True, False):
            main, after = [], []
            for i in range(presses):
                if cold:
                    run_cached.cache_clear()
                t0 = time.perf_counter()
                setattr(app.session, name, b if i % 2 == 0 else a)
                t1 = time.perf_counter()
                while deferred:
                    deferred.pop()()
                t2 = time.perf_counter()
                main.append((t1 - t0) * 1e3)
                after.append((t2 - t1) * 1e3)
            print(
                f"  {label:<28} {'cold' if cold else 'warm'}: update median {statistics.median(main):6.2f} "
                f"p90 {pct(main, 0.9):6.2f} | after median {statistics.median(after):6.2f}"
            )


LATENCY_JS = """(target) => {
    window.__lat = [];
    let t0 = null;
    document.addEventListener('keydown', () => { t0 = performance.now(); }, true);
    new MutationObserver(() => {
        if (t0 === null) return;
        const start = t0; t0 = null;
        // The frame after the change: its rAF callbacks run, then it paints, then the
            // task queue runs again: the setTimeout sees the repainted page.
            requestAnimationFrame(() => setTimeout(() => window.__lat.push(performance.now() - start), 0));
    }).observe(target, {subtree: true, childList: true, characterData: true});
}"""


# Settled: the URL names the value just set (the deferred refresh writes it last), and
# no plot waits for its (throttled) repaint, and two frames have passed since, so the
# table and the sweep it sent are painted too.
SETTLED_JS = """async (value) => {
    const busy = () => !location.search.includes(value) || !PipevizExplorer.paint.idle();
    while (busy()) await new Promise((ok) => setTimeout(ok, 10));
    await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
}"""


def browser(presses: int) -> None:
    from browser import served_app
    from conftest import CHROMIUM, CHROMIUM_ARGS
    from playwright.sync_api import sync_playwright

    os.environ["PIPEVIZ_CACHE"] = "0"  # every press computes, as a new slider value would
    print("browser: keypress -> repaint after the readout changes (ms), cache off")
    with served_app() as url, sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--headless", *CHROMIUM_ARGS])
        page = b.new_page(viewport={"width": 1400, "height": 1000})
        for held in (False, True):
            print("  held: a key every 30 ms after the last repaint" if held else
                  "  at rest: each key after the last one's deferred refresh has painted")
            for label, (query, handle_index, keys) in CASES.items():
                page.goto(url + query)
                page.get_by_text("simulated").first.wait_for(timeout=30_000)
                page.evaluate(SETTLED_JS, query.split("&")[1] + "&")  # the opening view's P, in the URL
                readout = page.locator(".pv-readout").element_handle()
                page.evaluate(LATENCY_JS, readout.evaluate_handle("el => el.parentNode"))
                handle = page.locator(".noUi-handle").nth(handle_index)
                handle.focus()
                name = ["P", "m", "V"][handle_index]
                for i in range(presses):
                    handle.press(keys[i % 2])
                    page.wait_for_function(f"window.__lat.length >= {i + 1}", timeout=10_000)
                    if held:
                        page.wait_for_timeout(30)
                    else:  # the handle says the value it now has
                        page.evaluate(SETTLED_JS, f"{name}={handle.get_attribute('aria-valuenow').split('.')[0]}&")
                lat = page.evaluate("window.__lat")
                target = f"  target <= {TARGETS[label]} ms" if label in TARGETS else ""
                print(f"    {label:<28} median {statistics.median(lat):6.1f}  p90 {pct(lat, 0.9):6.1f}  (n={len(lat)})"
                      f"{target}")
        b.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presses", type=int, default=40)
    args = ap.parse_args()
    server_side(args.presses)
    browser(args.presses)


if __name__ == "__main__":
    main()
