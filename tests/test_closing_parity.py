"""The page's encoder.js, balance.js and closing.js (and the closing section's parts of
engine.js, columns.js, readouts.js and state.js) against their Python originals, in
the Debian chromium, on generated configurations: orders with encoder ops, op times
bit for bit, the encoder report (docs/model.md), BPipe's resident activations and transfers,
the figure views, the readouts and the placements compared, every error alike, and
the state rule that turns the encoder on."""

from __future__ import annotations

import json
import random

import pytest
import twin
from test_js_parity import AWKWARD, LANGS, compare, error_data, result_data

from pipeviz import NAMES, SCHEDULES, Config, ConfigError, Costs, run
from pipeviz.config import PLACES, Encoder
from pipeviz.view import closing, readouts
from pipeviz.view.fields import FIELDS, parse
from pipeviz.view.state import normalize

pytestmark = pytest.mark.browser

SEED = 20250612
BATCH = 10
OWN_V = {name: (spec.fixed_V or 2) for name, spec in SCHEDULES.items()}


def case(schedule, P, m, V=None, costs=(1.0, 1.0, 1.0, 0.0), enc=None, balance=None):
    tf, tb, tw, comm = costs
    return {"schedule": schedule, "P": P, "m": m, "V": OWN_V.get(schedule, 1) if V is None else V,
            "tf": tf, "tb": tb, "tw": tw, "comm": comm, "enc": enc, "balance": balance}


def build_cases() -> list[dict]:
    rng = random.Random(SEED)
    out = []
    # docs/model.md's reference numbers and the hand-checked case, each placement, frozen or not.
    for place in PLACES:
        for frozen in (False, True):
            out.append(case("1f1b", 4, 8, enc=[0.5, 1.0, place, frozen]))
            out.append(case("1f1b", 2, 4, enc=[1.5 if frozen else 0.5, 1.0, place, frozen]))
    out.append(case("1f1b", 8, 8, balance="bpipe"))
    out.append(case("interleaved", 8, 16, 2, balance="bpipe"))
    out.append(case("zb-v", 4, 8, balance="bpipe"))
    # Every schedule at the edges: P=1, m=1, m<P, m=P, a large e_f (further rounds), comm.
    for name in NAMES:
        for P, m in [(1, 1), (1, 4), (3, 2), (4, 4), (4, 9), (6, 13)]:
            place = rng.choice(PLACES)
            out.append(case(name, P, m, enc=[rng.choice([0.1, 0.5, 2.0, 7.0]), rng.choice([0.3, 1.0]), place,
                                             rng.random() < 0.25], balance=rng.choice([None, "bpipe"])))
        out.append(case(name, 5, 11, costs=(1.0, 1.0, 1.0, 0.5), enc=[3.0, 1.0, "bubbles", False], balance="bpipe"))
    # Random configurations with awkward costs and encoder costs.
    for _ in range(110):
        name = rng.choice(NAMES)
        P, m = rng.randint(1, 12), rng.randint(1, 40)
        V = rng.randint(1, 4) if name == "interleaved" else None
        costs = (rng.choice(AWKWARD[:20]), rng.choice(AWKWARD[:20]), rng.choice(AWKWARD[:20] + [0.0]),
                 rng.choice([0.0, 0.0, 0.0] + AWKWARD[:14]))
        enc = None
        if rng.random() < 0.85:
            enc = [rng.choice(AWKWARD[:20] + [0.1, 0.5, 2.0]), rng.choice(AWKWARD[:20] + [1.0]), rng.choice(PLACES),
                   rng.random() < 0.2]
        out.append(case(name, P, m, V, costs, enc, rng.choice([None, None, "bpipe"])))
    # Invalid encoder and balance settings: Python's messages, in its order of checks.
    out += [
        case("1f1b", 4, 8, enc=[0.0, 1.0, "bubbles", False]), case("1f1b", 4, 8, enc=[0.5, -1.0, "bubbles", False]),
        case("1f1b", 4, 8, enc=[float("nan"), 1.0, "stage0", False]), case("1f1b", 4, 8, enc=[0.5, 1.0, "middle", False]),
        case("1f1b", 4, 8, enc=[0.5, 1.0, "<b>x</b>", False]), case("1f1b", 4, 8, enc=[0.5, 1.0, "separate", 1]),
        case("1f1b", 4, 8, enc=[2e6, 1.0, "separate", False]), case("1f1b", 4, 8, balance="zero"),
        case("1f1b", 0, 8, enc=[0.0, 1.0, "bubbles", False]), case("1f1b", 0, 8, enc=[0.5, 1.0, "bubbles", False]),
        case("1f1b", 4, 8, 2, enc=[0.5, 1.0, "bubbles", False]),
        case("1f1b", 4, 8, costs=(0, 1, 1, 0), enc=[0.0, 1.0, "bubbles", False]),
    ]
    return out


