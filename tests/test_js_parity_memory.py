"""The page's JavaScript for memory and unequal stages against its Python original, in
the Debian chromium (the twins of engine.py's stage weights and decompose.py in
engine.js, memory.py in memory.js, view/memory_view.py in memory_view.js, and their
use in state.js, columns.js and readouts.js). Python is the reference:

  engine        op times (bit for bit), metrics, the closed form's caveat and
                exactness, the bubble's parts, and every stage-weights error, on
                generated configurations with generated weights
  memory        bytes per rank: layers, parameters, peaks and their parts, the step
                function over time, the HBM excess and the tightest rank, and every
                model error, on generated configurations and models
  explorer      for generated explorer states (a model or none, its fields, stage
                weights from the model, equal or typed): the configuration or its
                error, the figure view (memory bars, over-budget parts, GiB over time)
                in both languages and units, the memory readout, the readout with the
                bubble's parts, the comparison table with its memory column
  normalize     the model rule over generated states and changed-sets
  URL           the new fields in hostile queries and fragments; encoding
  weights text  typed weights, hostile ones included
"""

from __future__ import annotations

import json
import random

import pytest
import twin

from pipeviz import NAMES, SCHEDULES, Config, ConfigError, Costs, run
from pipeviz.memory import PRESETS, Memory, Model, balance_memory, measure_memory, stage_weights
from pipeviz.stages import parse_weights
from pipeviz.view import columns, memory_view, readouts
from pipeviz.view.fields import FIELDS, encode, parse
from pipeviz.view.state import config, normalize, row_config

pytestmark = pytest.mark.browser

SEED = 20250612
BATCH = 20
LANGS = ("en", "zh")
OWN_V = {name: (spec.fixed_V or 2) for name, spec in SCHEDULES.items()}
AWKWARD = [1.0, 0.1, 0.3, 0.7, 2.675, 1.005, 0.125, 18.5, 9.3, 0.6, 3.3333333333333335, 0.7071067811865476, 1e-3, 999.99]
COSTS = [(1.0, 1.0, 1.0, 0.0), (1.0, 1.0, 1.0, 0.5), (1.0, 1.0, 0.0, 0.0), (18.5, 18.1, 9.3, 0.6), (0.1, 0.2, 0.3, 0.0),
         (1.0, 2.0, 0.5, 0.25), (2.675, 0.015, 1.005, 0.0)]


def stage_count(name: str, P: int, V: int) -> int:
    return SCHEDULES[name].chunks_per_rank(V) * P


def weights_for(rng: random.Random, S: int):
    kind = rng.random()
    if kind < 0.15:
        return [1.0] * S
    if kind < 0.25:
        return [rng.choice(AWKWARD)] * S  # equal, not 1
    return [rng.choice(AWKWARD + [rng.uniform(0.2, 4.0)]) for _ in range(S)]


# -- engine: stage weights and the bubble's parts ------------------------------------------


