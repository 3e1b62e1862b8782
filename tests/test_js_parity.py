"""The standalone page's JavaScript (static/) against its Python original, in
the Debian chromium. Python is the reference; every twin must give the same answer:

  engine.js, schedules/*.js   orders, op times (bit for bit), dependencies, metrics,
                              closed forms (exact fractions), agreement flags, and
                              every error by type, key and arguments (and its text
                              in both languages), on over 300 configurations
  columns.js                  every source column and every property of the figure
                              view, in both units and languages and at several widths
  readouts.js                 readout values and HTML, bars key, table values and HTML
  state.js                    normalize() over generated states and changed-sets
  fields.js                   URL parsing of hostile queries and fragments; encoding
  engine.js (orders as text)  PyTorch's action notation: printing, parsing, checking
                              and timing pasted orders, deadlocks included

Arrays are compared through twin.summary: bit-identical or not, shown in full when not.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
import twin

from pipeviz import NAMES, SCHEDULES, Config, ConfigError, Costs, DeadlockError, OrderError, run
from pipeviz.config import MAX_OPS
from pipeviz.order import Order, parse_order
from pipeviz.simulate import dependencies, simulate
from pipeviz.view import columns, lod, readouts
from pipeviz.view.fields import FIELDS, encode, parse
from pipeviz.view.state import normalize

pytestmark = pytest.mark.browser

SEED = 20250611
BATCH = 20
LANGS = ("en", "zh")
# (unit, lang, plot width) of the figure views compared for every configuration.
VIEWS = [("micro-batches", "en", 816.0), ("chunks", "zh", 333.3), ("micro-batches", "zh", 1517.0),
         ("chunks", "en", 97.5)]
OWN_V = {name: (spec.fixed_V or 2) for name, spec in SCHEDULES.items()}

# Costs that are awkward in binary or in Python's formatting: tenths, ties that :g and
# .2f round to even, long decimals (large exact fractions), the ends of the range.
AWKWARD = [1.0, 0.1, 0.2, 0.3, 0.7, 2.675, 0.015, 1.005, 0.125, 18.5, 18.1, 9.3, 0.6, 3.3333333333333335,
           0.7071067811865476, 1.4142135623730951, 0.5772156649015329, 123456.5, 999999.9999999999, 1e6,
           1e-06, 5e-05, 0.000123, 2.5, 7.0, 1234567.0 / 8]
COSTS = [
    (1.0, 1.0, 1.0, 0.0), (1.0, 1.0, 1.0, 0.5), (1.0, 1.0, 0.0, 0.0), (1.0, 1.0, 0.1, 0.0), (18.5, 18.1, 9.3, 0.6),
    (18.5, 18.1, 9.3, 0.0), (1.0, 1.0, 2.0, 0.0), (1.0, 0.5, 0.75, 0.0), (0.1, 0.2, 0.3, 0.0), (2.0, 1.0, 1.0, 0.0),
    (1.0, 2.0, 0.5, 0.25), (0.3, 0.3, 0.3, 0.0), (3, 3, 3, 0.1), (1e-06, 2e-06, 1e-06, 0.0), (123456.5, 1.0, 0.5, 0.0),
    (1e6, 999999.9999999999, 5e-05, 0.0), (0.7071067811865476, 1.4142135623730951, 0.5772156649015329, 0.001),
    (1.0, 1.0, 1.0, 1e6), (2.675, 0.015, 1.005, 0.0),
]


def cfg(schedule, P, m, V=None, G=None, costs=(1.0, 1.0, 1.0, 0.0), tfb=None):
    tf, tb, tw, comm = costs
    V = OWN_V.get(schedule, 1) if V is None else V
    return {"schedule": schedule, "P": P, "m": m, "V": V, "G": G, "tf": tf, "tb": tb, "tw": tw, "comm": comm, "tfb": tfb}


def build_configs() -> list[dict]:
    rng = random.Random(SEED)
    out = []
    # docs/model.md's reference cases, and the edges: P=1, m=1, m<P, m=P, m=2P-1, the largest.
    for name in NAMES:
        for P, m in [(4, 8), (1, 1), (1, 5), (2, 1), (5, 1), (8, 3), (4, 4), (4, 7), (16, 1), (16, 64), (3, 5)]:
            out.append(cfg(name, P, m))
    for V in (1, 2, 3, 4):
        for P, m in [(1, 3), (2, 2), (4, 8), (3, 5), (8, 16), (16, 64), (5, 7)]:
            out.append(cfg("interleaved", P, m, V))
    # Random configurations over P 1..16, m 1..64, V 1..4, with random awkward costs.
    for _ in range(170):
        name = rng.choice(NAMES)
        P, m = rng.randint(1, 16), rng.randint(1, 64)
        V = rng.randint(1, 4) if name == "interleaved" else None
        if rng.random() < 0.3:
            costs = COSTS[0]
        else:
            costs = (rng.choice(AWKWARD), rng.choice(AWKWARD), rng.choice(AWKWARD + [0.0]),
                     rng.choice([0.0, 0.0] + AWKWARD))
        out.append(cfg(name, P, m, V, costs=costs))
    # Every cost set on every schedule, at a size with a real steady state and at m < P.
    for costs in COSTS:
        for name in NAMES:
            out.append(cfg(name, 4, 8 if name != "zb-v" else 9, costs=costs))
        out.append(cfg(rng.choice(NAMES), 6, 3, costs=costs))
    # Interleaved with an explicit group size G: valid, and each of Megatron's refusals.
    for P, m, V, G in [
        (4, 8, 2, 8), (4, 12, 2, 8), (4, 10, 2, 5), (4, 9, 2, 5), (4, 16, 3, 4), (2, 7, 2, 3), (4, 8, 2, 2),
        (4, 8, 2, 9), (4, 10, 2, 8), (3, 8, 4, 7), (4, 8, 1, 100), (4, 8, 2, 0), (4, 8, 2, 2.5), (4, 8, 2, -1),
        (8, 64, 4, 24), (8, 64, 4, 20),
    ]:
        out.append(cfg("interleaved", P, m, V, G))
    # DualPipe-V: DeepSeek's bubble in and out of the region where it is rank P-1's
    # idle, overlapped pairs faster and slower than F and B apart, and its refusals.
    for P, m in [(1, 2), (2, 4), (3, 7), (4, 8), (4, 10), (8, 16), (5, 17)]:
        for costs, tfb in [(COSTS[0], None), (COSTS[0], 2.0), (COSTS[0], 4.5), ((1.0, 1.0, 0.5, 0.0), 1.2),
                           ((1.0, 2.0, 0.5, 0.0), None), ((1.0, 1.0, 1.5, 0.0), None), ((1.0, 1.0, 1.0, 0.3), 2.5),
                           ((0.7071067811865476, 0.7071067811865476, 0.1, 0.0), 0.9)]:
            out.append(cfg("dualpipe-v", P, m, costs=costs, tfb=tfb))
    out += [cfg("dualpipe-v", 4, 7), cfg("dualpipe-v", 4, 8, 3), cfg("dualpipe-v", 1, 1),
            cfg("dualpipe-v", 4, 8, costs=COSTS[4], tfb=0.0), cfg("1f1b", 4, 8, tfb=1.5)]
    # Invalid combinations and values: each must give Python's message.
    nan, inf = float("nan"), float("inf")
    out += [
        cfg("1f1b", 4, 8, 2), cfg("gpipe", 4, 8, 3), cfg("zb-h1", 4, 8, 2), cfg("zb-h2", 4, 8, 4), cfg("zb-v", 4, 8, 1),
        cfg("zb-v", 4, 8, 3), cfg("interleaved", 4, 3, 2), cfg("interleaved", 8, 7, 2), cfg("interleaved", 16, 1, 4),
        cfg("1f1b", 4, 8, G=4), cfg("zb-v", 4, 8, G=4), cfg("gpipe", 4, 8, G=0),
        cfg("1f1b", 0, 8), cfg("1f1b", 4, 0), cfg("interleaved", 4, 8, 0), cfg("1f1b", -3, 8), cfg("1f1b", 2.5, 8),
        cfg("1f1b", 4, nan), cfg("1f1b", 4, 8, inf), cfg("1f1b", None, 8), cfg("1f1b", True, 8), cfg("1f1b", "4", 8),
        cfg("1f1b", 100, 6000), cfg("zb-v", 16, 20000), cfg("interleaved", 64, 512, 16), cfg("zb-h2", 10**6, 10**6),
        cfg("gpipe", 1, MAX_OPS // 2), cfg("gpipe", 1, MAX_OPS // 2 + 1), cfg("zb-h1", 10**7, 3),
        cfg("foo", 4, 8), cfg("ZB-V", 4, 8), cfg("", 4, 8), cfg(None, 4, 8), cfg(3, 4, 8), cfg("it's <b>", 4, 8),
        cfg("__proto__", 4, 8), cfg("toString", 4, 8),
        cfg("1f1b", 4, 8, costs=(0, 1, 1, 0)), cfg("1f1b", 4, 8, costs=(-1.5, 123456.5, 1, 0)),
        cfg("1f1b", 4, 8, costs=(1, 1, -0.1, -0.0)), cfg("1f1b", 4, 8, costs=(1, 1, 1, -2)),
        cfg("1f1b", 4, 8, costs=(1, 1e-300, 1, 0)), cfg("1f1b", 4, 8, costs=(1, 2e6, 1, 0)),
        cfg("1f1b", 4, 8, costs=(nan, 1, 1, 0)), cfg("1f1b", 4, 8, costs=(1, inf, 1, 0)),
        cfg("1f1b", 4, 8, costs=(1, 1, 1, -inf)), cfg("1f1b", 4, 8, costs=(None, 1, 1, 0)),
        cfg("1f1b", 4, 8, costs=(1, 1, True, 0)), cfg("1f1b", 4, 8, costs=(1, "1", 1, 0)),
        cfg("1f1b", 4, 8, costs=(5e-324, 1, 1, 0)), cfg("1f1b", 4, 8, costs=(1, 1, 1, 1e7)),
        # Both the costs and the config are wrong: Python builds Costs first.
        cfg("1f1b", 0, 8, costs=(0, 1, 1, 0)), cfg("nope", 4, 8, 2, costs=(1, 1, 1, -1)),
    ]
    return out


CONFIGS = build_configs()


def error_data(e) -> dict:
    kind = "DeadlockError" if isinstance(e, DeadlockError) else type(e).__name__
    return {"type": kind, **twin.msg_data(e.msg), "text": {lang: e.text(lang) for lang in LANGS}}


def result_data(res) -> dict:
    """A Python engine result in the page's layout (see JS_RESULT)."""
    order, tl, mt, th = res.order, res.timeline, res.metrics, res.theory

    def steps(s):
        return None if s is None else {"rank": s.rank, "time": s.time, "value": s.value}

    values = readouts.readout_values(res)
    rows = readouts.table_values(res.config, run)
    return {
        "order": {
            "P": order.P, "m": order.m, "S": order.S, "chunksPerRank": order.chunks_per_rank,
            "stageToRank": order.stage_to_rank, "kind": order.kind, "mb": order.mb, "stage": order.stage,
            "mb2": order.mb2, "stage2": order.stage2, "rankPtr": order.rank_ptr, "hasW": order.has_w,
            "kindsUsed": list(order.kinds_used), "text": order.to_text(),
        },
        "timeline": {"start": tl.start, "end": tl.end, "makespan": tl.makespan,
                     "deps": {"ptr": tl.deps.ptr, "idx": tl.deps.idx, "lag": tl.deps.lag}},
        "metrics": {
            "makespan": mt.makespan, "busy": mt.busy, "idle": mt.idle, "span": mt.span,
            "bubbleFraction": mt.bubble_fraction, "steadyBubbleFraction": mt.steady_bubble_fraction,
            "bubbles": dict(zip(("rank", "start", "end"), mt.bubbles)),
            "inflight": steps(mt.inflight), "awaitingB": steps(mt.awaiting_b), "awaitingW": steps(mt.awaiting_w),
            "peakChunks": mt.peak_chunks, "peakMicrobatches": mt.peak_microbatches,
            "peakAwaitingB": mt.peak_awaiting_b, "peakAwaitingW": mt.peak_awaiting_w,
            "p2pPerMicrobatch": mt.p2p_per_microbatch, "p2pArticle": mt.p2p_article,
        },
        "theory": {
            "authors": None if th.authors is None else {
                "who": th.authors.who, "formula": th.authors.formula, "rank": th.authors.rank,
                "idle": [str(th.authors.idle.numerator), str(th.authors.idle.denominator)]},
            "bubble": [str(th.bubble.numerator), str(th.bubble.denominator)], "bubbleFloat": float(th.bubble),
            "bubbleFormula": th.bubble_formula, "bubbleExact": th.bubble_exact, "caveat": th.caveat,
            "steadyBubble": [str(th.steady_bubble.numerator), str(th.steady_bubble.denominator)],
            "steadyFloat": float(th.steady_bubble), "steadyExact": th.steady_exact, "peakChunks": th.peak_chunks,
            "peakAwaitingB": th.peak_awaiting_b, "peakAwaitingW": th.peak_awaiting_w,
            "p2pPerMicrobatch": th.p2p_per_microbatch,
        },
        "agree": {"bubble": res.bubble_agrees, "steady": res.steady_agrees, "peak": res.peak_agrees},
        "views": [columns.figure_view(res, unit, lang, px) for unit, lang, px in VIEWS],
        "readout": {"values": values, "html": {lang: readouts.readout_html(values, lang) for lang in LANGS}},
        "barsKey": {lang: readouts.bars_key_html(order.has_w, lang) for lang in LANGS},
        "table": {"values": rows, "html": {lang: readouts.table_html(rows, lang) for lang in LANGS}},
    }