CASES = build_cases()


def py_config(c: dict) -> Config:
    costs = Costs(c["tf"], c["tb"], c["tw"], c["comm"])
    enc = Encoder(*c["enc"]) if c["enc"] is not None else None
    return Config(c["schedule"], c["P"], c["m"], c["V"], costs, encoder=enc, balance=c["balance"])


def closing_data(res) -> dict:
    """The closing section's parts of a result, in the page's layout (see JS_CLOSING)."""
    e, b = res.encoder, res.balance
    out = {"encoder": None, "balance": None}
    if e is not None:
        out["encoder"] = {
            "order": e.order.to_text(), "segment": e.order.segment, "makespan": e.makespan,
            "pipelineMakespan": e.pipeline_makespan, "exposed": e.exposed, "hiddenShare": e.hidden_share,
            "bubbleFilled": e.bubble_filled, "hidden": e.hidden, "pipelineIdle": e.pipeline_idle,
            "inGaps": list(e.in_gaps), "rounds": list(e.rounds),
        }
    if b is not None:
        out["balance"] = {
            "pairs": [list(p) for p in b.pairs], "target": b.target,
            "resident": {"rank": b.resident.rank, "time": b.resident.time, "value": b.resident.value},
            "peakChunks": b.peak_chunks, "peakMicrobatches": b.peak_microbatches, "excessChunks": b.excess_chunks,
            "transferChunks": b.transfer_chunks, "transfers": b.transfers, "moved": b.moved,
        }
    values = closing.closing_values(res)
    rows = closing.placements_values(res.config, run)
    out["readout"] = {"values": values, "html": {lang: closing.closing_html(values, lang) for lang in LANGS}}
    out["places"] = {"values": rows, "html": {lang: closing.placements_html(rows, lang) for lang in LANGS}}
    out["barsKey"] = {lang: readouts.bars_key_html(res.order.has_w, lang, b is not None) for lang in LANGS}
    return out


def expected(c: dict):
    try:
        res = run(py_config(c))
    except ConfigError as e:
        return twin.summary({"error": error_data(e)})
    return twin.summary({"result": result_data(res), "closing": closing_data(res)})


JS_CLOSING = """
window.__closingBatch = (batch) => JSON.stringify(batch.map((c) => {
  const E = PipevizEngine, X = PipevizExplorer, W = __twin, C = X.closing;
  let res;
  try {
    const costs = E.costs(c.tf, c.tb, c.tw, c.comm);
    const enc = c.enc === null ? null : new E.Encoder(...c.enc);
    res = E.run(E.config(c.schedule, c.P, c.m, c.V, costs, null, enc, c.balance));
  } catch (e) {
    return W.summary({error: W.error(e)});
  }
  const both = (f) => ({en: f('en'), zh: f('zh')});
  const e = res.encoder, b = res.balance;
  const out = {encoder: null, balance: null};
  if (e !== null) {
    out.encoder = {order: e.order.toText(), segment: e.order.segment, makespan: e.makespan,
      pipelineMakespan: e.pipelineMakespan, exposed: e.exposed, hiddenShare: e.hiddenShare,
      bubbleFilled: e.bubbleFilled, hidden: e.hidden, pipelineIdle: e.pipelineIdle, inGaps: e.inGaps,
      rounds: e.rounds};
  }
  if (b !== null) {
    out.balance = {pairs: b.pairs, target: b.target, resident: b.resident, peakChunks: b.peakChunks,
      peakMicrobatches: b.peakMicrobatches, excessChunks: b.excessChunks, transferChunks: b.transferChunks,
      transfers: b.transfers, moved: b.moved};
  }
  const values = C.closingValues(res), rows = C.placementsValues(res.config, E.run);
  out.readout = {values, html: both((l) => C.closingHtml(values, l))};
  out.places = {values: rows, html: both((l) => C.placementsHtml(rows, l))};
  out.barsKey = both((l) => X.readouts.barsKeyHtml(res.order.hasW, l, b !== null));
  try {
    return W.summary({result: __result(res), closing: out});
  } catch (err) {
    return {exception: String(err.stack || err)};
  }
}));
"""


@pytest.fixture(scope="module")
def twin_page(browser):
    from test_js_parity import JS_RESULT

    page = browser.new_page()
    twin.load(page)
    page.add_script_tag(content=JS_RESULT)
    page.add_script_tag(content=JS_CLOSING)
    yield page
    page.close()


def label(c: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in c.items())