def engine_cases() -> list[dict]:
    rng = random.Random(SEED)
    out = []
    for _ in range(160):
        name = rng.choice(NAMES)
        P, m = rng.randint(1, 12), rng.randint(1, 40)
        V = rng.randint(1, 4) if name == "interleaved" else OWN_V[name] if SCHEDULES[name].fixed_V else 1
        if name == "interleaved" and m < P:
            m = P
        costs = rng.choice(COSTS)
        out.append({"schedule": name, "P": P, "m": m, "V": V, "costs": costs,
                    "weights": weights_for(rng, stage_count(name, P, V))})
    nan, inf = float("nan"), float("inf")
    out += [
        {"schedule": "1f1b", "P": 4, "m": 8, "V": 1, "costs": COSTS[0], "weights": [1.3, 1, 1, 1.2]},
        {"schedule": "1f1b", "P": 4, "m": 8, "V": 1, "costs": COSTS[1], "weights": [1.3, 1, 1, 1.2]},
        {"schedule": "zb-v", "P": 4, "m": 8, "V": 2, "costs": COSTS[0], "weights": [1.3, 1, 1, 1.2]},  # length
        {"schedule": "1f1b", "P": 4, "m": 8, "V": 1, "costs": COSTS[0], "weights": [1, 0, 1, 1]},
        {"schedule": "1f1b", "P": 4, "m": 8, "V": 1, "costs": COSTS[0], "weights": [1, -2.5, 1, 1]},
        {"schedule": "1f1b", "P": 4, "m": 8, "V": 1, "costs": COSTS[0], "weights": [1, 1, nan, 1]},
        {"schedule": "1f1b", "P": 4, "m": 8, "V": 1, "costs": COSTS[0], "weights": [1, 1, 1, inf]},
        {"schedule": "1f1b", "P": 4, "m": 8, "V": 1, "costs": COSTS[0], "weights": [1, 1, 1, 1000.5]},
        {"schedule": "1f1b", "P": 4, "m": 8, "V": 1, "costs": COSTS[0], "weights": [1, True, 1, 1]},
        {"schedule": "1f1b", "P": 4, "m": 8, "V": 1, "costs": COSTS[0], "weights": [1, "2", 1, 1]},
        {"schedule": "1f1b", "P": 4, "m": 8, "V": 1, "costs": COSTS[0], "weights": []},
        {"schedule": "1f1b", "P": 4, "m": 8, "V": 1, "costs": COSTS[0], "weights": "1,1,1,1"},
        {"schedule": "1f1b", "P": 0, "m": 8, "V": 1, "costs": COSTS[0], "weights": [1, 0, 1, 1]},  # P first
        {"schedule": "gpipe", "P": 4, "m": 8, "V": 3, "costs": COSTS[0], "weights": [1, 1]},  # V before the length
        {"schedule": "interleaved", "P": 9, "m": 3, "V": 2, "costs": COSTS[0], "weights": [1.0] * 18},
        {"schedule": "interleaved", "P": 8, "m": 16, "V": 2, "costs": COSTS[0], "weights": [1.1 + 0.05 * s for s in range(16)]},
    ]
    return out


def error_data(e) -> dict:
    return {"type": type(e).__name__, **twin.msg_data(e.msg), "text": {lang: e.text(lang) for lang in LANGS}}


def engine_expected(c: dict):
    try:
        res = run(Config(c["schedule"], c["P"], c["m"], c["V"], Costs(*c["costs"]), stage_weights=c["weights"]))
    except ConfigError as e:
        return {"error": error_data(e)}
    parts = res.bubble_parts
    th, mt = res.theory, res.metrics
    return twin.summary({
        "stageWeights": list(res.config.stage_weights), "start": res.timeline.start, "end": res.timeline.end,
        "makespan": mt.makespan, "bubble": mt.bubble_fraction, "steady": mt.steady_bubble_fraction, "busy": mt.busy,
        "caveat": th.caveat, "bubbleExact": th.bubble_exact, "steadyExact": th.steady_exact,
        "agree": [res.bubble_agrees, res.steady_agrees, res.peak_agrees],
        "parts": None if parts is None else {
            "ideal": parts.ideal, "imbalance": parts.imbalance, "comm": parts.comm, "total": parts.total,
            "makespanIdeal": parts.makespan_ideal, "makespanNoComm": parts.makespan_no_comm},
    })


JS_ENGINE = """([cases]) => JSON.stringify(cases.map((c) => {
  const E = PipevizEngine, W = __twin;
  let res;
  try {
    res = E.run(E.config(c.schedule, c.P, c.m, c.V, E.costs(...c.costs), null, null, null, c.weights));
  } catch (e) { return {error: W.error(e)}; }
  const th = res.theory, mt = res.metrics, p = res.bubbleParts;
  return W.summary({
    stageWeights: res.config.stageWeights, start: res.timeline.start, end: res.timeline.end, makespan: mt.makespan,
    bubble: mt.bubbleFraction, steady: mt.steadyBubbleFraction, busy: mt.busy, caveat: th.caveat,
    bubbleExact: th.bubbleExact, steadyExact: th.steadyExact, agree: [res.bubbleAgrees, res.steadyAgrees, res.peakAgrees],
    parts: p === null ? null : p,
  });
}))"""


@pytest.fixture(scope="module")
def twin_page(browser):
    page = browser.new_page()
    twin.load(page)
    yield page
    page.close()


