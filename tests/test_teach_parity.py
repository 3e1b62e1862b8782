"""The teaching view's JavaScript (static/causes.js, static/teach.js) against Python
(causes.py, view/teach.py), in the Debian chromium, on test_js_parity's configurations:
what each idle gap waits for, one critical path and its lags, and every source
column and property of the teaching view, with the critical path and the projector
on and off, in both units and languages. Also, on the JavaScript side: every critical
path is as long as the makespan."""

from __future__ import annotations

import json

import pytest
import twin
from test_js_parity import CONFIGS, label

from pipeviz import Config, ConfigError, Costs, run
from pipeviz.causes import critical_path, gap_waits, path_lags
from pipeviz.view import teach

pytestmark = pytest.mark.browser

BATCH = 20
STATES = [
    ({"critical": False, "projector": False, "unit": "micro-batches"}, "en"),
    ({"critical": True, "projector": True, "unit": "chunks"}, "zh"),
    ({"critical": True, "projector": False, "unit": "micro-batches"}, "zh"),
]


def python_side(c: dict):
    try:
        res = run(Config(c["schedule"], c["P"], c["m"], c["V"], Costs(c["tf"], c["tb"], c["tw"], c["comm"]), c["G"]))
    except ConfigError:
        return None
    tl = res.timeline
    rank, _, end = res.metrics.bubbles
    path = critical_path(tl)
    return twin.summary({
        "waits": gap_waits(tl, rank, end), "path": path, "lags": path_lags(tl, path),
        "views": [teach.figure_view(res, st, lang) for st, lang in STATES],
    })


JS = """([batch, states]) => JSON.stringify(batch.map((c) => {
  const E = PipevizEngine, X = PipevizExplorer, W = __twin;
  let res;
  try { res = E.run(E.config(c.schedule, c.P, c.m, c.V, E.costs(c.tf, c.tb, c.tw, c.comm), c.G)); }
  catch (e) { return null; }
  try {
    const tl = res.timeline, b = res.metrics.bubbles, path = E.criticalPath(tl), lags = E.pathLags(tl, path);
    let length = 0;
    for (let i = 0; i < path.length; i++) length += tl.end[path[i]] - tl.start[path[i]];
    for (let i = 0; i < lags.length; i++) length += lags[i];
    const out = W.summary({waits: E.gapWaits(tl, b.rank, b.end), path, lags,
                           views: states.map(([st, lang]) => X.teach.figureView(res, st, lang))});
    out.__length = [length, tl.makespan, path.length ? tl.start[path[0]] : 0];
    return out;
  } catch (e) { return {exception: String(e.stack || e)}; }
}))"""


@pytest.fixture(scope="module")
def twin_page(browser):
    page = browser.new_page()
    twin.load(page)
    yield page
    page.close()


def test_the_teaching_view_matches_python(twin_page):
    failures, valid, compared = [], 0, 0
    for lo in range(0, len(CONFIGS), BATCH):
        batch = CONFIGS[lo : lo + BATCH]
        got = json.loads(twin_page.evaluate(JS, [batch, STATES]))
        for c, a in zip(batch, got):
            e = python_side(c)
            if e is None:
                assert a is None, label(c)
                continue
            valid += 1
            assert "exception" not in a, a["exception"]
            length, makespan, first = a.pop("__length")
            # The critical path runs from the first start to the last end (causes.py's tolerance).
            tol = 1e-9 * max(1.0, makespan)
            assert first <= tol and abs(length - makespan) <= tol, label(c)
            d = twin.Diff()
            d.walk("", e, a)
            compared += d.compared
            if d.errors:
                failures.append(f"[{label(c)}]\n    " + "\n    ".join(d.errors))
    print(f"\n{valid} configurations, {compared} values compared")
    assert valid >= 250
    assert not failures, f"{len(failures)} configurations differ:\n" + "\n".join(failures[:10])


# -- the sweep --------------------------------------------------------------------------

SWEEPS = [
    ("1f1b", 4, 8, 1, (1.0, 1.0, 1.0, 0.0)), ("interleaved", 8, 16, 2, (1.0, 1.0, 1.0, 0.0)),
    ("zb-v", 3, 5, 2, (18.5, 18.1, 9.3, 0.6)), ("interleaved", 5, 7, 3, (0.1, 0.2, 0.3, 0.0)),
    ("gpipe", 1, 1, 1, (2.675, 0.015, 1.005, 0.0)), ("zb-h2", 16, 64, 1, (1.0, 2.0, 0.5, 0.25)),
    ("interleaved", 2, 3, 8, (1.0, 1.0, 0.0, 0.0)), ("zb-h1", 7, 100, 1, (0.7071067811865476, 1.4142135623730951, 0.1, 1e6)),
]

JS_SWEEP = """([cases]) => JSON.stringify(cases.map(([name, P, m, V, c]) => {
  const E = PipevizEngine, X = PipevizExplorer;
  const cfg = E.config(name, P, m, V, E.costs(...c), null);
  const values = X.sweep.sweepValues(cfg);
  return __twin.summary({values, views: ['en', 'zh'].map((lang) => X.sweep.figureView(values, cfg, lang))});
}))"""


def test_the_sweep_matches_python(twin_page):
    from pipeviz.view.sweep import figure_view, sweep_values

    got = json.loads(twin_page.evaluate(JS_SWEEP, [SWEEPS]))
    failures = []
    for case, a in zip(SWEEPS, got):
        name, P, m, V, c = case
        cfg = Config(name, P, m, V, Costs(*c))
        values = sweep_values(cfg)
        e = twin.summary({"values": values, "views": [figure_view(values, cfg, lang) for lang in ("en", "zh")]})
        d = twin.Diff()
        d.walk("", e, a)
        if d.errors:
            failures.append(f"[{case}]\n    " + "\n    ".join(d.errors))
    assert not failures, "\n".join(failures)