def expected(c: dict, full: bool = False):
    try:
        costs = Costs(c["tf"], c["tb"], c["tw"], c["comm"], c["tfb"])
        res = run(Config(c["schedule"], c["P"], c["m"], c["V"], costs, c["G"]))
    except ConfigError as e:
        return {"error": error_data(e)}
    data = result_data(res)
    return data if full else twin.summary(data)


JS_RESULT = """
window.__result = (res) => {
  const X = PipevizExplorer, R = X.readouts, E = PipevizEngine;
  const o = res.order, tl = res.timeline, mt = res.metrics, th = res.theory;
  const values = R.readoutValues(res), rows = R.tableValues(res.config, E.run);
  const both = (f) => ({en: f('en'), zh: f('zh')});
  return {
    order: {P: o.P, m: o.m, S: o.S, chunksPerRank: o.chunksPerRank, stageToRank: o.stageToRank, kind: o.kind,
            mb: o.mb, stage: o.stage, mb2: o.mb2, stage2: o.stage2, rankPtr: o.rankPtr, hasW: o.hasW,
            kindsUsed: o.kindsUsed, text: o.toText()},
    timeline: {start: tl.start, end: tl.end, makespan: tl.makespan, deps: tl.deps},
    metrics: {makespan: mt.makespan, busy: mt.busy, idle: mt.idle, span: mt.span, bubbleFraction: mt.bubbleFraction,
              steadyBubbleFraction: mt.steadyBubbleFraction, bubbles: mt.bubbles, inflight: mt.inflight,
              awaitingB: mt.awaitingB, awaitingW: mt.awaitingW, peakChunks: mt.peakChunks,
              peakMicrobatches: mt.peakMicrobatches, peakAwaitingB: mt.peakAwaitingB, peakAwaitingW: mt.peakAwaitingW,
              p2pPerMicrobatch: mt.p2pPerMicrobatch, p2pArticle: mt.p2pArticle},
    theory: {authors: th.authors ? {who: th.authors.who, formula: th.authors.formula, rank: th.authors.rank,
                                    idle: th.authors.idle} : null,
             bubble: th.bubble, bubbleFloat: th.bubble.toNumber(), bubbleFormula: th.bubbleFormula,
             bubbleExact: th.bubbleExact, caveat: th.caveat, steadyBubble: th.steadyBubble,
             steadyFloat: th.steadyBubble.toNumber(), steadyExact: th.steadyExact, peakChunks: th.peakChunks,
             peakAwaitingB: th.peakAwaitingB, peakAwaitingW: th.peakAwaitingW, p2pPerMicrobatch: th.p2pPerMicrobatch},
    agree: {bubble: res.bubbleAgrees, steady: res.steadyAgrees, peak: res.peakAgrees},
    views: VIEWS.map(([unit, lang, px]) => X.columns.figureView(res, unit, lang, px)),
    readout: {values, html: both((l) => R.readoutHtml(values, l))},
    barsKey: both((l) => R.barsKeyHtml(o.hasW, l)),
    table: {values: rows, html: both((l) => R.tableHtml(rows, l))},
  };
};
window.__engineBatch = (batch, full) => JSON.stringify(batch.map((c) => {
  const E = PipevizEngine, W = __twin;
  let res;
  try {
    res = E.run(E.config(c.schedule, c.P, c.m, c.V, E.costs(c.tf, c.tb, c.tw, c.comm, c.tfb), c.G));
  } catch (e) {
    return {error: W.error(e)};
  }
  try {
    return full ? W.full(__result(res)) : W.summary(__result(res));
  } catch (e) {
    return {exception: String(e.stack || e)};
  }
}));
""".replace("VIEWS", json.dumps(VIEWS))