def compare(exp, got, labels) -> list[str]:
    failures = []
    for e, a, lab in zip(exp, got, labels):
        d = twin.Diff()
        d.walk("", e, a)
        if d.errors:
            failures.append(f"[{lab}]\n    " + "\n    ".join(d.errors))
    return failures


def batched(page, js, cases, extra=()):
    got = []
    for lo in range(0, len(cases), BATCH):
        got += json.loads(page.evaluate(js, [cases[lo : lo + BATCH], *extra]))
    return got


def test_engine_with_stage_weights_matches_python(twin_page):
    cases = engine_cases()
    exp = [engine_expected(c) for c in cases]
    got = batched(twin_page, JS_ENGINE, cases)
    failures = compare(exp, got, [repr(c)[:200] for c in cases])
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:8])
    keys = {e["error"]["key"] for e in exp if "error" in e}
    assert keys >= {"weights.length", "weights.range", "weights.empty", "weights.type", "config.low", "schedule.fixed_v1"}
    assert sum(1 for e in exp if "error" not in e and e["parts"] is not None) >= 100
    assert any("error" not in e and e["caveat"] and e["caveat"]["key"] == "cf.and" for e in exp)


# -- memory: bytes per rank ---------------------------------------------------------------


def model_fields(rng: random.Random) -> dict:
    name = rng.choice([*PRESETS, "custom", "custom"])
    shape = dict(PRESETS[name]) if name in PRESETS else dict(
        L=rng.randint(1, 96), h=rng.choice([64, 1000, 4096, 5120, 8192]), a=rng.choice([1, 7, 32, 40, 64]),
        vocab=rng.randint(1, 130_000), untied=rng.random() < 0.5)
    return dict(shape, name=name, s=rng.choice([1, 128, 2048, 4096, 8192, 1048576]), b=rng.choice([1, 2, 3, 8, 4096]),
                t=rng.choice([1, 2, 3, 8, 64]), act=rng.choice(["none", "flash", "full"]),
                bytes_per_param=rng.choice([16, 18]), embed=rng.choice([0.0, 0.0, 1.5, 2.675]),
                head=rng.choice([0.0, 3.0, 0.1]))


def memory_cases() -> list[dict]:
    rng = random.Random(SEED + 1)
    out = []
    for _ in range(140):
        name = rng.choice(NAMES)
        P, m = rng.randint(1, 10), rng.randint(1, 30)
        V = rng.randint(1, 3) if name == "interleaved" else OWN_V[name] if SCHEDULES[name].fixed_V else 1
        m = max(m, P) if name == "interleaved" else max(m, 2 * P) if name == "dualpipe-v" else m
        out.append({"schedule": name, "P": P, "m": m, "V": V, "costs": rng.choice(COSTS), "model": model_fields(rng),
                    "hbm": rng.choice([1.0, 20.0, 40.0, 80.0, 141.5, 4096.0]),
                    "balance": "bpipe" if rng.random() < 0.4 else None})
    gpt = dict(PRESETS["gpt3-6.7b"], name="gpt3-6.7b")
    out += [  # docs/model.md's GPT-3 6.7B check, and each model error
        {"schedule": "1f1b", "P": 8, "m": 8, "V": 1, "costs": COSTS[0], "model": gpt, "hbm": 40.0},
        {"schedule": "1f1b", "P": 8, "m": 8, "V": 1, "costs": COSTS[0], "model": {**gpt, "act": "flash"}, "hbm": 80.0},
        {"schedule": "zb-v", "P": 8, "m": 16, "V": 2, "costs": COSTS[0], "model": {**gpt, "L": 12}, "hbm": 80.0},
        {"schedule": "1f1b", "P": 4, "m": 8, "V": 1, "costs": COSTS[0], "model": {**gpt, "L": 0}, "hbm": 80.0},
        {"schedule": "1f1b", "P": 4, "m": 8, "V": 1, "costs": COSTS[0], "model": {**gpt, "t": 65}, "hbm": 80.0},
        {"schedule": "1f1b", "P": 4, "m": 8, "V": 1, "costs": COSTS[0], "model": {**gpt, "act": "selective"}, "hbm": 80.0},
        {"schedule": "1f1b", "P": 4, "m": 8, "V": 1, "costs": COSTS[0], "model": {**gpt, "bytes_per_param": 12}, "hbm": 80.0},
        {"schedule": "1f1b", "P": 4, "m": 8, "V": 1, "costs": COSTS[0], "model": {**gpt, "embed": -1.0}, "hbm": 80.0},
        {"schedule": "zb-h1", "P": 4, "m": 8, "V": 1, "costs": COSTS[2], "model": {**gpt, "act": "full"}, "hbm": 80.0},
    ]
    return out


