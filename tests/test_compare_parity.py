"""static/compare.js against pipeviz/compare.py, in the Debian chromium: the same rows
(every number bit for bit, the fits and Pareto marks, the order) and the same
refusals (by key, arguments and text in both languages) over generated sizes, costs,
models, HBM lines and stage weights, and the same refusal of a comparison too large."""

from __future__ import annotations

import json
import random

import pytest
import twin
from test_js_parity_memory import model_fields

from pipeviz import ConfigError, Costs
from pipeviz.compare import compare
from pipeviz.memory import Model

pytestmark = pytest.mark.browser

SEED = 20251207
BATCH = 4
COSTS = [(1.0, 1.0, 1.0, 0.0), (1.0, 1.0, 1.0, 0.5), (1.0, 1.0, 0.0, 0.0), (18.5, 18.1, 9.3, 0.6),
         (0.1, 0.2, 0.3, 0.0), (1.0, 2.0, 0.5, 0.25), (2.675, 0.015, 1.005, 0.0), (0.7, 1.4, 0.35, 0.05)]


def cases() -> list[dict]:
    rng = random.Random(SEED)
    out = [{"P": 8, "m": 16, "costs": COSTS[0], "model": None}, {"P": 4, "m": 7, "costs": COSTS[0], "model": None},
           {"P": 4000, "m": 2000, "costs": COSTS[0], "model": None},  # every row refused
           {"P": 32, "m": 1500, "costs": COSTS[0], "model": None}]  # too large to compare
    for _ in range(36):
        c = {"P": rng.randint(1, 8), "m": rng.randint(1, 24), "costs": rng.choice(COSTS), "model": None,
             "maxV": rng.choice([8, 8, 3])}
        if rng.random() < 0.6:
            c.update(model=model_fields(rng), hbm=rng.choice([1.0, 20.0, 40.0, 80.0, 141.5]),
                     equalStages=rng.random() < 0.2)
        if rng.random() < 0.15:
            S = rng.choice([c["P"], 2 * c["P"]])
            c["weights"] = [rng.choice([1.0, 1.3, 0.7, 2.675]) for _ in range(S)]
        out.append(c)
    return out


def expected(c: dict):
    model = Model(**c["model"]) if c["model"] else None
    try:
        got = compare(c["P"], c["m"], Costs(*c["costs"]), model, c.get("hbm", 80.0), c.get("weights"),
                      c.get("equalStages", False), c.get("maxV", 8))
    except ConfigError as e:
        return {"error": twin.msg_data(e.msg)}
    return twin.summary({"rows": [r.as_dict() for r in got.rows],
                         "refused": [{"schedule": x.schedule, "V": x.V, "reason": twin.msg_data(x.reason)}
                                     for x in got.refused]})


JS = """([cases]) => JSON.stringify(cases.map((c) => {
  const E = PipevizEngine, W = __twin;
  let model = null;
  if (c.model) {
    const f = c.model;
    model = new E.memory.Model({L: f.L, h: f.h, a: f.a, vocab: f.vocab, untied: f.untied, s: f.s, b: f.b, t: f.t,
      act: f.act, bytesPerParam: f.bytes_per_param, embed: f.embed, head: f.head, name: f.name});
  }
  let got;
  try {
    got = E.compare.compare(c.P, c.m, E.costs(...c.costs), {model: model, hbmGib: c.hbm === undefined ? 80 : c.hbm,
      weights: c.weights || null, equalStages: !!c.equalStages, maxV: c.maxV === undefined ? 8 : c.maxV});
  } catch (e) {
    if (!(e instanceof E.PipevizError)) throw e;
    return {error: W.msg(e)};
  }
  return W.summary({rows: got.rows, refused: got.refused.map((x) => ({schedule: x.schedule, V: x.V,
    reason: W.msg(x.reason)}))});
}))"""


@pytest.fixture(scope="module")
def twin_page(browser):
    page = browser.new_page()
    twin.load(page)
    yield page
    page.close()


def test_compare_matches_python(twin_page):
    all_cases = cases()
    exp = [expected(c) for c in all_cases]
    got = []
    for lo in range(0, len(all_cases), BATCH):
        got += json.loads(twin_page.evaluate(JS, [all_cases[lo: lo + BATCH]]))
    failures = []
    for e, a, c in zip(exp, got, all_cases):
        d = twin.Diff()
        d.walk("", e, a)
        if d.errors:
            failures.append(f"[{json.dumps(c)[:160]}]\n    " + "\n    ".join(d.errors))
    assert not failures, f"{len(failures)} of {len(all_cases)} differ:\n" + "\n".join(failures[:6])
    # What the cases cover: rows with and without a model, fitting and not, refusals
    # of several kinds, and a comparison refused whole.
    ran = [e for e in exp if "rows" in e]
    assert len(ran) >= 30 and exp[3]["error"]["key"] == "compare.too_big"
    assert exp[2]["rows"] == [] and len(exp[2]["refused"]) == 24
    fits = {r["fits"] for e in ran for r in e["rows"]}
    assert fits == {None, True, False}
    keys = {x["reason"]["key"] for e in ran for x in e["refused"]}
    assert keys >= {"dualpipe-v.m_below_2P", "weights.length", "schedule.too_big"}, keys
    assert sum(r["pareto"] for e in ran for r in e["rows"]) >= 60
