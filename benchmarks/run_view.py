"""Load time of a real run in each explorer: the shared traces chosen, to the readout's
measured bubble on screen (docs/performance.md, "A real run in the explorers").

    .venv/bin/python benchmarks/run_view.py [--rounds 5]

For each shared trace (/work/shared/traces) and each explorer (the served app, the
standalone page), the files are chosen in the page's file input (Playwright's
set_input_files) and the clock stops when the readout shows the run's measured bubble;
"Back to the schedules" between rounds. In the app that is the upload, the server's
reading (pipeviz.trace, a private temporary folder), its figure view and Bokeh's
repaint; in the page, static/trace.js's streaming read, the report and the repaint.
Also the server's own share, in Python: read_uploads + the figure view + the readout.
Medians and the slowest of --rounds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
SHARED = Path("/work/shared/traces")
SHOWN = "27.27% simulated"


def python_share(d: Path, rounds: int) -> list[float]:
    from pipeviz.view import run_view

    files = [(p.name, p.read_bytes(), "application/json") for p in sorted(d.glob("rank*.json*"))]
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        rep = run_view.read_uploads(files)
        res = run_view.result_of(rep)
        run_view.figure_view(rep, res)
        run_view.readout_html(run_view.readout_values(rep))
        out.append(time.perf_counter() - t0)
    return out


def browser_rounds(page, which: str, d: Path, rounds: int) -> list[float]:
    paths = [str(p) for p in sorted(d.glob("rank*.json*"))]
    out = []
    for _ in range(rounds):
        files = page.get_by_label("Trace files, one per rank")
        if which == "app" and files.count() == 0:
            page.get_by_text("A real run", exact=True).first.click()
        files.wait_for(state="attached")
        t0 = time.perf_counter()
        files.set_input_files(paths)
        page.locator(".pv-measured").first.wait_for(timeout=60_000)
        out.append(time.perf_counter() - t0)
        page.get_by_role("button", name="Back to the schedules").last.click()
        page.get_by_text(SHOWN).first.wait_for(timeout=60_000)
    return out


def show(label: str, times: list[float]) -> None:
    ms = [1000 * t for t in times]
    print(f"  {label:<44} median {statistics.median(ms):7.1f} ms   slowest {max(ms):7.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    from browser import served_app
    from conftest import CHROMIUM, CHROMIUM_ARGS
    from playwright.sync_api import sync_playwright

    from pipeviz import Config
    from pipeviz.page import build

    dirs = sorted(p for p in SHARED.glob("*") if p.is_dir())
    print("the server's share (Python: read the uploads, figure view, readout)")
    for d in dirs:
        show(d.name, python_share(d, args.rounds))
    with tempfile.TemporaryDirectory() as tmp, served_app() as url, sync_playwright() as p:
        page_file = Path(tmp) / "explorer.html"
        page_file.write_text(build(Config()), encoding="utf-8")
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for which, address in (("app", url), ("page", page_file.as_uri())):
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(address)
            page.get_by_text(SHOWN).first.wait_for(timeout=120_000)
            print(f"{which}: files chosen -> measured bubble on screen")
            for d in dirs:
                show(d.name, browser_rounds(page, which, d, args.rounds))
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