def memory_data(mem) -> dict:
    return {
        "layers": mem.layers, "params": mem.params, "peak": mem.peak, "peakB": mem.peak_b, "peakW": mem.peak_w,
        "activations": {"rank": mem.activations.rank, "time": mem.activations.time, "value": mem.activations.value},
        "hbm": mem.hbm, "over": mem.over, "tightest": mem.tightest, "fits": mem.fits,
    }


def memory_expected(c: dict):
    res = run(Config(c["schedule"], c["P"], c["m"], c["V"], Costs(*c["costs"]), balance=c.get("balance")))
    try:
        model = Model(**c["model"])
        mem = measure_memory(res.timeline, model, c["hbm"])
        if res.balance is not None:  # BPipe: bytes where the pairs hold them
            mem = balance_memory(mem, res.timeline, res.balance.pairs)
        weights = list(stage_weights(model, res.order.S))
    except ConfigError as e:
        return {"error": error_data(e)}
    return twin.summary({**memory_data(mem), "weights": weights, "actBytes": model.act_bytes,
                         "wOnlyBytes": model.w_only_bytes})


JS_MEMORY = """([cases]) => JSON.stringify(cases.map((c) => {
  const E = PipevizEngine, W = __twin;
  const res = E.run(E.config(c.schedule, c.P, c.m, c.V, E.costs(...c.costs), null, null, c.balance || null));
  let mem, model, weights;
  try {
    const f = c.model;
    model = new E.memory.Model({L: f.L, h: f.h, a: f.a, vocab: f.vocab, untied: f.untied, s: f.s, b: f.b, t: f.t,
      act: f.act, bytesPerParam: f.bytes_per_param, embed: f.embed, head: f.head, name: f.name});
    mem = E.memory.measureMemory(res.timeline, model, c.hbm);
    if (res.balance) mem = E.memory.balanceMemory(mem, res.timeline, res.balance.pairs);
    weights = E.memory.stageWeights(model, res.order.S);
  } catch (e) { return {error: W.error(e)}; }
  return W.summary({layers: mem.layers, params: mem.params, peak: mem.peak, peakB: mem.peakB, peakW: mem.peakW,
    activations: mem.activations, hbm: mem.hbm, over: mem.over, tightest: mem.tightest, fits: mem.fits,
    weights: weights, actBytes: model.actBytes(), wOnlyBytes: model.wOnlyBytes()});
}))"""


def test_memory_matches_python(twin_page):
    cases = memory_cases()
    exp = [memory_expected(c) for c in cases]
    got = batched(twin_page, JS_MEMORY, cases)
    failures = compare(exp, got, [repr(c)[:200] for c in cases])
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:8])
    keys = {e["error"]["key"] for e in exp if "error" in e}
    assert keys >= {"model.few_layers", "model.whole", "model.act", "model.bpp", "model.extra"}
    assert sum(1 for e in exp if "error" not in e) >= 100
    assert any("error" not in e and not e["fits"] for e in exp) and any("error" not in e and e["fits"] for e in exp)
    moved = [c for c in cases if c.get("balance") and run(Config(c["schedule"], c["P"], c["m"], c["V"],
                                                             balance="bpipe")).balance.moved]
    assert len(moved) >= 8  # bytes held by partners are compared too


# -- the explorer: state -> config -> figures and readouts ---------------------------------


def defaults() -> dict:
    return {k: f.default for k, f in FIELDS.items()}


