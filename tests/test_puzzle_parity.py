"""static/puzzle.js and static/puzzle_view.js against pipeviz/puzzle.py and
pipeviz/view/puzzle.py, in the Debian chromium, over move sequences hypothesis
generates: every puzzle at small sizes, every cap, awkward costs, encoder costs,
and actions that place ops the board offers (ready or not), type ops (well formed or
not), undo, redo, clear, ask for a hint, change the cap or the puzzle, open the order
as one's own, and send junk. After each action both sides must say the same thing
(the message, in both languages), change the same fields, and after the state
rules hold the same moves; at checkpoints, the block's values, its HTML and live
text in both languages, and the result drawn (order, op times bit for bit,
dependencies, metrics, readout, figure view, the puzzle's part of the figures)."""

from __future__ import annotations

import json

import pytest
import twin
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeviz.puzzle import CAPS, GOALS, PuzzleResult
from pipeviz.view import columns, readouts
from pipeviz.view import puzzle as view
from pipeviz.view.fields import FIELDS
from pipeviz.view.state import normalize

pytestmark = pytest.mark.browser

LANGS = ("en", "zh")
COSTS = [1.0, 0.5, 2.0, 0.1, 0.3, 1.005, 18.5, 3.3333333333333335]
CHECK_EVERY = 9  # steps between checkpoints (and the last step)


def state_of(case: dict) -> dict:
    return {**{k: f.default for k, f in FIELDS.items()}, **case}


@st.composite
def cases(draw):
    goal = draw(st.sampled_from(list(GOALS)))
    low, high = GOALS[goal].V
    case = {
        "puzzle": goal, "P": draw(st.integers(1, 4)), "m": draw(st.integers(1, 5)),
        "V": draw(st.integers(low, min(high, 3))), "cap": draw(st.sampled_from(["none", "P-r", "P", "1", "2", "3"])),
        "tf": draw(st.sampled_from(COSTS)), "tb": draw(st.sampled_from(COSTS)), "tw": draw(st.sampled_from(COSTS + [0.0])),
        "comm": draw(st.sampled_from([0.0, 0.0, 0.5, 0.1])), "ef": draw(st.sampled_from([0.1, 0.5, 2.0])),
        "eb": draw(st.sampled_from([0.3, 1.0])), "frozen": draw(st.booleans()),
    }
    pick = st.tuples(st.just("pick"), st.integers(0, 99))
    typed = st.tuples(st.just("type"), st.text(alphabet="0123456789FBIWE@, x٣", max_size=7), st.integers(-1, 4))
    tool = st.tuples(st.just("tool"), st.sampled_from(["undo", "undo", "redo", "clear", "hint", "own"]))
    choose = st.tuples(st.just("set"), st.sampled_from([("cap", c) for c in ("none", "1", "P-r", "zz")] +
                                                       [("puzzle", g) for g in ("zb", "1f1b", "encoder", "nope")]))
    junk = st.tuples(st.just("junk"), st.sampled_from([None, 3, "place", [], {"what": "teleport"},
                                                        {"what": "place", "move": 7, "rank": "0"},
                                                        {"what": "place", "move": "0F0", "rank": True},
                                                        {"what": "set", "field": "P", "value": "3"}]))
    actions = draw(st.lists(st.one_of(pick, pick, pick, pick, pick, pick, typed, tool, choose, junk),
                            min_size=1, max_size=70))
    return case, actions


def concrete(state: dict, act: tuple):
    """An abstract action as the browser would send it, given the state (Python's)."""
    kind = act[0]
    if kind == "pick":
        if not view.shown(state):
            return {"what": "hint"}
        b = view.board(state)
        cands = [(mv, why) for r in range(b.setup.P) for mv, why in b.candidates(r)]
        ready = [c for c in cands if c[1] is None]
        pool = ready if ready and act[1] % 3 else cands
        if not pool:
            return {"what": "undo"}
        mv = pool[act[1] % len(pool)][0]
        return {"what": "place", "move": view.move_text(mv), "rank": mv[3]}
    if kind == "type":
        return {"what": "place", "move": act[1], "rank": act[2] if act[2] >= 0 else None}
    if kind == "tool":
        return {"what": act[1]}
    if kind == "set":
        return {"what": "set", "field": act[1][0], "value": act[1][1]}
    return act[1]


