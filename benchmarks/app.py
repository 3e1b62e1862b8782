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


# What a reader sees, measured alike in both explorers with no pipeviz internals: from
# the keydown (its timestamp: the moment the browser took the key, so a key kept waiting
# behind other work counts) to the first animation frame after the readout's text
# differs from what it was at the keydown (a MutationObserver on the readout). The
# frame's callback runs just before that frame is painted.
LATENCY_JS = """(selector) => {
    window.__lat = [];
    const deep = (root) => { const hit = root.querySelector(selector); if (hit) return hit;
        for (const el of root.querySelectorAll('*')) if (el.shadowRoot) { const f = deep(el.shadowRoot); if (f) return f; }
        return null; };
    const readout = deep(document).parentNode;  // the box the readout's markup is written into
    let t0 = null, before = null;
    document.addEventListener('keydown', (ev) => { t0 = ev.timeStamp; before = readout.textContent; }, true);
    new MutationObserver(() => {
        if (t0 === null || readout.textContent === before) return;
        const start = t0; t0 = null;
        requestAnimationFrame(() => window.__lat.push(performance.now() - start));
    }).observe(readout, {subtree: true, childList: true, characterData: true});
}"""

# At rest, in either explorer: REST_MS after the key (the deferred refresh follows a
# change by view/state.LATER_MS and takes a few tens of ms), no plot waiting for its
# (throttled) repaint, and two frames since. (The URL cannot say it: it holds only
# what differs from the preset.)
REST_MS = 600
SETTLED_JS = """async (ms) => {
    await new Promise((ok) => setTimeout(ok, ms));
    while (!PipevizExplorer.compat.idle()) await new Promise((ok) => setTimeout(ok, 10));
    await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
}"""

# First paint: from the navigation's start to the first frame in which the timeline's
# canvas has been drawn (its plot view reports a finished render) and the readout holds
# its text. Polled once a frame, so the figure is at most a frame late.
FIRST_PAINT_JS = """async () => {
    const model = (name) => { for (const d of Bokeh.documents) { const m = d.get_model_by_name(name); if (m) return m; }
                              return null; };
    const drawn = () => {
        const deep = (root) => { const hit = root.querySelector('.pv-readout'); if (hit) return hit;
            for (const el of root.querySelectorAll('*')) if (el.shadowRoot) { const f = deep(el.shadowRoot); if (f) return f; }
            return null; };
        const out = deep(document);
        if (!out || !out.textContent.includes('simulated') || !window.Bokeh || !Bokeh.index) return false;
        const fig = model('timeline'), ops = model('ops');
        const view = fig && Bokeh.index.find_one(fig);
        return !!view && view.has_finished() && !!ops && ops.data.left && ops.data.left.length > 0;
    };
    while (!drawn()) await new Promise((ok) => requestAnimationFrame(ok));
    return performance.now();
}"""


def explorers(presses: int, page_only: bool = False) -> None:
    """Keypress to the readout's next frame in the served app and on the page, side by
    side, at rest (each key once the last one's deferred refresh has painted); then each
    explorer's first paint."""
    import subprocess
    import tempfile

    from browser import served_app
    from conftest import CHROMIUM, CHROMIUM_ARGS
    from playwright.sync_api import sync_playwright

    os.environ["PIPEVIZ_CACHE"] = "0"  # every press computes, as a new slider value would
    tmp = tempfile.TemporaryDirectory()
    page_file = Path(tmp.name) / "explorer.html"
    subprocess.run([sys.executable, "-m", "pipeviz", "page", "-o", str(page_file)], check=True, cwd=ROOT,
                   stdout=subprocess.DEVNULL)
    print("keypress -> first frame after the readout's text changed (ms), measured alike in both explorers;")
    print("each key at rest, the served app's result cache off (the page's cache cleared by new values alone)")
    results = {}
    with served_app() as url, sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--headless", *CHROMIUM_ARGS])
        page = b.new_page(viewport={"width": 1400, "height": 1000})
        where = {"app": (url, "?", ".pv-readout"), "page": (page_file.as_uri(), "#", ".pv-readout")}
        for label, (query, handle_index, keys) in CASES.items():
            for name, (base, sep, selector) in where.items():
                if page_only and name == "app":
                    continue
                page.goto("about:blank")
                page.goto(base + sep + query[1:], timeout=120_000)
                page.get_by_text("simulated").first.wait_for(timeout=60_000)
                page.evaluate(SETTLED_JS, 2 * REST_MS)
                page.evaluate(LATENCY_JS, selector)
                handle = page.locator(".noUi-handle").nth(handle_index)
                handle.focus()
                for i in range(presses):
                    handle.press(keys[i % 2])
                    page.wait_for_function(f"window.__lat.length >= {i + 1}", timeout=20_000)
                    page.evaluate(SETTLED_JS, REST_MS)
                results[label, name] = page.evaluate("window.__lat")
            row = "".join(f"  {name} median {statistics.median(lat):6.1f} p90 {pct(lat, 0.9):6.1f}"
                          for (lb, name), lat in results.items() if lb == label)
            target = f"  (app target <= {TARGETS[label]} ms)" if label in TARGETS else ""
            print(f"  {label:<26}{row}{target}")
        print("first paint: navigation start -> timeline drawn and readout written (ms), median of 5")
        for name, (base, _sep, _selector) in where.items():
            if page_only and name == "app":
                continue
            times = []
            for _ in range(5):
                page.goto("about:blank")
                page.goto(base, timeout=120_000)
                times.append(page.evaluate(FIRST_PAINT_JS))
            print(f"  {name:<5} median {statistics.median(times):7.0f}  (min {min(times):.0f}, max {max(times):.0f})")
        b.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presses", type=int, default=40)
    ap.add_argument("--browser-only", action="store_true", help="skip the in-process server figures")
    args = ap.parse_args()
    if not args.browser_only:
        server_side(args.presses)
    explorers(args.presses)


if __name__ == "__main__":
    main()