def explorer_states() -> list[dict]:
    rng = random.Random(SEED + 2)
    out = []
    for _ in range(90):
        s = defaults()
        name = rng.choice(NAMES)
        P = rng.randint(1, 8)
        s.update(schedule=name, P=P, m=rng.randint(P, 24), V=rng.randint(1, 3) if name == "interleaved" else 1,
                 unit=rng.choice(FIELDS["unit"].choices), lang=rng.choice(LANGS),
                 over_time_unit=rng.choice(FIELDS["over_time_unit"].choices))
        if SCHEDULES[name].fixed_V:
            s["V"] = SCHEDULES[name].fixed_V
        if name == "dualpipe-v" and rng.random() < 0.8:  # else its m >= 2P rule's warning
            s["m"] = max(s["m"], 2 * P)
        if rng.random() < 0.3:
            s.update(tf=rng.choice(AWKWARD), tb=rng.choice(AWKWARD), tw=rng.choice(AWKWARD + [0.0]),
                     comm=rng.choice([0.0, 0.0, 0.6, 0.25]))
        model = rng.choice(memory_view.MODELS)
        s["model"] = model
        s["balance"] = rng.random() < 0.25  # BPipe: bytes held by partners, GiB before it dashed
        if model in PRESETS:
            s.update(PRESETS[model])
        elif model == "custom":
            s.update(L=rng.randint(1, 80), h=rng.choice([256, 4096]), a=rng.choice([8, 32]), vocab=rng.randint(1, 60000),
                     untied=rng.random() < 0.5)
        s.update(s=rng.choice([512, 2048, 8192]), b=rng.choice([1, 2, 4]), t=rng.choice([1, 2, 8]),
                 act=rng.choice(FIELDS["act"].choices), bpp=rng.choice(FIELDS["bpp"].choices),
                 embed=rng.choice([0.0, 1.0, 2.5]), head=rng.choice([0.0, 3.0]), hbm=rng.choice([8.0, 40.0, 80.0, 4096.0]))
        source = rng.choice(FIELDS["stages"].choices)
        s["stages"] = source
        S = stage_count(name, P, s["V"])
        if source == "list":
            w = weights_for(rng, S if rng.random() < 0.8 else S + 1)
            s["weights"] = rng.choice([", ", ",", " "]).join(f"{x:g}" for x in w) if rng.random() < 0.9 else ""
        out.append(s)
    base = dict(out[0], model="gpt3-6.7b", **PRESETS["gpt3-6.7b"])
    out += [dict(base, hbm=None), dict(base, hbm=0.5), dict(base, L=None, stages="equal"),  # emptied inputs
            dict(base, embed=None, stages="equal"), dict(base, L=None, stages="model")]
    return out


VIEWS = [("micro-batches", "en", 816.0), ("chunks", "zh", 333.3)]


def explorer_expected(state: dict):
    try:
        cfg = config(state)
        res = run(cfg)
    except ConfigError as e:
        return {"error": error_data(e)}
    mem = memory_view.memory_of(res, state)
    shown = mem if isinstance(mem, Memory) else None
    values = readouts.readout_values(res)
    rows = readouts.table_values(res.config, run, lambda name: row_config(state, name),
                                 lambda r: memory_view.memory_of(r, state))
    mv = memory_view.memory_values(mem)
    return twin.summary({
        "weights": None if cfg.stage_weights is None else list(cfg.stage_weights),
        "views": [columns.figure_view(res, unit, lang, px, shown, state["over_time_unit"]) for unit, lang, px in VIEWS],
        "memory": {"values": mv, "html": {lang: memory_view.memory_html(mv, lang) for lang in LANGS}},
        "readout": {"values": values, "html": {lang: readouts.readout_html(values, lang) for lang in LANGS}},
        "table": {"values": rows, "html": {lang: readouts.table_html(rows, lang) for lang in LANGS}},
        "key": {lang: memory_view.memory_key_html(lang) for lang in LANGS},
    })


