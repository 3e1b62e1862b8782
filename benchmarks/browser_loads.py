"""What a browser test's page load costs, in a new browser context against a tab that
navigates on (tests/conftest.py's `page`; docs/performance.md, "The test suite").

    .venv/bin/python benchmarks/browser_loads.py [--loads 8]

Each explorer (the served app at its defaults, the standalone page) is loaded --loads
times in each of three ways: a new context and tab per load (pytest-playwright's own
`page`), one tab that navigates on (pipeviz's `page`), and that tab alternating between
the two explorers. A load ends when the readout and the drawn timeline are on screen.
CPU is the whole machine's (/proc/stat, busy jiffies): Chromium's renderers are not
children that `time` counts. Run it on a quiet machine; it prints wall and CPU per load.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

DRAWN = """() => { for (const d of Bokeh.documents) { const t = d.get_model_by_name('timeline');
    if (t && t.inner_width > 0) return true; } return false; }"""


def busy_seconds() -> float:
    fields = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")  # all but idle and iowait


def load(page, url: str) -> None:
    page.goto(url)
    page.locator(".pv-readout").filter(has_text="27.27% simulated").first.wait_for(timeout=60_000)
    page.wait_for_function(DRAWN)
    page.goto("about:blank")


def measure(label: str, loads: int, one) -> None:
    c0, t0 = busy_seconds(), time.perf_counter()
    for i in range(loads):
        one(i)
    wall, cpu = (time.perf_counter() - t0) / loads, (busy_seconds() - c0) / loads
    print(f"{label:44s} wall {wall:5.2f} s   CPU {cpu:5.2f} s  a load", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--loads", type=int, default=8)
    args = ap.parse_args()
    from browser import served_app, write_page
    from conftest import CHROMIUM, CHROMIUM_ARGS
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, served_app() as app, sync_playwright() as pw:
        page_url = write_page(Path(tmp) / "explorer.html").as_uri()
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for name, url in (("app", app), ("page", page_url)):
            load(browser.new_page(), url)  # the server's first session and the disk's first read
            for _ in range(2):
                def fresh(_i, url=url):
                    context = browser.new_context()
                    load(context.new_page(), url)
                    context.close()

                measure(f"{name}: a new context a load", args.loads, fresh)
                context = browser.new_context()
                tab = context.new_page()
                measure(f"{name}: one tab", args.loads, lambda _i, url=url, tab=tab: load(tab, url))
                context.close()
        context = browser.new_context()
        tab = context.new_page()
        measure("app and page alternating: one tab", args.loads, lambda i: load(tab, (app, page_url)[i % 2]))
        browser.close()


if __name__ == "__main__":
    main()