def result_data(res) -> dict:
    o, tl, mt = res.order, res.timeline, res.metrics
    values = readouts.readout_values(res)
    return {
        "puzzle": isinstance(res, PuzzleResult), "schedule": res.config.schedule, "P": res.config.P,
        "kind": o.kind, "mb": o.mb, "stage": o.stage, "rankPtr": o.rank_ptr, "text": o.to_text(),
        "start": tl.start, "end": tl.end, "deps": {"ptr": tl.deps.ptr, "idx": tl.deps.idx, "lag": tl.deps.lag},
        "makespan": mt.makespan, "bubble": mt.bubble_fraction, "peak": mt.peak_chunks, "bubbles": list(mt.bubbles),
        "readout": {"values": values, "html": {lang: readouts.readout_html(values, lang) for lang in LANGS}},
        "view": columns.figure_view(res, "micro-batches", "zh", 816.0),
        "puzzleView": {lang: view.figure_view(res, lang) for lang in LANGS},
    }


def checkpoint(state: dict, said) -> dict:
    v = view.block_values(state, said)
    out = {"values": v, "html": {lang: view.block_html(v, lang) for lang in LANGS},
           "live": {lang: view.live_text(v, lang) for lang in LANGS}, "result": None}
    if view.shown(state):
        out["result"] = result_data(view.run(state))
    return out


def python_run(case: dict, actions: list) -> tuple[list, list]:
    """(the concrete actions, what Python did at each)."""
    state, _ = normalize(state_of(case), set(case))
    sent, steps = [], []
    for i, act in enumerate(actions):
        action = concrete(state, act)
        updates, said = view.act(state, action)
        notes = []
        if updates:
            state, notes = normalize({**state, **updates}, set(updates))
        step = {"updates": updates, "said": said, "notes": notes,
                "moves": state["moves"], "redo": state["redo"], "puzzle": state["puzzle"], "cap": state["cap"]}
        if i % CHECK_EVERY == 0 or i == len(actions) - 1:
            step["check"] = checkpoint(state, said)
        sent.append(action)
        steps.append(twin.summary(step))
    return sent, steps


JS_PUZZLE = """
window.__puzzleRun = (c, actions, every) => {
  const X = PipevizExplorer, V = X.puzzleView, W = __twin, R = X.readouts, langs = ['en', 'zh'];
  const both = (f) => ({en: f('en'), zh: f('zh')});
  const resultData = (res) => {
    const o = res.order, tl = res.timeline, mt = res.metrics, values = R.readoutValues(res);
    return {
      puzzle: res.label !== undefined, schedule: res.config.schedule, P: res.config.P, kind: o.kind, mb: o.mb,
      stage: o.stage, rankPtr: o.rankPtr, text: o.toText(), start: tl.start, end: tl.end, deps: tl.deps,
      makespan: mt.makespan, bubble: mt.bubbleFraction, peak: mt.peakChunks,
      bubbles: [mt.bubbles.rank, mt.bubbles.start, mt.bubbles.end],
      readout: {values, html: both((l) => R.readoutHtml(values, l))},
      view: X.columns.figureView(res, 'micro-batches', 'zh', 816.0),
      puzzleView: both((l) => V.figureView(res, l)),
    };
  };
  try {
    const defaults = X.fields.defaults();
    let state = X.state.normalize(Object.assign(defaults, c), Object.keys(c)).state;
    return JSON.stringify(actions.map((action, i) => {
      const out = V.act(state, action), updates = out[0], said = out[1];
      let notes = [];
      if (Object.keys(updates).length) {
        const n = X.state.normalize(Object.assign({}, state, updates), Object.keys(updates));
        state = n.state;
        notes = n.notes;
      }
      const step = {updates, said, notes, moves: state.moves, redo: state.redo,
                    puzzle: state.puzzle, cap: state.cap};
      if (i % every === 0 || i === actions.length - 1) {
        const v = V.blockValues(state, said);
        step.check = {values: v, html: both((l) => V.blockHtml(v, l)), live: both((l) => V.liveText(v, l)),
                      result: V.shown(state) ? resultData(V.run(state)) : null};
      }
      return W.summary(step);
    }));
  } catch (e) {
    return JSON.stringify({exception: String(e.stack || e)});
  }
};
"""


@pytest.fixture(scope="module")
def twin_page(browser):
    page = browser.new_page()
    twin.load(page)
    page.add_script_tag(content=JS_PUZZLE)
    yield page
    page.close()