JS_EXPLORER = """([states, views]) => JSON.stringify(states.map((state) => {
  const E = PipevizEngine, W = __twin, X = PipevizExplorer, MV = X.memoryView, R = X.readouts;
  const both = (f) => ({en: f('en'), zh: f('zh')});
  let cfg, res;
  try {
    cfg = X.state.config(state);
    res = E.run(cfg);
  } catch (e) { return {error: W.error(e)}; }
  const mem = MV.memoryOf(res, state), shown = MV.isMemory(mem) ? mem : null;
  const values = R.readoutValues(res), mv = MV.memoryValues(mem);
  const rows = R.tableValues(res.config, E.run, (name) => MV.rowConfig(state, name), (r) => MV.memoryOf(r, state));
  return W.summary({
    weights: cfg.stageWeights,
    views: views.map(([unit, lang, px]) => X.columns.figureView(res, unit, lang, px, shown, state.over_time_unit)),
    memory: {values: mv, html: both((l) => MV.memoryHtml(mv, l))},
    readout: {values, html: both((l) => R.readoutHtml(values, l))},
    table: {values: rows, html: both((l) => R.tableHtml(rows, l))},
    key: both((l) => MV.memoryKeyHtml(l)),
  });
}))"""


def test_explorer_states_match_python(twin_page):
    states = explorer_states()
    exp = [explorer_expected(s) for s in states]
    got = []
    for lo in range(0, len(states), 10):
        got += json.loads(twin_page.evaluate(JS_EXPLORER, [states[lo : lo + 10], VIEWS]))
    failures = compare(exp, got, [json.dumps({k: s[k] for k in ("schedule", "P", "m", "V", "model", "stages", "weights")})
                                  for s in states])
    assert not failures, f"{len(failures)} of {len(states)} differ:\n" + "\n".join(failures[:6])
    ok = [e for e in exp if "error" not in e]
    assert len(ok) >= 50 and {e["error"]["key"] for e in exp if "error" in e} >= {"weights.length"}
    assert any(e["memory"]["values"] and e["memory"]["values"].get("over") for e in ok)  # some ranks over HBM
    assert any(e["readout"]["values"]["parts"] for e in ok) and any(e["weights"] for e in ok)
    assert any(r["best"] for e in ok for r in e["table"]["values"])


# -- normalize, the URL, typed weights -------------------------------------------------------


def normalize_cases() -> list[tuple[dict, list[str]]]:
    rng = random.Random(SEED + 3)
    fields = list(FIELDS)
    out = []
    for s in explorer_states():
        for _ in range(3):
            state = dict(s)
            if rng.random() < 0.5:  # a shape changed away from the preset, or back to it
                k = rng.choice(["L", "h", "a", "vocab", "untied"])
                if k == "untied":
                    state[k] = not state[k]
                elif state[k] is not None:  # an emptied field stays empty
                    state[k] += rng.choice([0, 1])
            changed = rng.sample(fields, rng.choice([1, 1, 2, 3])) + rng.sample(["model", "L", "h", "untied", "hbm"], 1)
            out.append((state, sorted(set(changed))))
    base = defaults()
    out += [({**base, "model": "llama2-70b"}, ["model"]), ({**base, "model": "gpt3-6.7b", "L": 40}, ["L"]),
            ({**base, "L": 40}, ["L"]), ({**base, "model": "llama2-7b", "L": 40}, ["model", "L"]),
            ({**base, "model": "custom", "L": 40}, ["L"]), ({**base, "model": "gpt3-6.7b"}, ["hbm", "s"])]
    return out


JS_NORMALIZE = """([cases]) => JSON.stringify(cases.map(([state, changed]) => {
  const out = PipevizExplorer.state.normalize(state, changed);
  return {state: out.state, notes: out.notes.map(__twin.msg)};
}))"""


def test_normalize_with_a_model_matches_python(twin_page):
    cases = normalize_cases()
    got = batched(twin_page, JS_NORMALIZE, cases)
    exp = []
    for state, changed in cases:
        s, notes = normalize(state, changed)
        exp.append({"state": s, "notes": [twin.msg_data(n) for n in notes]})
    failures = compare(exp, got, [f"changed={c}" for _, c in cases])
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:8])
    assert any(n["key"] == "rule.model_custom" for e in exp for n in e["notes"])