@pytest.fixture(scope="module")
def twin_page(browser):
    page = browser.new_page()
    added = twin.load(page)
    page.add_script_tag(content=JS_RESULT)
    yield page, added
    page.close()


def compare(batch_expected, batch_actual, labels) -> list[str]:
    failures = []
    for exp, act, lab in zip(batch_expected, batch_actual, labels):
        d = twin.Diff()
        d.walk("", exp, act)
        if d.errors:
            failures.append(f"[{lab}]\n    " + "\n    ".join(d.errors))
    return failures


def label(c: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in c.items())


def test_the_page_adds_five_globals(twin_page):
    """Its data, the strings, the engine, the explorer, and the teaching models'
    library (static/teach_models.js, which the served app's callbacks carry too)."""
    _, added = twin_page
    assert added == {"PIPEVIZ_DATA", "PipevizText", "PipevizEngine", "PipevizExplorer", "PipevizTeach"}


def engine_only(c: dict):
    try:
        return run(Config(c["schedule"], c["P"], c["m"], c["V"], Costs(c["tf"], c["tb"], c["tw"], c["comm"], c["tfb"]),
                          c["G"]))
    except ConfigError as e:
        return {"error": {"key": e.msg.key}}


def test_config_list_covers_the_brief():
    assert len(CONFIGS) >= 300
    results = [engine_only(c) for c in CONFIGS]
    valid = [c for c, r in zip(CONFIGS, results) if not isinstance(r, dict)]
    assert {c["schedule"] for c in valid} == set(NAMES)
    assert len(valid) >= 250 and len(CONFIGS) - len(valid) >= 50
    assert {c["P"] for c in valid} >= {1, 16} and {c["m"] for c in valid} >= {1, 64}
    assert {c["V"] for c in valid if c["schedule"] == "interleaved"} == {1, 2, 3, 4}
    assert {r["error"]["key"] for r in results if isinstance(r, dict)} >= {
        "schedule.unknown", "schedule.fixed_v1", "schedule.fixed_v", "schedule.no_G", "schedule.too_big",
        "schedule.too_big_P", "config.whole", "config.low", "cost.number", "cost.range", "cost.range0",
        "interleaved.G_range", "interleaved.G_last", "dualpipe-v.m_below_2P",
    }
    caveats = {r.theory.caveat.key for r in results if not isinstance(r, dict) and r.theory.caveat}
    assert caveats >= {"cf.comm", "cf.uniform", "zb-h1.few_m", "zb-h1.big_w", "zb-h2.few_m", "zb-v.few_m",
                       "dualpipe-v.f_ne_b", "dualpipe-v.big_w", "dualpipe-v.fast_fb"}
    exact = [r for r in results if not isinstance(r, dict) and r.theory.authors is not None and r.theory.bubble_exact]
    assert len(exact) >= 10 and any(r.config.P == 1 for r in exact)


def test_engine_views_and_readouts_match_python(twin_page):
    page, _ = twin_page
    failures, compared = [], 0
    for lo in range(0, len(CONFIGS), BATCH):
        batch = CONFIGS[lo : lo + BATCH]
        got = json.loads(page.evaluate("([b]) => __engineBatch(b, false)", [batch]))
        exp = [expected(c) for c in batch]
        for c, e, a in zip(batch, exp, got):
            d = twin.Diff()
            d.walk("", e, a)
            compared += d.compared
            if d.errors:
                detail = ""
                if "error" not in e and "exception" not in a:  # show the first differing value in full
                    full = json.loads(page.evaluate("([b]) => __engineBatch(b, true)", [[c]]))[0]
                    detail = "\n    first difference: " + str(twin.first_difference(expected(c, full=True), full))
                failures.append(f"[{label(c)}]\n    " + "\n    ".join(d.errors) + detail)
    print(f"\n{len(CONFIGS)} configurations, {compared} values and array digests compared")
    assert not failures, f"{len(failures)} of {len(CONFIGS)} configurations differ:\n" + "\n".join(failures[:10])


# -- normalize() --------------------------------------------------------------------

STATE_FIELDS = list(FIELDS)


