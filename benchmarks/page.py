"""The standalone page: its build time beside `show`'s, its size by part, and
slider-to-repaint in the Debian chromium.

    .venv/bin/python benchmarks/page.py [--presses N] [--without PATCH] [--builds N] [--build-only]

First it times `python -m pipeviz page -s interleaved -P 8 -m 16 -V 2 -o FILE` against
`python -m pipeviz show -s 1f1b -P 4 -m 8` as whole processes, alternating (wall and
CPU time, medians of --builds each; the target: page at most twice show), the page
both with its language's template in the cache and with no cache, and splits the file's bytes into BokehJS,
pipeviz's JavaScript, its data (PIPEVIZ_DATA), the document's JSON and the rest.

Builds the page with `python -m pipeviz page`, opens it from file:// and presses
a slider's arrow keys. Latency runs from the key event's timestamp (when the browser
took the key, so a key kept waiting behind the page's other work counts) to the
first task after the animation frame that follows the page's handler (every column
and readout updated, the plots repainted, the frame painted), measured inside the
page. Medians and 90th percentiles, in ms. The last line is the same measure on a
page that changes one text node: the browser's frame wait, paint and commit, the
floor under every case.

Each key is pressed at rest: once the last one's deferred refresh (table, sweep, URL:
view/state.LATER_MS later) has run and painted. Pressing back and forth between two
values finds the engine's results in the page's cache (as dragging back does); for
the cases with a target the benchmark also clears that cache before each press
("new values": the engine runs, as for a value not seen yet), at rest and "held" (a
key every 30 ms after the last repaint, as a held key or a drag: the deferred
refreshes fall between), and "paced": a key every PACED_MS by the clock whatever
the page is doing, as a reader stepping a slider, so that keys also land while the
deferred refresh computes the comparison table. The served app's benchmark
(benchmarks/app.py) always runs the engine. --without leaves one of static/compat.js's
patches out (benchmarks/compat.py alternates rounds with and without each).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

CASES = {
    # name: (URL fragment, slider handle index, keys pressed in turn)
    "defaults (1f1b, 4, 8, 1)": ("#schedule=1f1b&P=4&m=8&V=1", 1, ["ArrowRight", "ArrowLeft"]),
    "interleaved (16, 64, 4)": ("#schedule=interleaved&P=16&m=64&V=4", 2, ["ArrowLeft", "ArrowRight"]),
    "zb-v (32, 128, 2)": ("#schedule=zb-v&P=32&m=128&V=2", 1, ["ArrowLeft", "ArrowRight"]),
    "interleaved (32, 128, 8)": ("#schedule=interleaved&P=32&m=128&V=8", 1, ["ArrowLeft", "ArrowRight"]),
    # The closing section: drag e_f (handle 3) with the encoder in the bubbles, balancing on.
    "encoder e_f (1f1b, 4, 8, 1)": ("#schedule=1f1b&P=4&m=8&V=1&encoder=bubbles&balance=1", 3,
                                    ["ArrowRight", "ArrowLeft"]),
    "encoder e_f (interleaved, 16, 64, 4)": ("#schedule=interleaved&P=16&m=64&V=4&encoder=bubbles&balance=1", 3,
                                             ["ArrowRight", "ArrowLeft"]),
    # With a model: bytes per rank, the memory bars, GiB over time and the table's GiB.
    "defaults + gpt3-6.7b, GiB": ("#schedule=1f1b&P=4&m=8&V=1&model=gpt3-6.7b&over_time_unit=GiB", 1,
                                  ["ArrowRight", "ArrowLeft"]),
    "zb-v (32, 128, 2) + llama2-70b": ("#schedule=zb-v&P=32&m=128&V=2&model=llama2-70b&t=8&over_time_unit=GiB", 1,
                                       ["ArrowLeft", "ArrowRight"]),
}
TARGETS = {"defaults (1f1b, 4, 8, 1)": 16, "interleaved (32, 128, 8)": 50}  # ms, keypress to repaint (issue 13)
PACED_MS = 150

HOOK = """(cold) => {
    window.__lat = [];
    let t0 = null;
    document.addEventListener('keydown', (ev) => {
        if (cold) PipevizExplorer.get().cache.clear();  // what a new value costs
        t0 = ev.timeStamp;
    }, true);
    const handle = PipevizExplorer.handle;
    PipevizExplorer.handle = function () {
        const out = handle.apply(this, arguments);
        if (t0 !== null) {
            const start = t0; t0 = null;
            // The frame after the change: its rAF callbacks run, then it paints, then the
            // task queue runs again: the setTimeout sees the repainted page.
            requestAnimationFrame(() => setTimeout(() => window.__lat.push(performance.now() - start), 0));
        }
        return out;
    };
}"""


# At rest: no deferred refresh pending, no plot waiting for its (throttled) repaint,
# and two frames since the last one painted.
SETTLED_JS = """async () => {
    const busy = () => PipevizExplorer.get().laterPending || !PipevizExplorer.compat.idle();
    while (busy()) await new Promise((ok) => setTimeout(ok, 10));
    await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
}"""


SHOW = ["show", "-s", "1f1b", "-P", "4", "-m", "8"]


def timed_process(args: list[str], env: dict | None = None) -> tuple[float, float]:
    """A whole `python -m pipeviz ...` process: wall and CPU seconds (its own and its children's)."""
    import os
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pipeviz", *args], check=True, cwd=ROOT, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, env={**os.environ, **(env or {})})
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def build_times(path: Path, builds: int) -> None:
    """`page` against `show`, alternating so that both see the same load: `page` as a
    user meets it after the first (the language's template in the cache, pipeviz/page.py)
    and with no cache (the template built: what the first `page` after an install or a
    change to pipeviz pays)."""
    timed_process(SHOW)  # the first run after an install may compile
    page_args = ["page", "-s", "interleaved", "-P", "8", "-m", "16", "-V", "2", "-o", str(path)]
    timed_process(page_args)  # the template into the cache
    show, page, fresh = [], [], []
    for _ in range(builds):
        show.append(timed_process(SHOW))
        page.append(timed_process(page_args))
        fresh.append(timed_process(page_args, env={"PIPEVIZ_CACHE_DIR": ""}))
    med = lambda xs, i: statistics.median(x[i] for x in xs)  # noqa: E731
    print(f"show -s 1f1b -P 4 -m 8:  wall {med(show, 0):.2f} s, CPU {med(show, 1):.2f} s (median of {builds})")
    print(f"page (template cached): wall {med(page, 0):.2f} s, CPU {med(page, 1):.2f} s; "
          f"page/show {med(page, 0) / med(show, 0):.2f}x wall, {med(page, 1) / med(show, 1):.2f}x CPU (target <= 2x)")
    print(f"page (no cache):        wall {med(fresh, 0):.2f} s, CPU {med(fresh, 1):.2f} s; "
          f"{med(fresh, 1) / med(show, 1):.2f}x show's CPU (the first page after an install or a change)")


def size_parts(html: str) -> dict[str, int]:
    """The page's bytes by part: Bokeh's bundles, pipeviz's scripts, its data, the document."""
    import re

    parts = dict.fromkeys(("BokehJS", "pipeviz JS", "data (PIPEVIZ_DATA)", "document JSON", "markup and CSS"), 0)
    rest = html
    for m in re.finditer(r"<script([^>]*)>(.*?)</script>", html, flags=re.S):
        attrs, body = m.groups()
        size = len(body.encode())
        if "application/json" in attrs:
            parts["document JSON"] += size
        elif body.lstrip().startswith("/* BEGIN bokeh") or "base64_to_buffer(" in body[:200]:  # packed (compat.py)
            parts["BokehJS"] += size
        elif body.startswith("window.PIPEVIZ_DATA"):
            parts["data (PIPEVIZ_DATA)"] += size
        else:
            parts["pipeviz JS"] += size  # Bokeh's short embed script counts here
        rest = rest.replace(m.group(0), "", 1)
    parts["markup and CSS"] = len(rest.encode())
    return parts


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presses", type=int, default=40)
    ap.add_argument("--without", help="a patch of static/compat.js to leave out")
    ap.add_argument("--builds", type=int, default=5, help="page and show processes timed, each")
    ap.add_argument("--build-only", action="store_true", help="time the build and size the file, no browser")
    args = ap.parse_args()

    from conftest import CHROMIUM, CHROMIUM_ARGS
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "explorer.html"
        build_times(path, args.builds)
        print(f"page size: {path.stat().st_size / 1e6:.3f} MB (target <= 2 MB)")
        for part, size in size_parts(path.read_text(encoding="utf-8")).items():
            print(f"  {part:<22} {size / 1e3:8.1f} kB")
        if args.build_only:
            return
        print("slider keypress -> repaint (ms)")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--headless", *CHROMIUM_ARGS])
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            if args.without:  # read by install() before it applies the patches
                page.add_init_script(f"window.PIPEVIZ_COMPAT_WITHOUT = [{args.without!r}];")
            runs = [(label, case, False, "") for label, case in CASES.items()]
            runs += [(label, CASES[label], True, mode) for mode in ("", "held", "paced") for label in TARGETS]
            for label, (fragment, handle_index, keys), cold, mode in runs:
                page.goto("about:blank")  # a new fragment alone would not reload the page
                page.goto(path.as_uri() + fragment)
                page.get_by_text("simulated").first.wait_for(timeout=30_000)
                page.evaluate(HOOK, cold)
                handle = page.locator(".noUi-handle").nth(handle_index)
                handle.focus()
                if mode == "paced":
                    paced(page, keys, args.presses)
                for i in range(args.presses if mode != "paced" else 0):
                    if not mode:
                        page.evaluate(SETTLED_JS)
                    handle.press(keys[i % 2])
                    page.wait_for_function(f"window.__lat.length >= {i + 1}", timeout=10_000)
                    if mode == "held":
                        page.wait_for_timeout(30)
                lat = page.evaluate("window.__lat")
                target = f"  target <= {TARGETS[label]} ms" if label in TARGETS else ""
                name = label + (", new values" if cold else "") + (f", {mode}" if mode else "")
                print(f"  {name:<44} median {statistics.median(lat):6.1f}  p90 {pct(lat, 0.9):6.1f}  (n={len(lat)}){target}")
            for mode in ("", "paced"):
                floor = browser_floor(page, args.presses, mode)
                name = "floor: a page that changes one text" + (f", {mode}" if mode else "")
                print(f"  {name:<44} median {statistics.median(floor):6.1f}  p90 {pct(floor, 0.9):6.1f}  (n={len(floor)})")
            browser.close()


def paced(page, keys, presses: int) -> None:
    """A key every PACED_MS by the clock to the focused handle, with no wait for the
    page to settle (keyboard.press returns once the page has taken the key; a key
    due meanwhile goes at once, its timestamp counting the wait)."""
    t0 = time.monotonic()
    for i in range(presses):
        wait = t0 + i * PACED_MS / 1000 - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        page.keyboard.press(keys[i % 2])
    page.wait_for_function(f"window.__lat.length >= {presses}", timeout=30_000)


# The same measure on a page whose keydown changes one text node and nothing else: the
# frame's own wait and the browser's paint and commit, which no page's code can remove.
# What a case takes above it is the page's work.
FLOOR_JS = """() => {
    window.__lat = [];
    document.addEventListener('keydown', (ev) => {
        const t0 = ev.timeStamp;
        document.getElementById('out').textContent = String(t0);
        requestAnimationFrame(() => setTimeout(() => window.__lat.push(performance.now() - t0), 0));
    }, true);
}"""


def browser_floor(page, presses: int, mode: str) -> list[float]:
    """At rest, a key lands just after a frame (the settle waits for two), so the next
    frame is nearly a whole frame away; paced keys land anywhere in the frame."""
    page.goto("about:blank")
    page.set_content('<label>key <input id="key"></label><div id="out">0</div>')
    page.evaluate(FLOOR_JS)
    page.focus("#key")
    if mode == "paced":
        paced(page, ["a", "b"], presses)
    for i in range(presses if mode != "paced" else 0):
        page.evaluate(SETTLED_FLOOR_JS)
        page.keyboard.press("a")
        page.wait_for_function(f"window.__lat.length >= {i + 1}", timeout=10_000)
    return page.evaluate("window.__lat")


SETTLED_FLOOR_JS = "() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)))"


if __name__ == "__main__":
    main()