URLS = [
    "?model=llama2-70b&hbm=80&t=8&act=flash&stages=list&weights=1.3,1,1,1.2&over_time_unit=GiB",
    "?weights=" + "1," * 300, "?weights=" + "1," * 199 + "1", "?weights=%3Cb%3E2%3C%2Fb%3E,1&stages=list",
    "?weights=1%2C2%2C3", "?weights=__import__('os')", "?weights=", "?weights=%F0%9F%98%80" * 3,
    "?model=gpt5&act=selective&bpp=17&stages=all&over_time_unit=bytes", "?untied=2&untied=yes&untied=1",
    "?L=0&h=131073&a=1.5&s=-1&b=1e9&vocab=abc&t=0x10&embed=101&head=-0&hbm=0.5",
    "?model=custom&L=12&h=768&a=12&vocab=50257&untied=0", "?hbm=4096.0000001&embed=1e-400",
]


def test_url_with_model_fields_matches_python(twin_page):
    cases = [(q, "") for q in URLS] + [("", "#" + q[1:]) for q in URLS]
    got = json.loads(twin_page.evaluate("""([cases]) => JSON.stringify(cases.map(([q, f]) => {
      const out = PipevizExplorer.fields.parse(q, f);
      return {updates: Object.fromEntries(out.updates), notes: out.notes.map(__twin.msg)};
    }))""", [cases]))
    exp = []
    for q, f in cases:
        updates, notes = parse(q, f)
        exp.append({"updates": updates, "notes": [twin.msg_data(n) for n in notes]})
    failures = compare(exp, got, [f"{q!r} {f!r}"[:120] for q, f in cases])
    assert not failures, "\n".join(failures[:8])
    states = explorer_states()[:40]
    assert twin_page.evaluate("([ss]) => ss.map((s) => PipevizExplorer.fields.encode(s))", [states]) == [
        encode(s) for s in states]


WEIGHT_TEXTS = ["1.3,1,1,1.2", " 1.3 1  1;1.2 ", "", "   ", "\u3000", "2e0, .5", "1,x,2", "1,0x10", "1,١", "1,inf",
                "1,nan", "1e400", "1e-400", "1,,,2", ";;1;;", "1\u00a02\u20283", "1\ufeff2", "+1,-1", "1.5.5",
                "__import__('os')", "1," * 40 + "x" * 30, "\U0001F600" * 25, "0.0001", "1000", "1000.0000001",
                "1 2 3 4 5 6 7 8 9"]


def test_typed_weights_match_python(twin_page):
    got = json.loads(twin_page.evaluate("""([texts]) => JSON.stringify(texts.map((t) => {
      try { return {w: PipevizEngine.parseWeights(t)}; } catch (e) { return {error: __twin.error(e)}; }
    }))""", [WEIGHT_TEXTS]))
    exp = []
    for t in WEIGHT_TEXTS:
        try:
            w = parse_weights(t)
            exp.append(twin.summary({"w": None if w is None else list(w)}))
        except ConfigError as e:
            exp.append({"error": error_data(e)})
    failures = compare(exp, got, [repr(t)[:60] for t in WEIGHT_TEXTS])
    assert not failures, "\n".join(failures[:8])


def test_weighted_overlapped_pairs_match_python(twin_page):
    """No schedule on this branch emits F&B ops, so hand-built orders hold the pair's
    weighted mix (simulate.op_durations) to its twin."""
    from pipeviz.order import Order
    from pipeviz.simulate import simulate

    f = lambda k, mb, s: (k, mb, s)  # noqa: E731
    cases = [
        {"m": 2, "s2r": [0, 0], "ranks": [[f("F", 0, 0), f("F", 0, 1), ("F&B", 1, 0, 0, 1), f("B", 0, 0), f("F", 1, 1),
                                           f("B", 1, 1), f("B", 1, 0)]], "weights": [2.0, 0.5]},
        {"m": 2, "s2r": [0, 1, 1, 0], "weights": [1.3, 0.7, 1.1, 0.9],
         "ranks": [[f("F", 0, 0), f("F", 1, 0), f("F", 0, 3), ("F&B", 1, 3, 0, 3), f("B", 1, 3), f("B", 0, 0), f("B", 1, 0)],
                   [f("F", 0, 1), f("F", 0, 2), f("F", 1, 1), f("F", 1, 2), f("B", 0, 2), f("I", 0, 1), f("W", 0, 1),
                    f("B", 1, 2), f("B", 1, 1)]]},
    ]
    costs = [(1.0, 2.0, 1.0, 0.0, 3.0), (0.7, 1.3, 0.1, 0.25, None)]
    exp, got = [], []
    for c in costs:
        for k in cases:
            o = Order.from_rank_lists(k["m"], k["s2r"], k["ranks"])
            tl = simulate(o, Costs(*c), weights=k["weights"])
            exp.append(twin.summary({"start": tl.start, "end": tl.end}))
        got += json.loads(twin_page.evaluate("""([cases, c]) => JSON.stringify(cases.map((k) => {
          const E = PipevizEngine, o = E.fromRankLists(k.m, k.s2r, k.ranks, null);
          const tl = E.simulate(o, E.costs(...c), null, true, k.weights);
          return __twin.summary({start: tl.start, end: tl.end});
        }))""", [cases, list(c)]))
    assert got == exp