def build_states(n: int = 400) -> list[tuple[dict, list[str]]]:
    rng = random.Random(SEED + 1)
    out = []
    for _ in range(n):
        state = {k: f.default for k, f in FIELDS.items()}
        state.update(
            schedule=rng.choice(NAMES), P=rng.randint(1, 32), m=rng.randint(1, 128), V=rng.randint(1, 8),
            unit=rng.choice(FIELDS["unit"].choices), lang=rng.choice(FIELDS["lang"].choices),
        )
        if rng.random() < 0.4:
            state.update(tf=rng.choice(AWKWARD[:20]), tb=rng.choice(AWKWARD[:20]), tw=rng.choice(AWKWARD[:20] + [0.0]),
                         comm=rng.choice([0.0] + AWKWARD[:20]))
        if rng.random() < 0.05:  # a value no widget should hold: nothing can fix it
            state[rng.choice(["tf", "tb"])] = rng.choice([0.0, None, -1.0])
        if rng.random() < 0.15:  # interleaved below P: m snaps
            state.update(schedule="interleaved", V=rng.randint(2, 8), m=rng.randint(1, state["P"]))
        changed = rng.sample(STATE_FIELDS, rng.choice([0, 1, 1, 1, 2, 3, len(STATE_FIELDS)]))
        out.append((state, changed))
    # The article's steps and each rule's edge.
    base = {k: f.default for k, f in FIELDS.items()}
    out += [
        ({**base, "V": 2}, ["V"]), ({**base, "V": 2}, ["V", "schedule"]), ({**base, "schedule": "zb-v"}, ["schedule"]),
        ({**base, "schedule": "interleaved"}, ["schedule"]), ({**base, "schedule": "interleaved"}, ["V"]),
        ({**base, "schedule": "interleaved"}, ["m"]), ({**base, "schedule": "gpipe", "V": 3}, ["V"]),
        ({**base, "schedule": "interleaved", "V": 2, "m": 3}, ["m"]),
        ({**base, "schedule": "interleaved", "V": 8, "P": 32, "m": 1}, ["P"]),
        ({**base, "schedule": "zb-v", "V": 1}, ["V"]), ({**base, "schedule": "zb-v", "V": 5}, ["V"]),
    ]
    return out


JS_NORMALIZE = """([cases]) => JSON.stringify(cases.map(([state, changed]) => {
  const out = PipevizExplorer.state.normalize(state, changed);
  return {state: out.state, notes: out.notes.map(__twin.msg)};
}))"""


def test_normalize_matches_python(twin_page):
    page, _ = twin_page
    cases = build_states()
    got = json.loads(page.evaluate(JS_NORMALIZE, [cases]))
    exp = []
    for state, changed in cases:
        s, notes = normalize(state, changed)
        exp.append({"state": s, "notes": [twin.msg_data(n) for n in notes]})
    failures = compare(exp, got, [f"{s} changed={c}" for s, c in cases])
    kinds = {n["key"] for e in exp for n in e["notes"]}
    assert kinds >= {"rule.to_interleaved", "rule.v_kept", "rule.v_set", "rule.interleaved_v1", "rule.m_snap"}
    assert not failures, f"{len(failures)} of {len(cases)} states differ:\n" + "\n".join(failures[:10])


# -- the URL --------------------------------------------------------------------------

HOSTILE = [
    "", "?", "#", "??P=5", "##P=5", "?P=abc&m=1000&schedule=nope&foo=1", "?schedule=1f1b&V=3", "?P=+5&m=-3",
    "?tf=inf&tb=nan&tw=1e-400&comm=1e400", "?P=0x10&m=1.5e1&V=2.0", "?P=1e1&m=%20%207&V=2.0&schedule=interleaved",
    "?P=32&P=33&P=1", "?tf=%E2%80%83%201.5", "?m=1__0&V=٣", "?P=²&m=①&tb=٣&V=⁴&comm=٠.٥", "?P=" + "9" * 4301,
    "?m=" + "1" * 40, "?m=" + "1" * 41, "?tf=" + "0" * 39 + "1", "?__proto__=1&constructor=2&toString=3",
    "?__proto__[P]=3&P[__proto__]=4&hasOwnProperty=1&valueOf=2", "?preset=__proto__&preset=constructor",
    "?schedule=<b>x</b>&P=<script>alert(1)</script>&m=\"'&V=&amp;", "?schedule=%3Cb%3Ex%3C%2Fb%3E&comm=0.25",
    "?unit=chunks&lang=zh", "?unit=CHUNKS&lang=fr&lang=%E4%B8%AD", "?preset=staircase&m=24", "?preset=gpt",
    "?m=24&preset=staircase", "?preset=nope&preset=" + "x" * 60, "?P=5&&&m=7&=&==&P", "?P&m&V&=5",
    "?tf=1e3&tb=0.005&tw=.5&comm=5.", "?tf=-0&tw=-0&comm=-0.0&P=-0", "?tw=1000.0000000000001&tf=0.00999999",
    "?P=%ED%A0%80&m=%F4%90%80%80&V=%C0%AF&tf=%E2%82&tb=%F0%9F%98&tw=%FF&comm=%EF%BB%BF1",
    "?schedule=%EF%BB%BFgpipe&P=%2B5", "?P=%u0035&m=%%35&V=%3&tf=%zz", "?schedule=zb%2Dv&V=2",
    "?\U0001F600=1&P=\U0001F600\U0001F600", "?" + "x" * 50 + "=1", "?P=1 ", "?P=%091%0A", "?P=\u00a01",
    "?lang=zh&schedule=zb-h2&P=7&m=13&tf=0.7&tb=1.4&tw=0.35&comm=0.05", "?P=5;m=6", "?P=5%26m=6", "?P+=5&m%3D=6",
    "?schedule=1f1b+&schedule=+1f1b", "?P=1_000&m=1,000", "?P=٣٢&m=𝟙𝟚", "?tf=1e-2&tb=1E+3&tw=+.5e0",
]
FRAGMENTS = ["", "#schedule=zb-h1&P=4&m=8", "#P=7", "#preset=drag-v", "#P=abc", "##m=9", "#__proto__=1",
             "#P=%ED%A0%80", "#schedule=zb-v&V=1", "#lang=zh&unit=chunks&m=" + "8" * 45]


def url_cases() -> list[tuple[str, str]]:
    rng = random.Random(SEED + 2)
    cases = [(q, "") for q in HOSTILE] + [("", "#" + q[1:]) for q in HOSTILE]
    cases += [(rng.choice(HOSTILE), f) for f in FRAGMENTS for _ in range(3)]
    tokens = ["P", "m", "V", "tf", "tw", "comm", "schedule", "preset", "unit", "lang", "__proto__", "toString", "x", "%50",
              "P%00"]
    values = ["5", "0", "-1", "1e3", "٣", "²", "①", "abc", "<i>", "%3C", "gpipe", "zb-v", "zh", "chunks", "article",
              "9" * 50, "", "+", "1.5", ".5", "nan", "5e-324", "7e-7", "4e-7", "%F0%9F%98%80", "\U0001F600" * 41]
    for _ in range(150):
        parts = [f"{rng.choice(tokens)}={rng.choice(values)}" for _ in range(rng.randint(1, 6))]
        half = rng.randint(0, len(parts))
        cases.append(("?" + "&".join(parts[:half]), "#" + "&".join(parts[half:])))
    return cases


