"""A puzzle's placement: from the action to the block, the figures and the readout drawn.

    .venv/bin/python benchmarks/puzzle.py [--places N]

Python (the served app's share of a placement, without Panel's transfer): the action
(`view/puzzle.act`: replay and check), the result drawn (`view/puzzle.run`) and the
block (`block_values`, `block_html`). The page (Debian chromium, from file://): from
the action to the first task after the animation frame that follows it (the block,
every column and readout updated, the plots repainted), measured inside the page.
Each case starts half placed (par's ops, as tests/test_puzzle.solution places them)
and places par's next ops. Medians and 90th percentiles, in ms.
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

CASES = {  # name: (goal, P, m, V)
    "1f1b (4, 8)": ("1f1b", 4, 8, 1),
    "zb (4, 8)": ("zb", 4, 8, 1),
    "encoder (4, 8)": ("encoder", 4, 8, 1),
    "interleaved (8, 16, 4), the largest": ("interleaved", 8, 16, 4),
}

PAGE_RUN = """async ([moves]) => {
  const X = PipevizExplorer, out = [];
  for (const move of moves) {
    const t0 = performance.now();
    X.handle(null, 'puzzle', {what: 'place', move: move, rank: null});
    await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
    out.push(performance.now() - t0);
  }
  return out;
}"""


def stats(xs: list[float]) -> str:
    xs = sorted(xs)
    p90 = xs[min(len(xs) - 1, int(0.9 * len(xs)))]
    return f"median {statistics.median(xs):6.1f}   p90 {p90:6.1f}"


def main() -> None:
    from test_puzzle import solution

    from pipeviz.view import puzzle as view
    from pipeviz.view.fields import FIELDS
    from pipeviz.view.state import normalize

    ap = argparse.ArgumentParser()
    ap.add_argument("--places", type=int, default=30)
    args = ap.parse_args()
    plans = {}
    print("Python: act + run + block, per placement (ms)")
    for name, (goal, P, m, V) in CASES.items():
        state, _ = normalize({**{k: f.default for k, f in FIELDS.items()}, "puzzle": goal, "P": P, "m": m, "V": V},
                             {"puzzle", "P", "m", "V"})
        moves = solution(view.setup(state))
        half = len(moves) // 2
        plans[name] = (state, moves[:half], moves[half : half + args.places])
        state = {**state, "moves": ",".join(moves[:half])}
        times = []
        for move in moves[half : half + args.places]:
            t0 = time.perf_counter()
            updates, said = view.act(state, {"what": "place", "move": move})
            state = {**state, **updates}
            view.run(state)
            view.block_html(view.block_values(state, said), "en")
            times.append(1000 * (time.perf_counter() - t0))
        print(f"  {name:40s} {stats(times)}   ({len(moves)} ops)")
    from conftest import CHROMIUM, CHROMIUM_ARGS
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        page_file = Path(tmp) / "explorer.html"
        subprocess.run([sys.executable, "-m", "pipeviz", "page", "-o", str(page_file)], check=True, capture_output=True)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        print("The page: action to repaint, per placement (ms)")
        for name, (state, before, after) in plans.items():
            page.goto(f"{page_file.as_uri()}#puzzle={state['puzzle']}&P={state['P']}&m={state['m']}&V={state['V']}"
                      f"&moves={','.join(before)}")
            page.wait_for_function("(n) => { const x = PipevizExplorer.get(); return x && x.values.moves.split(',')"
                                   ".filter(Boolean).length === n && !x.laterPending; }", arg=len(before))
            print(f"  {name:40s} {stats(page.evaluate(PAGE_RUN, [after]))}")
        browser.close()


if __name__ == "__main__":
    main()
