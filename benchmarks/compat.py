"""Each patch of static/compat.js against Bokeh's own code, at the sliders' maximum, on the page.

    .venv/bin/python benchmarks/compat.py [--rounds N] [--presses N] [--case NAME] [PATCH ...]

For each patch, alternating rounds in one browser: the page with every patch (A),
then with every patch but that one (B: window.PIPEVIZ_COMPAT_WITHOUT, which
static/compat.js's install() reads before it applies them), A again, and so on, each
round a fresh page. A round presses the m slider's arrows at rest, back and forth
between m and m - 1 (the engine's results come from the page's cache, so a press is
the drawing alone), and records per press:

  keypress  keypress to repaint, as benchmarks/page.py measures it
  repaint   every plot's repaint (PlotView.repaint and paint), summed
  data      what Bokeh does with new data, before any repaint: each glyph's set_data,
            set_visuals and after_visuals, summed
  own       the function the patch replaces, summed (its calls inside a repaint are
            part of `repaint` too)

each timed with performance.now() around the calls, by the same wrapper in both
variants (it wraps whichever function is there). The machine is shared and noisy,
so the times inside the page are the figures to go by; keypress shows whether they
reach the reader. Prints each variant's medians and B - A: the patch's gain.

The case is interleaved (32, 128, 8); --case picks another of benchmarks/page.py's
CASES (zb-v (32, 128, 2) has the most hatched bubbles). The patches left out for a
gain under 1 ms there (static/compat.js's header) were measured the same way: hatches
with HatchVector.update as its own function at zb-v (32, 128, 2), sliders with the
slider view's _update_slider, labels with TextView._paint.
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
sys.path.insert(0, str(ROOT / "benchmarks"))

from page import CASES, HOOK, SETTLED_JS  # noqa: E402  (benchmarks/page.py)

MAXIMUM = "interleaved (32, 128, 8)"
# The function(s) each patch replaces: [module, class, method] on the class's prototype,
# or [module, export] for a module's function; "repaint" alone where the patch's work is
# spread through the repaint (styles, re-styles, measures, reads).
OWN = {
    "styles": "repaint",
    "widths": "repaint",
    "css": "repaint",
    "variants": [["models/renderers/glyph_renderer", "GlyphRendererView", "map_data"]],
    "positions": "repaint",
    "axes": "repaint",
    "boxes": [["models/glyphs/lrtb", "LRTBView", "_paint"]],
}

# Timers around the functions, installed once the page has drawn (after install()):
# window.__acc holds each timer's milliseconds since the last keydown, and each press
# pushes a copy once it has repainted (HOOK's moment).
TIMERS = """(own) => {
    const req = (m) => Bokeh.require(m);
    const protoOf = ([mod, cls]) => req(mod)[cls].prototype;
    window.__acc = {};
    const depth = {};
    const time = (name, target, method) => {
        const f = target[method];
        if (typeof f !== 'function') throw new Error('no ' + method + ' for ' + name);
        depth[name] = 0;
        target[method] = function () {
            if (depth[name]++ > 0) { try { return f.apply(this, arguments); } finally { depth[name]--; } }
            const t0 = performance.now();
            try { return f.apply(this, arguments); } finally {
                depth[name]--;
                window.__acc[name] = (window.__acc[name] || 0) + performance.now() - t0;
            }
        };
        for (const k of Object.keys(f)) target[method][k] = f[k];  // pvFast, pvOriginal... (the tests' marks)
    };
    const plot = req('models/plots/plot_canvas').PlotView.prototype;
    time('repaint', plot, 'repaint');
    time('repaint', plot, 'paint');
    const glyph = req('models/glyphs/glyph').GlyphView.prototype;
    for (const m of ['set_data', 'set_visuals', 'after_visuals']) time('data', glyph, m);
    if (Array.isArray(own)) for (const spec of own) time('own', protoOf(spec), spec[spec.length - 1]);
    document.addEventListener('keydown', () => { window.__acc = {}; }, true);
    const handle = PipevizExplorer.handle;
    window.__times = [];
    PipevizExplorer.handle = function () {
        const out = handle.apply(this, arguments);
        requestAnimationFrame(() => setTimeout(() => window.__times.push(Object.assign({}, window.__acc)), 0));
        return out;
    };
}"""


def round_(browser, uri: str, case: str, without: str | None, presses: int, own) -> dict[str, list[float]]:
    """One fresh page at `case`, `presses` keys at rest; each measure's list of values."""
    fragment, handle_index, keys = CASES[case]
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        if without:
            page.add_init_script(f"window.PIPEVIZ_COMPAT_WITHOUT = [{without!r}];")
        page.goto(uri + fragment)
        page.get_by_text("simulated").first.wait_for(timeout=60_000)
        applied = page.evaluate("() => PipevizExplorer.compat.install(PIPEVIZ_DATA.compat)")
        assert applied == [n for n in OWN if n != without], (without, applied)
        page.evaluate(HOOK, False)
        page.evaluate(TIMERS, own)
        handle = page.locator(".noUi-handle").nth(handle_index)
        handle.focus()
        out: dict[str, list[float]] = {"keypress": [], "repaint": [], "data": [], "own": []}
        for i in range(presses + 1):  # the first press warms up (both values drawn once)
            page.evaluate(SETTLED_JS)
            handle.press(keys[i % 2])
            page.wait_for_function(f"window.__lat.length >= {i + 1} && window.__times.length >= {i + 1}",
                                   timeout=20_000)
        lat, times = page.evaluate("[window.__lat, window.__times]")
        for latency, t in list(zip(lat, times))[1:]:
            out["keypress"].append(latency)
            for k in ("repaint", "data", "own"):
                out[k].append(t.get(k, 0.0))
        return out
    finally:
        page.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("patches", nargs="*", help="patches to measure (all by default)")
    ap.add_argument("--rounds", type=int, default=4, help="rounds of each variant")
    ap.add_argument("--presses", type=int, default=15, help="keys per round")
    ap.add_argument("--case", choices=list(CASES), help="one case for every patch")
    args = ap.parse_args()

    from conftest import CHROMIUM, CHROMIUM_ARGS
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "explorer.html"
        subprocess.run([sys.executable, "-m", "pipeviz", "page", "-o", str(path)], check=True, cwd=ROOT)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--headless", *CHROMIUM_ARGS])
            names = args.patches or list(OWN)
            print(f"{args.rounds} rounds each way of {args.presses} presses at rest; medians in ms (B - A: the gain)")
            for name in names:
                case = args.case or MAXIMUM
                own = OWN[name]
                runs: dict[str, dict[str, list[float]]] = {"A": {}, "B": {}}
                for _ in range(args.rounds):
                    for variant, without in (("A", None), ("B", name)):
                        got = round_(browser, path.as_uri(), case, without, args.presses, own)
                        for k, xs in got.items():
                            runs[variant].setdefault(k, []).extend(xs)
                print(f"{name} at {case} (own: {own if isinstance(own, str) else ', '.join(s[-2] + '.' + s[-1] for s in own)})")
                for k in ("keypress", "repaint", "data", "own"):
                    if k == "own" and own == "repaint":
                        continue
                    a, b = statistics.median(runs["A"][k]), statistics.median(runs["B"][k])
                    print(f"  {k:<9} with {a:7.2f}  without {b:7.2f}  gain {b - a:+7.2f}  (n={len(runs['A'][k])})",
                          flush=True)
            browser.close()


if __name__ == "__main__":
    main()