JS_PARSE = """([cases]) => JSON.stringify(cases.map(([q, f]) => {
  const out = PipevizExplorer.fields.parse(q, f);
  return {updates: Object.fromEntries(out.updates), notes: out.notes.map(__twin.msg)};
}))"""


def test_url_parsing_matches_python(twin_page):
    page, _ = twin_page
    cases = url_cases()
    got = json.loads(page.evaluate(JS_PARSE, [cases]))
    exp = []
    for q, f in cases:
        updates, notes = parse(q, f)
        exp.append({"updates": updates, "notes": [twin.msg_data(n) for n in notes]})
    failures = compare(exp, got, [f"{q!r} {f!r}" for q, f in cases])
    assert not failures, f"{len(failures)} of {len(cases)} URLs differ:\n" + "\n".join(failures[:10])
    # Nothing reached a prototype.
    assert page.evaluate("({}).P === undefined && Object.prototype.P === undefined && ({}).constructor === Object")


def test_url_encoding_matches_python(twin_page):
    page, _ = twin_page
    rng = random.Random(SEED + 3)
    states = []
    for _ in range(100):
        s = {k: f.default for k, f in FIELDS.items()}
        s.update(schedule=rng.choice(NAMES), P=rng.randint(1, 32), m=rng.randint(1, 128), V=rng.randint(1, 8),
                 tf=rng.choice(AWKWARD[:20]), tb=rng.choice([0.01, 1000.0, 999.99, 0.3]), tw=rng.choice([0.0, 1e-05, 0.1]),
                 comm=rng.choice([0.0, 0.6, 123.456]), unit=rng.choice(FIELDS["unit"].choices),
                 lang=rng.choice(FIELDS["lang"].choices))
        states.append(s)
    got = page.evaluate("([ss]) => ss.map((s) => PipevizExplorer.fields.encode(s))", [states])
    assert got == [encode(s) for s in states]


# -- orders as text (bring your own schedule) -------------------------------------------

def order_cases() -> list[dict]:
    """Texts to parse (and, when they parse, check and time), and hand-built orders
    with encoder ops and segments, each with costs."""
    cases = []
    for name, P, m, V in [("1f1b", 4, 8, 1), ("interleaved", 4, 8, 2), ("zb-h1", 3, 5, 1), ("zb-h2", 4, 9, 1),
                          ("zb-v", 4, 8, 2), ("zb-v", 3, 2, 2), ("gpipe", 2, 3, 1)]:
        order = SCHEDULES[name].generate(Config(name, P, m, V))
        cases.append({"text": order.to_text(), "placement": SCHEDULES[name].placement, "P": P})
        lines = order.to_text().splitlines()
        cases.append({"text": "# pasted\n" + "\n".join(line.replace(" ", ",  ") for line in lines) + "\n\n",
                      "placement": SCHEDULES[name].placement, "P": None})
    texts = [
        "0F0 0B0", "0F0 1F0\n1B0 0B0", "0F0 0F1 0B0 0B1\n1F0 1F1 1B0 1B1",  # wrong rank; valid
        "0F0 0B0 0F1 0B1\n1F0 1F1 1B0 1B1", "0F0 0F1 0B0 0B1\n1F1 1F0 1B0 1B1",  # deadlocks
        "0F0 0I0\n1F0 1B0", "0F0 0I0 0W0 0W0\n1F0 1B0", "0F0 0B0 0W0\n1F0 1B0",  # missing W, W twice, stray W
        "0F0 0F0 0B0\n1F0 1B0", "0F0\n1F0 1B0", "0F1 0B1\n1F1 1B1",  # twice, missing B, missing F of mb 0
        "0F0 0F3&1B1", "0F0 1F0&0B0\n", "0F0 0SEND_F0 1RECV_F0\n1F0 1B0 1SEND_B0\n0RECV_B0 0B0",
        "EF0 0F0 0B0 EB0\n1F0 1B0", "EB0 0F0 0B0\n1F0 1B0", "EF0 EF0 0F0 0B0\n1F0 1B0",
        "0F0 0B0 # a comment\n# 9F9\n\n1F0 1B0", "0F0 0B0\u20281F0 1B0", "0F0\u00a00B0\u30001F0",
        "0F0 0B0\r\n1F0 1B0\r\n", "0F0 0B0\x0b1F0 1B0\x1c", "0X0", "0F", "F0", "0F٣", "٣F0", "0F999999999",
        "0F9999999999", "0f0", "0F0 0B0 bogus", "", "   \n# only a comment\n", "0SEND_F0", "EF0",
        "0F0 0B0\n1F0 1B0\n2F0", "0F0&1B0", "0F0 4B0", "<b>0F0</b>",
    ]
    for text in texts:
        cases.append({"text": text, "placement": "loop", "P": None})
    cases += [{"text": "0F0 0B0\n1F0 1B0", "placement": "v", "P": None},
              {"text": "0F0 0B0\n1F0 1B0", "placement": "ring", "P": None},
              {"text": "0F0 0B0\n1F0 1B0", "placement": "loop", "P": 3}]
    return cases


def order_expected(case: dict, costs: Costs) -> dict:
    try:
        order = parse_order(case["text"], case["placement"], case["P"])
    except OrderError as e:
        return {"parse": error_data(e)}
    return {"parse": order_data(order), "run": timing(order, costs)}


def order_data(order: Order) -> dict:
    return {"P": order.P, "m": order.m, "stageToRank": order.stage_to_rank, "kind": order.kind, "mb": order.mb,
            "stage": order.stage, "mb2": order.mb2, "stage2": order.stage2, "rankPtr": order.rank_ptr,
            "segment": order.segment, "text": order.to_text(), "ops": [list(order.op(i)) for i in range(order.n_ops)]}


def timing(order: Order, costs: Costs) -> dict:
    try:
        tl = simulate(order, costs)
    except (OrderError, DeadlockError) as e:
        out = {"error": error_data(e)}
        if isinstance(e, DeadlockError):
            out["blocked"] = [list(b) for b in e.blocked]
            deps = dependencies(order, costs.comm)
            out["deps"] = {"ptr": deps.ptr, "idx": deps.idx, "lag": deps.lag}
        return out
    return {"start": tl.start, "end": tl.end, "deps": {"ptr": tl.deps.ptr, "idx": tl.deps.idx, "lag": tl.deps.lag}}


JS_ORDERS = """([cases, costs]) => {
  const E = PipevizEngine, W = __twin;
  const orderData = (o) => ({P: o.P, m: o.m, stageToRank: o.stageToRank, kind: o.kind, mb: o.mb, stage: o.stage,
    mb2: o.mb2, stage2: o.stage2, rankPtr: o.rankPtr, segment: o.segment, text: o.toText(),
    ops: Array.from({length: o.nOps}, (_, i) => o.op(i))});
  const c = E.costs(...costs);
  const timing = (o) => {
    try { const tl = E.simulate(o, c); return {start: tl.start, end: tl.end, deps: tl.deps}; }
    catch (e) {
      if (!(e instanceof E.PipevizError)) throw e;
      const out = {error: W.error(e)};
      if (e.blocked) { out.blocked = e.blocked; out.deps = E.dependencies(o, c.comm); }
      return out;
    }
  };
  return JSON.stringify(cases.map((k) => {
    let o;
    try {
      o = k.ranks ? E.fromRankLists(k.m, k.s2r, k.ranks, k.segment) : E.parseOrder(k.text, k.placement, k.P);
    } catch (e) { return {parse: W.error(e)}; }
    return W.summary({parse: orderData(o), run: timing(o)});
  }));
}"""