def run_both(page, case, actions):
    sent, expected = python_run(case, actions)
    got = json.loads(page.evaluate("([c, a, k]) => __puzzleRun(c, a, k)", [case, sent, CHECK_EVERY]))
    assert not isinstance(got, dict), got.get("exception")
    for i, (e, a) in enumerate(zip(expected, got)):
        d = twin.Diff()
        d.walk("", e, a)
        assert not d.errors, f"{case}\nstep {i}: {sent[i]!r}\n" + "\n".join(d.errors)
    assert len(got) == len(expected)
    return expected


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(cases())
def test_generated_move_sequences_match_python(twin_page, case):
    run_both(twin_page, *case)


def test_each_guided_puzzle_solved_and_compared_alike(twin_page):
    """Par's own order (solved: par's very result), a different complete order (both on
    one time axis) and every refusal's words, for each goal at the article's P and m."""
    from test_puzzle import solution

    seen = set()
    for goal in GOALS:
        case = {"puzzle": goal, "P": 4, "m": 4, "V": GOALS[goal].V[0]}
        state, _ = normalize(state_of(case), set(case))
        moves = solution(view.setup(state))
        actions = [("type", m, -1) for m in moves] + [("tool", "hint"), ("tool", "undo"), ("tool", "undo")]
        # Another complete order: every op of par's, the last two of rank 0 swapped where they may be.
        actions += [("pick", 0)] * 6 + [("type", "0F0", 0), ("type", "9F9", 0), ("type", "0W0", 0), ("type", "0B0", 0),
                                         ("type", "EF0", 0), ("type", "EB9@9", 1), ("type", "zz", 0)]
        for step in run_both(twin_page, case, actions):
            said = step["said"]
            if said is not None and said["key"] == "puzzle.refused":
                seen.add(said["args"]["why"]["key"])
    assert seen >= {"puzzle.placed", "puzzle.range", "puzzle.split_b", "puzzle.whole_b", "puzzle.no_encoder",
                    "puzzle.not_op", "puzzle.waits"}


@st.composite
def rule_cases(draw):
    """A state and what changed: puzzles at any size the sliders reach, moves valid or
    not, a schedule or an order of one's own chosen, costs the engine refuses."""
    state = state_of({
        "puzzle": draw(st.sampled_from(list(FIELDS["puzzle"].choices))), "P": draw(st.integers(1, 32)),
        "m": draw(st.integers(1, 128)), "V": draw(st.integers(1, 8)), "cap": draw(st.sampled_from(CAPS[:6])),
        "moves": ",".join(draw(st.lists(st.sampled_from(["0F0", "1F0", "0F1", "1B0", "0B0", "2F0", "EF0@0", "0I0",
                                                           "0W0", "9F9", "x"]), max_size=8))),
        "redo": draw(st.sampled_from(["", "0F1"])), "custom": draw(st.booleans()),
        "schedule": draw(st.sampled_from(["1f1b", "gpipe", "interleaved", "zb-v"])),
        "tf": draw(st.sampled_from([1.0, 1.0, -1.0])),
    })
    keys = ["puzzle", "P", "m", "V", "cap", "moves", "custom", "schedule", "tf"]
    changed = draw(st.lists(st.sampled_from(keys), min_size=1, max_size=4, unique=True))
    return state, changed


@settings(max_examples=150, deadline=None)
@given(st.lists(rule_cases(), min_size=10, max_size=10))
def test_the_rule_matches_python(twin_page, cases):
    got = json.loads(twin_page.evaluate("""([cases]) => JSON.stringify(cases.map(([state, changed]) => {
      try {
        const out = PipevizExplorer.state.normalize(state, changed);
        return __twin.summary({state: out.state, notes: out.notes});
      } catch (e) { return {error: __twin.error(e)}; }
    }))""", [cases]))
    for (state, changed), a in zip(cases, got):
        try:
            s, notes = normalize(state, set(changed))
            e = twin.summary({"state": s, "notes": notes})
        except Exception as err:  # noqa: BLE001 (both sides must fail alike; none should)
            e = {"error": repr(err)}
        d = twin.Diff()
        d.walk("", e, a)
        assert not d.errors, f"{state} changed={changed}\n" + "\n".join(d.errors)


def test_caps_are_the_fields_choices():
    assert tuple(FIELDS["cap"].choices) == CAPS
