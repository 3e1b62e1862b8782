"""How long the trade-off view takes to follow a slider, in both explorers.

    .venv/bin/python benchmarks/tradeoff.py [--presses N] [--explorers page,app]

In the Debian chromium, the standalone page (from file://) and the served app
(`panel serve app.py`): at 1F1B (P, m) = (8, 32) and (32, 128), the m slider's handle
pressed a step down and up in turn; the time from the keypress to the view showing
every point at the new m (the slowest point moved, nothing left computing), in ms,
median and 90th percentile over N presses. Also, in process, the served explorer's
deferred refresh in slices (view/tradeoff.py after the table and the sweep): slices,
the longest slice (what a key pressed meanwhile waits for) and their total.
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

CASES = {"(8, 32)": "schedule=1f1b&P=8&m=32", "(32, 128)": "schedule=1f1b&P=32&m=128"}

# Every point drawn at P and m: the note names them, and nothing is computing.
SETTLED = """([js, says]) => { const s = eval(js)(); return s && s.x.length > 0 && s.note.includes(says)
  && !s.note.includes('Computing'); }"""


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def in_process() -> None:
    from pipeviz.served import Explorer
    from pipeviz.served.session import run_cached
    from pipeviz.slicing import Sliced, SlicedRun

    print("served explorer in process, the deferred refresh after one step of m (engine cache cleared):")
    for label, q in CASES.items():
        fields = dict(kv.split("=") for kv in q.split("&"))
        app = Explorer(schedule=fields["schedule"], P=int(fields["P"]), m=int(fields["m"]))
        app.deferred.changed = lambda: None  # run by hand below, slice by slice
        run_cached.cache_clear()
        app.session.update({"m": int(fields["m"]) - 1})
        done, per, start = {}, [], time.perf_counter()
        while True:
            t = time.perf_counter()
            try:
                app.refresh_later(SlicedRun(run_cached, done))
                per.append(time.perf_counter() - t)
                break
            except Sliced:
                per.append(time.perf_counter() - t)
        print(f"  {label}: {len(per)} slices, longest {1000 * max(per):.1f} ms, "
              f"median {1000 * statistics.median(per):.1f} ms, all {1000 * (time.perf_counter() - start):.0f} ms")


def follow(page, P: int, m: int, presses: int) -> list[float]:
    from test_browser_tradeoff import STATE

    handle = page.locator(".noUi-handle").nth(1)  # P, m, V
    handle.focus()
    out = []
    for i in range(presses):
        t = time.perf_counter()
        handle.press("ArrowLeft" if i % 2 == 0 else "ArrowRight")
        now = m - 1 if i % 2 == 0 else m
        page.wait_for_function(SETTLED, arg=[STATE, f"P = {P}, m = {now} "], polling="raf", timeout=120_000)
        out.append(1000 * (time.perf_counter() - t))
    return out


def browser(presses: int, explorers: list[str]) -> None:
    from browser import served_app
    from playwright.sync_api import sync_playwright
    from test_browser_tradeoff import STATE

    with tempfile.TemporaryDirectory() as tmp:
        page_file = Path(tmp) / "explorer.html"
        subprocess.run([sys.executable, "-m", "pipeviz", "page", "-o", str(page_file)], check=True, capture_output=True)
        with served_app() as app_url, sync_playwright() as pw:
            b = pw.chromium.launch(executable_path="/usr/bin/chromium")
            page = b.new_page(viewport={"width": 1400, "height": 900})
            print(f"keypress on m to the trade-off view redrawn, ms: median (90th percentile) of {presses}")
            for which in explorers:
                for label, q in CASES.items():
                    P, m = (int(x) for x in label.strip("()").split(", "))
                    page.goto(f"{page_file.as_uri()}#{q}" if which == "page" else f"{app_url}?{q}")
                    page.wait_for_function(SETTLED, arg=[STATE, f"P = {P}, m = {m} "], timeout=120_000)
                    got = follow(page, P, m, presses)
                    print(f"  {which:4} {label:9}: {statistics.median(got):7.0f} ({pct(got, 0.9):.0f})")
            b.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presses", type=int, default=6)
    ap.add_argument("--explorers", default="page,app", help="page, app or both (page,app)")
    args = ap.parse_args()
    in_process()
    browser(args.presses, args.explorers.split(","))


if __name__ == "__main__":
    main()