def built_cases() -> list[dict]:
    """Orders with encoder ops and segments (prologue, pipeline, epilogue), valid and not."""
    f = lambda k, mb, s: (k, mb, s)  # noqa: E731
    two = [[f("F", 0, 0), f("F", 1, 0), f("B", 0, 0), f("B", 1, 0)], [f("F", 0, 1), f("B", 0, 1), f("F", 1, 1), f("B", 1, 1)]]
    cases = [
        {"m": 2, "s2r": [0, 1], "ranks": [[("EF", 0), ("EF", 1)] + two[0], two[1] + [("EB", 0), ("EB", 1)]],
         "segment": [[0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 2, 2]]},
        {"m": 2, "s2r": [0, 1], "ranks": [[("EF", 0)] + two[0] + [("EB", 1)], [("EF", 1)] + two[1] + [("EB", 0)]],
         "segment": [[0, 1, 1, 1, 1, 2], [0, 1, 1, 1, 1, 2]]},
        {"m": 2, "s2r": [0, 1], "ranks": [[("EF", 0), ("EF", 1)] + two[0], two[1] + [("EB", 0), ("EB", 1)]], "segment": None},
        {"m": 2, "s2r": [0, 1], "ranks": [two[0] + [("EB", 0)], two[1]], "segment": None},  # EB without EF
        {"m": 2, "s2r": [0, 1], "ranks": [[("EF", 0)] + two[0], two[1]], "segment": None},  # EF of mb 1 missing
        {"m": 2, "s2r": [0, 1], "ranks": [[("EB", 0), ("EF", 0), ("EF", 1)] + two[0] + [("EB", 1)], two[1]],
         "segment": None},  # deadlock on an encoder op
        {"m": 2, "s2r": [0, 1], "ranks": two, "segment": [[1, 1, 1, 1], [1, 1, 1]]},  # segment of the wrong size
        {"m": 2, "s2r": [0, 0], "ranks": [two[0] + [f("F", 0, 1), f("F", 1, 1), f("B", 0, 1), f("B", 1, 1)], []],
         "segment": None},  # everything on rank 0; rank 1 idles
        {"m": 2, "s2r": [0, 1], "ranks": [[("F&B", 0, 0, 0, 1)], []], "segment": None},  # F&B across ranks
        {"m": 2, "s2r": [0, 1, 1, 0], "segment": None,  # an overlapped pair and a split backward, in a V
         "ranks": [[f("F", 0, 0), f("F", 1, 0), f("F", 0, 3), ("F&B", 1, 3, 0, 3), f("B", 1, 3), f("B", 0, 0), f("B", 1, 0)],
                   [f("F", 0, 1), f("F", 0, 2), f("F", 1, 1), f("F", 1, 2), f("B", 0, 2), f("I", 0, 1), f("W", 0, 1),
                    f("B", 1, 2), f("B", 1, 1)]]},
        {"m": 1, "s2r": [0, 2], "ranks": [[f("F", 0, 0)], [f("F", 0, 1)]], "segment": None},  # rank out of range
        {"m": 1, "s2r": [0], "ranks": [[("X", 0, 0)]], "segment": None},  # unknown kind
        {"m": 1, "s2r": [0], "ranks": [[f("F", 5, 0), f("B", 0, 0)]], "segment": None},  # mb out of range
    ]
    return cases


def built_expected(case: dict, costs: Costs) -> dict:
    try:
        order = Order.from_rank_lists(case["m"], case["s2r"], case["ranks"], case["segment"])
    except OrderError as e:
        return {"parse": error_data(e)}
    return {"parse": order_data(order), "run": timing(order, costs)}


@pytest.mark.parametrize("costs", [(1.0, 1.0, 1.0, 0.0), (0.7, 1.3, 0.1, 0.25)])
def test_orders_as_text_match_python(twin_page, costs):
    page, _ = twin_page
    c = Costs(*costs)
    cases = order_cases() + built_cases()
    got = json.loads(page.evaluate(JS_ORDERS, [cases, list(costs)]))
    exp = [twin.summary(order_expected(k, c) if "text" in k else built_expected(k, c)) for k in cases]
    failures = compare(exp, got, [repr(k.get("text", k))[:120] for k in cases])
    assert not failures, f"{len(failures)} of {len(cases)} orders differ:\n" + "\n".join(failures[:10])
    keys = {e["parse"].get("key") for e in exp} | {e.get("run", {}).get("error", {}).get("key") for e in exp}
    assert keys >= {"order.token", "order.empty", "order.lines", "order.placement", "order.wrong_rank", "order.twice",
                    "order.missing_w", "order.stray_w", "order.missing_b", "order.missing_f", "order.range",
                    "order.kind", "order.encoder_missing", "order.segment", "order.stage_to_rank", "deadlock"}


def test_text_formatting_matches_python(twin_page):
    """The arguments of messages and the readouts' numbers: Python's :g, .2f, repr()
    and f"{n:,}", rounding ties to even on the exact binary value."""
    page, _ = twin_page
    rng = random.Random(SEED + 4)
    xs = [0.0, -0.0, 1.0, 0.5, 2.5, 0.125, 1e-05, 1e-04, 0.0001234565, 123456.5, 1234565.0, 999999.5, 9999995.0,
          1e16, 1e21, 1.5e-07, 5e-324, 1.7976931348623157e308, 2.675, 0.015, 1.005, 0.045, 100 * (3 / 11), 27.275,
          float("inf"), float("-inf"), float("nan")]
    xs += [rng.uniform(-1e7, 1e7) for _ in range(300)] + [10 ** rng.uniform(-8, 20) for _ in range(300)]
    xs += [round(rng.uniform(0, 100), rng.randint(0, 4)) + 0.005 for _ in range(200)]
    got = page.evaluate("""([xs]) => xs.map((x) => { const F = PipevizText.format;
        return [F.g(x), F.fixed(x, 2), F.fixed(x, 0), F.repr(x), PipevizText.argText(PipevizText.float(x), 'en')]; })""",
                        [xs])
    exp = [[f"{x:g}", f"{x:.2f}", f"{x:.0f}", repr(x), f"{x:g}"] for x in xs]
    assert got == exp
    ints = [0, 7, 1000, 999999, 1234567, 10**15, -42]
    got = page.evaluate("([ns]) => ns.map((n) => [PipevizText.format.commas(n), PipevizText.argText(n, 'en')])", [ints])
    assert got == [[f"{n:,}", str(n)] for n in ints]


# -- the timeline's level of detail (view/lod.py, columns.js `level`) ------------------

LOD_CONFIGS = [("interleaved", 32, 128, 8), ("zb-v", 32, 128, 2), ("zb-h2", 12, 48, 1), ("gpipe", 32, 128, 1),
               ("1f1b", 8, 32, 1), ("interleaved", 16, 64, 4), ("dualpipe-v", 32, 128, 2), ("dualpipe-v", 4, 10, 2)]
