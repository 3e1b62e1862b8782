"""Playing the iteration: frames per second of the time cursor, in the Debian chromium.

    .venv/bin/python benchmarks/play.py [--seconds S] [--app]

Builds the page with `python -m pipeviz page`, opens it from file://, presses play
and lets the cursor run for S seconds at 1x. Each animation frame of the play loop
(static/teach_models.js) moves the cursor, the curtain and the in-flight bars and then
waits for the next frame, so the frames it records (PipevizTeach.state(...).frames)
are the frames the reader sees: a redraw slower than a display frame lowers them.
Prints frames per second, the median and 95th percentile frame interval and the
frames longer than 50 ms. With --app, the served app too (the same code runs in
the browser; only the first frame waits for the server).
Target (issue 9): at least 30 frames per second on the page at the defaults.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from pipeviz.text import template  # noqa: E402
from pipeviz.view import teach  # noqa: E402, F401  (registers the play button's words)

CASES = {
    # name: URL query (the page reads it as well as a fragment)
    "defaults (1f1b, 4, 8, 1)": "?schedule=1f1b&P=4&m=8&V=1",
    "interleaved (8, 32, 2)": "?schedule=interleaved&P=8&m=32&V=2",
    "zb-v (16, 64, 2)": "?schedule=zb-v&P=16&m=64&V=2",
    "interleaved (32, 128, 8)": "?schedule=interleaved&P=32&m=128&V=8",
}
TARGET_FPS = {"defaults (1f1b, 4, 8, 1)": 30}

FRAMES = """() => PipevizTeach.state({ ops: Bokeh.documents[0].get_model_by_name('ops') }).frames.slice()"""
# The main thread's work per frame, which the machine's load inflates less than the
# frame rate: the play loop's own callback (the models it changes and the handlers
# they run) and every plot's repaint, timed inside the page.
HOOK = """() => {
  window.__work = [];
  const time = Bokeh.documents[0].get_model_by_name('play_time');
  let acc = 0;
  for (const v of Bokeh.index.all_views()) {
    if (typeof v._actual_paint !== 'function') continue;
    const paint = v._actual_paint.bind(v);
    v._actual_paint = (...a) => {
      const t0 = performance.now();
      try { return paint(...a); } finally { acc += performance.now() - t0; }
    };
  }
  const tick = () => { window.__work.push(acc); acc = 0; requestAnimationFrame(tick); };
  const orig = time.setv.bind(time);
  time.setv = (attrs, opts) => {
    const t0 = performance.now();
    try { return orig(attrs, opts); } finally { acc += performance.now() - t0; }
  };
  requestAnimationFrame(tick);
}"""


def measure(page, url: str, seconds: float) -> list[float]:
    page.goto("about:blank")
    page.goto(url)
    page.get_by_text("simulated").first.wait_for(timeout=60_000)
    page.wait_for_function("() => { const d = window.Bokeh && Bokeh.documents[0]; "
                           "const s = d && d.get_model_by_name('cursor_steps'); return s && s.data.time.length > 0; }",
                           timeout=60_000)
    page.evaluate(HOOK)
    page.get_by_role("button", name=template("play.play")).click()
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('play_time').value < "
                           "Bokeh.documents[0].get_model_by_name('play_time').end", timeout=30_000)
    page.wait_for_timeout(seconds * 1000)  # the measured run itself: a duration, not a wait for a state
    frames = page.evaluate(FRAMES)
    work = [w for w in page.evaluate("() => window.__work") if w > 0]
    page.get_by_role("button", name=template("play.pause")).click()
    return frames, work


def report(label: str, measured: tuple[list[float], list[float]]) -> None:
    frames, work = measured
    gaps = [b - a for a, b in zip(frames, frames[1:])]
    if len(gaps) < 2:
        print(f"  {label:<26} too few frames ({len(frames)})")
        return
    fps = len(gaps) / ((frames[-1] - frames[0]) / 1000)
    p95 = sorted(gaps)[int(0.95 * (len(gaps) - 1))]
    long = sum(g > 50 for g in gaps)
    target = f"  target >= {TARGET_FPS[label]} fps" if label in TARGET_FPS else ""
    print(f"  {label:<26} {fps:5.1f} fps  frame median {statistics.median(gaps):5.1f} ms  p95 {p95:5.1f} ms  "
          f"over 50 ms: {long}/{len(gaps)}  work/frame median {statistics.median(work or [0]):4.1f} ms "
          f"p95 {sorted(work or [0])[int(0.95 * (len(work or [0]) - 1))]:4.1f} ms{target}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--app", action="store_true", help="measure the served app as well")
    args = ap.parse_args()

    from browser import served_app
    from conftest import CHROMIUM, CHROMIUM_ARGS
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        path = Path(tmp) / "explorer.html"
        subprocess.run([sys.executable, "-m", "pipeviz", "page", "-o", str(path)], check=True, cwd=ROOT)
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--headless", *CHROMIUM_ARGS])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        print(f"play at 1x for {args.seconds:g} s: frames of the time cursor")
        print(" page")
        for label, query in CASES.items():
            report(label, measure(page, path.as_uri() + query, args.seconds))
        if args.app:
            print(" served app")
            with served_app() as url:
                for label, query in CASES.items():
                    report(label, measure(page, url + query, args.seconds))
        browser.close()


if __name__ == "__main__":
    main()