# -- an order of one's own, with a model: its table row's GiB and its readout's bubble parts ----------

OWN_TEXTS = [(run(Config(name, 4, 8, SCHEDULES[name].fixed_V or 2)).order.to_text(), placement)
             for name, placement in (("1f1b", "loop"), ("zb-v", "v"), ("gpipe", "loop"))]
OWN_TEXTS.append(("0F0 0F1 0B0 0B1\n1F0 1B0 1F1 1B1\n2F0 2F1 2B0 2B1", "loop"))  # deadlocks: its row says so, no GiB
OWN_COSTS = [(1.0, 1.0, 1.0, 0.0, None), (0.7, 1.3, 0.1, 0.25, 1.5)]


def own_state(costs) -> dict:
    base = {k: f.default for k, f in FIELDS.items()}
    return dict(base, model="gpt3-6.7b", **PRESETS["gpt3-6.7b"], hbm=24.0, tf=costs[0], tb=costs[1], tw=costs[2],
                comm=costs[3])


def own_expected(text: str, placement: str, costs) -> dict:
    from pipeviz.custom import run_text

    state = own_state(costs)
    own = run_text(text, placement, Costs(*costs))
    values = readouts.readout_values(own)
    rows = readouts.table_values(own.config, run, lambda name: row_config(state, name),
                                 lambda r: memory_view.memory_of(r, state), own)
    return twin.summary({
        "readout": {"values": values, "html": {lang: readouts.readout_html(values, lang) for lang in LANGS}},
        "table": {"values": rows, "html": {lang: readouts.table_html(rows, lang) for lang in LANGS}},
    })


JS_OWN = """([cases]) => JSON.stringify(cases.map(([text, placement, costs, state]) => {
  const E = PipevizEngine, W = __twin, X = PipevizExplorer, MV = X.memoryView, R = X.readouts;
  const both = (f) => ({en: f('en'), zh: f('zh')});
  const own = E.custom.runText(text, placement, E.costs(...costs));
  const values = R.readoutValues(own);
  const rows = R.tableValues(own.config, E.run, (name) => MV.rowConfig(state, name), (r) => MV.memoryOf(r, state), own);
  return W.summary({
    readout: {values, html: both((l) => R.readoutHtml(values, l))},
    table: {values: rows, html: both((l) => R.tableHtml(rows, l))},
  });
}))"""


def test_an_order_of_ones_own_has_gib_and_bubble_parts_as_pythons(twin_page):
    cases = [(t, p, list(c), own_state(c)) for t, p in OWN_TEXTS for c in OWN_COSTS]
    exp = [own_expected(t, p, c) for t, p, c, _ in cases]
    got = json.loads(twin_page.evaluate(JS_OWN, [cases]))
    failures = compare(exp, got, [f"{t[:40]!r} {p} {c}" for t, p, c, _ in cases])
    assert not failures, "\n".join(failures[:6])
    own_rows = [e["table"]["values"][0] for e in exp]
    assert all(r["mem"] is not None for r in own_rows if r["error"] is None)
    assert any(e["readout"]["values"]["parts"] for e in exp)  # with comm, the own readout splits its bubble