LOD_WINDOWS = [None, (0.0, 0.5), (0.3, 0.31), (0.9, 1.2), (-0.2, 0.05), (0.5, 0.5 + 1e-6)]  # fractions of the makespan


def lod_cases() -> list[dict]:
    return [{"cfg": c, "px": px, "w": w} for c in LOD_CONFIGS for px in (120.0, 816.0, 1517.0) for w in LOD_WINDOWS]


JS_LOD = """([cases]) => JSON.stringify(cases.map(({cfg, px, w}) => {
  const E = PipevizEngine, X = PipevizExplorer;
  const res = E.run(E.config(cfg[0], cfg[1], cfg[2], cfg[3], E.costs(1, 1, 1, 0), null));
  const span = res.metrics.makespan, win = w === null ? null : [w[0] * span, w[1] * span];
  const plain = (cols) => Object.fromEntries(Object.entries(cols).map(([k, v]) => [k, Array.from(v)]));
  const boxes = X.columns.ops(res, px, win);
  const lines = X.columns.thinLines(X.columns.inflightSteps(res), ...(win || X.columns.fullWindow(res)), px);
  return {ops: plain(boxes), fb: plain(X.columns.fbHalves(res, boxes)), labels: plain(X.columns.labels(res, px, win)),
          gaps: plain(X.columns.bubbles(res, px, win)), lines: lines.xs.map((x, r) => [Array.from(x), Array.from(lines.ys[r])])};
}))"""


def test_level_of_detail_matches_python(twin_page):
    """The boxes, labels, hatched gaps and over-time lines for full views and zoomed
    windows, merges and thinning included."""
    page, _ = twin_page
    cases = lod_cases()
    got = json.loads(page.evaluate(JS_LOD, [cases]))
    exp, merged, dropped, thinned = [], 0, 0, 0
    for c in cases:
        res = run(Config(*c["cfg"]))
        span = res.metrics.makespan
        win = None if c["w"] is None else (c["w"][0] * span, c["w"][1] * span)
        o = columns.ops(res, c["px"], win)
        merged += int((o["count"] > 1).sum())
        lab = columns.labels(res, c["px"], win)
        exp.append({"ops": {k: v.tolist() for k, v in o.items()},
                    "fb": {k: v.tolist() for k, v in columns.fb_halves(res, o).items()},
                    "labels": {k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in lab.items()},
                    "gaps": {k: v.tolist() for k, v in columns.bubbles(res, c["px"], win).items()}})
        full = columns.inflight_steps(res)
        lines = lod.thin_lines(full, *(win or columns.full_window(res)), c["px"])
        exp[-1]["lines"] = [[x.tolist(), y.tolist()] for x, y in zip(lines["xs"], lines["ys"])]
        dropped += len(res.metrics.bubbles[0]) - len(exp[-1]["gaps"]["left"])
        thinned += sum(map(len, full["xs"])) - sum(map(len, lines["xs"]))
    assert merged > 1000  # the cases exercise merging, not only one box per op
    assert dropped > 1000  # and gaps too narrow to hatch
    assert thinned > 100_000  # and lines' vertices left out
    failures = compare(exp, got, [f"{c['cfg']} px={c['px']} window={c['w']}" for c in cases])
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:10])


def test_thinning_a_line_matches_python_at_ties_and_edges(twin_page):
    """lod.thin and columns.js `thin` on paths with repeated times, equal values (the
    first of equals is kept), vertices beyond the culled window and tiny windows."""
    page, _ = twin_page
    rng = random.Random(13)
    cases = []
    for _ in range(300):
        n = rng.randint(1, 400)
        x, t = [], 0.0
        for _ in range(n):
            t += rng.choice([0.0, 0.0, 0.25, 0.5, 1.0, 7.0])
            x.append(t)
        y = [float(rng.randint(-2, 2)) for _ in range(n)]
        x0 = rng.uniform(-10, t + 10)
        cases.append({"x": x, "y": y, "x0": x0, "x1": x0 + rng.choice([1e-9, 0.5, 3.0, 40.0, 500.0]),
                      "px": rng.choice([1.0, 13.0, 816.0])})
    got = page.evaluate("""([cases]) => cases.map((c) => Array.from(PipevizExplorer.columns.thin(
        Float64Array.from(c.x), Float32Array.from(c.y), c.x0, c.x1, c.px)))""", [cases])
    want = [lod.thin(np.array(c["x"]), np.array(c["y"], dtype=np.float32), c["x0"], c["x1"], c["px"]).tolist()
            for c in cases]
    assert sum(len(c["x"]) - len(w) for c, w in zip(cases, want)) > 1000  # vertices left out, not only kept
    assert got == want


# -- your own order (custom.py and view/own_order.py) -------------------------------

ORDERS_DIR = __import__("pathlib").Path(__file__).resolve().parent / "data" / "orders"


def own_cases() -> list[dict]:
    """Orders to read, time, draw and read out as the explorer shows them: PyTorch's
    own, every schedule's text and JSON, deadlocks, and what is refused."""
    from pipeviz.export import to_json

    cases = []
    for f in sorted(ORDERS_DIR.glob("*.txt")):
        text = f.read_text()
        cases.append({"text": text, "placement": "v" if "placement v" in text else "loop"})
    for name, P, m, V, tfb in [("dualpipe-v", 4, 8, 2, 2.0), ("zb-h1", 3, 5, 1, None), ("interleaved", 2, 4, 3, None)]:
        res = run(Config(name, P, m, V, Costs(tfb=tfb)))
        placement = SCHEDULES[name].placement
        cases.append({"text": res.order.to_text(), "placement": placement})
        cases.append({"text": to_json(res), "placement": placement})
        cases.append({"text": json.dumps(json.loads(to_json(res))["ops"], indent=1), "placement": placement})
    texts = [
        "0F0 0F1 0B0 0B1\n1F0 1B0 1F1 1B1\n2F0 2F1 2B0 2B1", "0B0 0F0", "0F0 0B0 0F1 0B1\n1F0 1F1 1B0 1B1",
        "0F0 7F0 7B0 0B0\n1F0 6F0 6B0 1B0\n2F0 5F0 5B0 2B0\n3F0 4F0 4B0 3B0", "0F0 0Q0", "",
        "0F0 0F3&1B0\n1F0 1B0", "0F0 1F0&0B0 1B0\n",
        '{"ops": [1, 2]', "[NaN]", '[{"rank": 0, "kind": "F", "mb": 1.0, "stage": 0}]',
        '[{"rank": 0, "kind": "F", "mb": -0, "stage": 0}, {"rank": 0, "kind": "B", "mb": 0, "stage": 0}]',
        '[{"rank": 0, "kind": "F", "mb": 1e400, "stage": 0}]', '[{"rank": 0, "kind": "F", "mb": ' + "9" * 4400 + ', "stage": 0}]',
        '[{"rank": 0, "kind": "F", "mb": 12345678901234567890, "stage": 0}]', '[{"rank": 0, "kind": ["F"], "mb": 0}]',
        '[{"rank": 0, "kind": "F&B", "parts": [{"kind": "B"}, {"kind": "F"}]}]',
        '[{"rank": 1, "kind": "F", "mb": 0, "stage": 1}]',
        '[{"rank": true, "kind": "F", "mb": 0, "stage": 0}]', '{"P": 4}', "[]", "{}", "[" * 40 + "]" * 40,
        '["[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["]', '{"ops": [{"rank": 0, "kind": "F", "mb": 0, "stage": 0, "__proto__": 1,'
        ' "constructor": 2}, {"rank": 0, "kind": "B", "backward": "full", "mb": 0, "stage": 0}]}',
        '[{"rank": 0, "kind": "F", "mb": 0, "stage": 0}, {"rank": 0, "kind": "B", "backward": "input", "mb": 0, "stage": 0}]',
        " \n\t[1]", "\ufeff[1]", "[1.5]",
    ]
    cases += [{"text": t, "placement": "loop"} for t in texts]
    cases += [{"text": texts[0], "placement": "v"}, {"text": "0F0 0B0", "placement": "ring"}]
    return cases


