"""static/glance.js against pipeviz/view/glance.py, in the Debian chromium: the
timeline's key, the in-flight lines' style and key, one rank's ops as a table, and the
preset the view is, on the parity test's configurations (tests/test_js_parity.py)."""

from __future__ import annotations

import json
import random

import pytest
import twin
from test_js_parity import CONFIGS, SEED

from pipeviz import Config, ConfigError, Costs, run
from pipeviz.view import glance
from pipeviz.view.fields import FIELDS, PRESETS, defaults
from pipeviz.view.palette import line_style
from pipeviz.view.state import m_start

pytestmark = pytest.mark.browser

BATCH = 25
LANGS = ("en", "zh")


def expected(c: dict):
    try:
        res = run(Config(c["schedule"], c["P"], c["m"], c["V"], Costs(c["tf"], c["tb"], c["tw"], c["comm"]), c["G"]))
    except ConfigError:
        return None
    P = res.config.P
    legend = glance.legend_values(res)
    out = {
        "legend": {"values": legend, "html": {lang: glance.legend_html(legend, lang) for lang in LANGS}},
        "lines": {"style": line_style(P), "html": {lang: glance.lines_key_html(P, lang) for lang in LANGS}},
        "ops": [],
    }
    for rank, limit in ((0, glance.OPS_TABLE_MAX), (P - 1, 7), (P // 2, glance.OPS_TABLE_MAX)):
        v = glance.ops_table_values(res, rank, limit)
        out["ops"].append({"values": v, "html": {lang: glance.ops_table_html(v, lang) for lang in LANGS}})
    return twin.summary(out)


JS = """
window.__glance = (batch) => JSON.stringify(batch.map((c) => {
  const E = PipevizEngine, G = PipevizExplorer.glance, W = __twin;
  let res;
  try {
    res = E.run(E.config(c.schedule, c.P, c.m, c.V, E.costs(c.tf, c.tb, c.tw, c.comm), c.G));
  } catch (e) {
    return null;
  }
  const P = res.config.P, both = (f) => ({en: f('en'), zh: f('zh')});
  const legend = G.legendValues(res);
  const ops = [[0, MAX], [P - 1, 7], [Math.floor(P / 2), MAX]].map(([rank, limit]) => {
    const v = G.opsTableValues(res, rank, limit);
    return {values: v, html: both((l) => G.opsTableHtml(v, l))};
  });
  return W.summary({
    legend: {values: legend, html: both((l) => G.legendHtml(legend, l))},
    lines: {style: G.lineStyle(P), html: both((l) => G.linesKeyHtml(P, l))},
    ops,
  });
}));
""".replace("MAX", str(glance.OPS_TABLE_MAX))


@pytest.fixture(scope="module")
def twin_page(browser):
    page = browser.new_page()
    twin.load(page)
    page.add_script_tag(content=JS)
    yield page
    page.close()


def test_key_lines_and_ops_table_match_python(twin_page):
    failures, compared = [], 0
    for lo in range(0, len(CONFIGS), BATCH):
        batch = CONFIGS[lo : lo + BATCH]
        got = json.loads(twin_page.evaluate("([b]) => __glance(b)", [batch]))
        for c, a in zip(batch, got):
            d = twin.Diff()
            d.walk("", expected(c), a)
            compared += d.compared
            if d.errors:
                failures.append(f"[{c}]\n    " + "\n    ".join(d.errors))
    print(f"\n{len(CONFIGS)} configurations, {compared} values compared")
    assert compared > 10_000
    assert not failures, f"{len(failures)} differ:\n" + "\n".join(failures[:5])


def states(n: int = 300) -> list[dict]:
    """Defaults, every preset, and each preset with one field moved."""
    rng = random.Random(SEED + 7)
    out = [defaults()] + [{**defaults(), **p.values} for p in PRESETS.values()]
    for _ in range(n):
        st = {**defaults(), **rng.choice(list(PRESETS.values())).values}
        key = rng.choice([k for k in FIELDS if k != "lang"])
        f = FIELDS[key]
        if rng.random() < 0.5:
            st[key] = rng.choice(f.choices) if f.kind == "choice" else (
                rng.randint(int(f.low), int(f.high)) if f.kind == "int" else rng.choice([0.5, 1.0, 2.0]))
        out.append(st)
    return out


def test_matching_preset_and_m_start_match_python(twin_page):
    cases = states()
    got = twin_page.evaluate("(cases) => cases.map((s) => [PipevizExplorer.glance.matchingPreset(s),"
                             " PipevizExplorer.glance.mStart(s)])", cases)
    assert got == [[glance.matching_preset(s), m_start(s)] for s in cases]
    assert len({g[0] for g in got}) >= 4 and len({g[1] for g in got}) >= 3  # presets and none; several starts