def test_cases_cover_the_brief():
    keys, rounds, places, pairs = set(), set(), set(), 0
    for c in CASES:
        try:
            res = run(py_config(c))
        except ConfigError as e:
            keys.add(e.msg.key)
            continue
        if res.encoder is not None:
            places.add(res.encoder.settings.place)
            rounds.add(res.encoder.rounds[0] > 1)
        pairs += bool(res.balance and res.balance.pairs)
    assert places == set(PLACES) and rounds == {True, False} and pairs >= 10
    assert keys >= {"cost.range", "cost.number", "encoder.place", "encoder.frozen", "balance.mode", "config.low",
                    "schedule.fixed_v1"}


def test_closing_section_matches_python(twin_page):
    page = twin_page
    failures, compared = [], 0
    for lo in range(0, len(CASES), BATCH):
        batch = CASES[lo : lo + BATCH]
        got = json.loads(page.evaluate("([b]) => __closingBatch(b)", [batch]))
        for c, a in zip(batch, got):
            d = twin.Diff()
            d.walk("", expected(c), a)
            compared += d.compared
            if d.errors:
                failures.append(f"[{label(c)}]\n    " + "\n    ".join(d.errors))
    print(f"\n{len(CASES)} configurations, {compared} values and array digests compared")
    assert not failures, f"{len(failures)} of {len(CASES)} configurations differ:\n" + "\n".join(failures[:6])


# -- the state rule and the URL -----------------------------------------------------------

def build_states() -> list[tuple[dict, list[str]]]:
    rng = random.Random(SEED + 1)
    base = {k: f.default for k, f in FIELDS.items()}
    out = []
    for _ in range(150):
        state = {**base, "schedule": rng.choice(NAMES), "P": rng.randint(1, 16), "m": rng.randint(1, 64),
                 "V": rng.randint(1, 4), "encoder": rng.choice(FIELDS["encoder"].choices),
                 "ef": rng.choice([0.1, 0.5, 2.0, 50.0]), "eb": rng.choice([0.1, 1.0, 7.3]),
                 "frozen": rng.random() < 0.3, "balance": rng.random() < 0.3}
        if rng.random() < 0.1:  # a value no widget should hold
            state[rng.choice(["ef", "eb"])] = rng.choice([0.0, -1.0, None])
        changed = rng.sample(["ef", "eb", "frozen", "encoder", "balance", "P", "schedule"], rng.choice([1, 1, 2, 3]))
        out.append((state, changed))
    out += [({**base, "ef": 1.0}, ["ef"]), ({**base, "frozen": True}, ["frozen"]), ({**base, "eb": 2.0}, ["eb", "encoder"]),
            ({**base, "balance": True}, ["balance"]), ({**base, "encoder": "stage0", "ef": 3.0}, ["ef"])]
    return out


JS_NORMALIZE = """([cases]) => JSON.stringify(cases.map(([state, changed]) => {
  const out = PipevizExplorer.state.normalize(state, changed);
  return {state: out.state, notes: out.notes.map(__twin.msg)};
}))"""


def test_encoder_rule_matches_python(twin_page):
    cases = build_states()
    got = json.loads(twin_page.evaluate(JS_NORMALIZE, [cases]))
    exp = []
    for state, changed in cases:
        s, notes = normalize(state, changed)
        exp.append({"state": s, "notes": [twin.msg_data(n) for n in notes]})
    failures = compare(exp, got, [f"{s} changed={c}" for s, c in cases])
    assert {n["key"] for e in exp for n in e["notes"]} >= {"rule.encoder_on"}
    assert not failures, f"{len(failures)} of {len(cases)} states differ:\n" + "\n".join(failures[:6])


URLS = ["?encoder=bubbles&ef=0.5&eb=1", "?encoder=middle&ef=999&eb=-1&frozen=2&balance=yes", "?preset=encoder",
        "?preset=bpipe&P=16", "#encoder=stage0&frozen=1&balance=0", "?ef=٣&eb=1e1&encoder=BUBBLES&balance=1.0"]


def test_closing_urls_match_python(twin_page):
    got = json.loads(twin_page.evaluate("""([cases]) => JSON.stringify(cases.map((q) => {
      const out = PipevizExplorer.fields.parse(q.startsWith('#') ? '' : q, q.startsWith('#') ? q : '');
      return {updates: Object.fromEntries(out.updates), notes: out.notes.map(__twin.msg)};
    }))""", [URLS]))
    exp = []
    for q in URLS:
        updates, notes = parse("" if q.startswith("#") else q, q if q.startswith("#") else "")
        exp.append({"updates": updates, "notes": [twin.msg_data(n) for n in notes]})
    failures = compare(exp, got, URLS)
    assert not failures, "\n".join(failures)