def own_expected(case: dict, costs: Costs, full: bool = False) -> dict:
    from pipeviz.custom import run_text

    try:
        res = run_text(case["text"], case["placement"], costs)
    except OrderError as e:
        return {"error": error_data(e)}
    s = res.stuck
    data = {
        "order": {"P": res.order.P, "m": res.order.m, "kind": res.order.kind, "mb": res.order.mb,
                  "stage": res.order.stage, "rankPtr": res.order.rank_ptr, "text": res.order.to_text()},
        "config": {"P": res.config.P, "m": res.config.m, "V": res.config.V, "schedule": res.config.schedule},
        "timeline": {"start": res.timeline.start, "end": res.timeline.end, "makespan": res.timeline.makespan},
        "metrics": {"peakChunks": res.metrics.peak_chunks, "idle": res.metrics.idle,
                    "bubbleFraction": res.metrics.bubble_fraction},
        "deadlock": None if res.deadlock is None else error_data(res.deadlock),
        "stuck": None if s is None else {"rank": s.rank, "left": s.left, "right": s.right, "op": s.op, "waits": s.waits,
                                         "waitsRank": s.waits_rank, "token": s.token, "waitsToken": s.waits_token},
        "views": [columns.figure_view(res, unit, lang, px) for unit, lang, px in VIEWS],
    }
    values = readouts.readout_values(res)
    rows = readouts.table_values(res.config, run, own=res)
    data["readout"] = {"values": values, "html": {lang: readouts.readout_html(values, lang) for lang in LANGS}}
    data["table"] = {"values": rows, "html": {lang: readouts.table_html(rows, lang) for lang in LANGS}}
    return data if full else twin.summary(data)


JS_OWN = """([cases, costs]) => {
  const E = PipevizEngine, W = __twin, X = PipevizExplorer, R = X.readouts;
  const c = E.costs(...costs);
  const both = (f) => ({en: f('en'), zh: f('zh')});
  return JSON.stringify(cases.map((k) => {
    let res;
    try { res = E.custom.runText(k.text, k.placement, c); } catch (e) { return {error: W.error(e)}; }
    const s = res.stuck, values = R.readoutValues(res), rows = R.tableValues(res.config, E.run, null, null, res);
    return W.summary({
      order: {P: res.order.P, m: res.order.m, kind: res.order.kind, mb: res.order.mb, stage: res.order.stage,
              rankPtr: res.order.rankPtr, text: res.order.toText()},
      config: {P: res.config.P, m: res.config.m, V: res.config.V, schedule: res.config.schedule},
      timeline: {start: res.timeline.start, end: res.timeline.end, makespan: res.timeline.makespan},
      metrics: {peakChunks: res.metrics.peakChunks, idle: res.metrics.idle, bubbleFraction: res.metrics.bubbleFraction},
      deadlock: res.deadlock ? W.error(res.deadlock) : null,
      stuck: s ? {rank: s.rank, left: s.left, right: s.right, op: s.op, waits: s.waits, waitsRank: s.waitsRank,
                  token: s.token, waitsToken: s.waitsToken} : null,
      views: VIEWS.map(([unit, lang, px]) => X.columns.figureView(res, unit, lang, px)),
      readout: {values, html: both((l) => R.readoutHtml(values, l))},
      table: {values: rows, html: both((l) => R.tableHtml(rows, l))},
    });
  }));
}""".replace("VIEWS", json.dumps(VIEWS))


@pytest.mark.parametrize("costs", [(1.0, 1.0, 1.0, 0.0, None), (0.7, 1.3, 0.1, 0.25, 1.5)])
def test_own_orders_match_python(twin_page, costs):
    page, _ = twin_page
    c = Costs(*costs)
    cases = own_cases()
    got = json.loads(page.evaluate(JS_OWN, [cases, list(costs)]))
    exp = [own_expected(k, c) for k in cases]
    failures = compare(exp, got, [repr(k["text"])[:100] + " " + k["placement"] for k in cases])
    assert not failures, f"{len(failures)} of {len(cases)} orders differ:\n" + "\n".join(failures[:10])
    keys = {e["error"]["key"] for e in exp if "error" in e}
    assert keys >= {"order.json", "order.json_deep", "order.json_ops", "order.json_op", "order.json_number",
                    "order.json_kind", "order.json_pair", "order.json_empty_rank", "order.wrong_placement",
                    "order.token", "order.empty", "order.placement"}
    assert sum(e.get("deadlock") is not None for e in exp) >= 3


def own_states() -> list[tuple[dict, list[str]]]:
    base = {k: f.default for k, f in FIELDS.items()}
    dual = (ORDERS_DIR / "torch-DualPipeV-P4-m8-V2.txt").read_text()
    big = run(Config("interleaved", 8, 130, 2)).order.to_text()  # m beyond the slider: P and V follow, m stays
    shown = [({**base, "order": dual, "placement": "v", "custom": True}, ch)
             for ch in (["custom"], ["order"], ["placement"], ["P"], ["m", "order"], ["schedule"], ["tf"], ["V"], [])]
    shown += [({**base, "order": t, "placement": p, "custom": True, "schedule": "zb-v", "V": 2, "m": 3}, ["custom"])
              for t, p in [(dual, "loop"), ("0Q0", "loop"), ("", "v"), (big, "loop"), ("[1]", "loop")]]
    shown += [({**base, "order": dual, "placement": "v", "custom": False}, ["order"]),
              ({**base, "order": dual, "placement": "v", "custom": True, "schedule": "interleaved", "V": 3, "m": 2},
               ["m"])]
    return shown


def test_own_order_rules_match_python(twin_page):
    page, _ = twin_page
    cases = own_states()
    got = json.loads(page.evaluate(JS_NORMALIZE, [cases]))
    exp = []
    for state, changed in cases:
        s, notes = normalize(state, changed)
        exp.append({"state": s, "notes": [twin.msg_data(n) for n in notes]})
    failures = compare(exp, got, [f"{str(s)[:80]} changed={c}" for s, c in cases])
    assert not failures, f"{len(failures)} of {len(cases)} states differ:\n" + "\n".join(failures[:10])
    assert any(n["key"] == "rule.custom_off" for e in exp for n in e["notes"])
