"""static/tradeoff.js against pipeviz/view/tradeoff.py, in the Debian chromium, over
explorer states hypothesis generates (schedule, P, m, V, costs, a model or none, an
HBM, stage weights from the model, all equal or typed): the same points (every number
bit for bit, marks, styles, labels), Pareto front, ring, ranges and words in both
languages, and the same note; also half-computed, as between two slices (the points
of some schedules ready, the rest counted as still computing)."""

from __future__ import annotations

import json

import pytest
import twin
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pipeviz import ConfigError, run
from pipeviz.registry import NAMES
from pipeviz.view import tradeoff
from pipeviz.view.fields import defaults
from pipeviz.view.state import config, normalize

pytestmark = pytest.mark.browser

LANGS = ("en", "zh")
COSTS = [(1.0, 1.0, 1.0, 0.0), (1.0, 1.0, 1.0, 0.5), (1.0, 2.0, 0.5, 0.25), (2.675, 0.015, 1.005, 0.0)]


@st.composite
def states(draw) -> dict:
    s = {**defaults(), "schedule": draw(st.sampled_from(NAMES)), "P": draw(st.integers(1, 5)),
         "m": draw(st.integers(1, 10)), "V": draw(st.integers(1, 3))}
    s["tf"], s["tb"], s["tw"], s["comm"] = draw(st.sampled_from(COSTS))
    s["model"] = draw(st.sampled_from(["none", "none", "gpt3-6.7b", "llama2-7b"]))
    s, _ = normalize(s, {"schedule", "P", "m", "V", "model"})
    s["hbm"] = draw(st.sampled_from([1.0, 20.0, 40.0, 80.0]))
    s["stages"] = draw(st.sampled_from(["model", "model", "equal", "list"]))
    if s["stages"] == "list":
        s["weights"] = ", ".join(draw(st.lists(st.sampled_from(["1", "1.3", "0.7"]), min_size=s["P"], max_size=s["P"])))
    return s


def expected(state: dict, ready: list[str]):
    try:
        cfg = config(state)
    except ConfigError:
        return None
    current = tradeoff.current_of(cfg)
    out = {}
    for part, go in (("whole", run), ("partial", tradeoff.ready_only(lambda c: run(c) if c.schedule in ready else None))):
        v = tradeoff.values(state, cfg, go)
        out[part] = {"values": v, **{lang: {"view": tradeoff.figure_view(v, current, lang),
                                            "note": tradeoff.note_lines(v, False, lang)} for lang in LANGS}}
    return twin.summary(out)


JS = """([state, ready]) => {
  const E = PipevizEngine, X = PipevizExplorer, W = __twin, TR = X.tradeoff;
  let cfg;
  try { cfg = X.state.config(state); } catch (e) { if (e instanceof E.PipevizError) return 'null'; throw e; }
  const current = TR.currentOf(cfg), out = {};
  const partial = TR.readyOnly((c) => ready.includes(c.schedule) ? E.run(c) : null);
  for (const [part, go] of [['whole', E.run], ['partial', partial]]) {
    const v = TR.values(state, cfg, go), o = {values: v};
    for (const lang of ['en', 'zh']) o[lang] = {view: TR.figureView(v, current, lang), note: TR.noteLines(v, false, lang)};
    out[part] = o;
  }
  return JSON.stringify(W.summary(out));
}"""


@pytest.fixture(scope="module")
def twin_page(browser):
    page = browser.new_page()
    twin.load(page)
    yield page
    page.close()


def state_of(**fields) -> dict:
    s, _ = normalize({**defaults(), **fields}, set(fields))
    return s


# Besides what hypothesis draws, every case the view has: GiB with points over the HBM
# and half computed; refusals (DualPipe-V below m = 2P; more stages than layers); an
# HBM some points fit in; typed weights that fit one V only.
@settings(max_examples=14, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=states(), ready=st.lists(st.sampled_from(NAMES), unique=True, max_size=5))
@example(state=state_of(model="gpt3-6.7b", hbm=40.0), ready=["1f1b", "zb-v"])
@example(state=state_of(P=6, m=4, schedule="interleaved", V=2), ready=[])
@example(state=state_of(model="llama2-7b", P=8, m=16, hbm=60.0), ready=["v-half"])
@example(state=state_of(P=3, m=6, stages="list", weights="1, 1.3, 0.7"), ready=["gpipe"])
def test_tradeoff_matches_python(twin_page, state, ready):
    exp = expected(state, ready)
    got = json.loads(twin_page.evaluate(JS, [state, ready]))
    d = twin.Diff()
    d.walk("", exp, got)
    assert not d.errors, "\n".join(d.errors[:8])
