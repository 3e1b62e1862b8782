"""The encoder in the bubbles (docs/model.md "Independent work in the bubbles"): reference
numbers, a case checked by hand, and invariants over generated configurations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pipeviz import NAMES, Config, ConfigError, Costs, run
from pipeviz.config import PLACES, Encoder
from pipeviz.encoder import first_ops
from pipeviz.order import EB, EF, FB
from pipeviz.simulate import op_durations, simulate


def enc_run(schedule="1f1b", P=4, m=8, V=1, costs=None, **enc):
    return run(Config(schedule, P, m, V, costs or Costs(), encoder=Encoder(**enc)))


# -- docs/model.md's reference numbers and a hand-checked case --------------------

@pytest.mark.parametrize("place,makespan", [("stage0", 40.5), ("separate", 36.0), ("bubbles", 34.5)])
def test_article_defaults(place, makespan):
    """1F1B, P=4, m=8, e_f=0.5, e_b=1. stage0 and separate follow from their rules; bubbles
    fits every other encoder op into the pipeline's gaps, so it costs one prologue
    slot and one epilogue slot: 33 + 0.5 + 1."""
    res = enc_run(ef=0.5, eb=1.0, place=place)
    e = res.encoder
    assert res.metrics.makespan == e.makespan == makespan
    assert e.pipeline_makespan == 33
    assert e.exposed == makespan - 33
    if place == "bubbles":
        assert e.in_gaps == (4, 4) and e.rounds == (1, 1)
        # 4 forwards and 4 backwards hidden: 6 of m(e_f + e_b) = 12, and of the pipeline's idle 4*33 - 4*24 = 36.
        assert e.hidden == 6 and e.hidden_share == 0.5 and e.bubble_filled == pytest.approx(1 / 6)
    else:
        assert e.hidden == e.hidden_share == e.bubble_filled == 0


def test_small_case_by_hand():
    """1F1B, P=2, m=4, defaults, e_f=0.5, e_b=1. The pipeline alone (makespan 15):
      rank 0: F0 0-1, F1 1-2, idle 2-4, B0 4-6, F2 6-7, B1 7-9, F3 9-10, B2 10-12, idle 12-13, B3 13-15
      rank 1: idle 0-1, F0 1-2, B0 2-4, F1 4-5, B1 5-7, F2 7-8, B2 8-10, F3 10-11, B3 11-13, idle 13-15
    Prologue: EF0 on rank 0, EF1 on rank 1; epilogue EB2 on rank 0, EB3 on rank 1.
    EF2 (window up to F(2,0) at 6): the earliest gaps start at 0 (rank 1) -> rank 1 at 0.
    EF3 (up to 9): what is left of that gap, 0.5-1 -> rank 1 at 0.5.
    EB0 (from B(0,0)'s end at 6): rank 0's gap 12-13 starts before rank 1's 13-15 -> rank 0 at 12.
    EB1 (from 9): rank 0's gap is used up; rank 1 at 13.
    Everything shifts by the prologue's 0.5; the epilogue runs 15.5-16.5."""
    res = enc_run("1f1b", 2, 4, ef=0.5, eb=1.0, place="bubbles")
    o, tl = res.order, res.timeline
    assert o.to_text().splitlines() == [
        "EF0 0F0 0F1 0B0 0F2 0B1 0F3 0B2 EB0 0B3 EB2",
        "EF1 EF2 EF3 1F0 1B0 1F1 1B1 1F2 1B2 1F3 1B3 EB1 EB3",
    ]
    times = {o.token(i): (tl.start[i], tl.end[i]) for i in range(o.n_ops) if o.kind[i] in (EF, EB)}
    assert times == {"EF0": (0, 0.5), "EF1": (0, 0.5), "EF2": (0.5, 1), "EF3": (1, 1.5),
                     "EB0": (12.5, 13.5), "EB1": (13.5, 14.5), "EB2": (15.5, 16.5), "EB3": (15.5, 16.5)}
    e = res.encoder
    assert e.makespan == 16.5 and e.pipeline_makespan == 15 and e.exposed == 1.5
    assert e.hidden_share == 0.5  # 3 of 6
    assert e.bubble_filled == 0.5  # 3 of the pipeline's 6 idle


def test_a_large_forward_runs_in_a_further_round():
    """Same pipeline, e_f = 1.5: EF2 fits only rank 0's gap 2-4 (at 2); EF3's window
    (up to 9) holds no 1.5 any more, so a second prologue round runs it on rank 0."""
    res = enc_run("1f1b", 2, 4, ef=1.5, eb=1.0, place="bubbles")
    assert res.order.to_text().splitlines()[0].startswith("EF0 EF3 0F0 0F1 EF2 0B0")
    assert res.encoder.rounds == (2, 1) and res.encoder.in_gaps == (1, 2)
    assert res.encoder.makespan == 15 + 2 * 1.5 + 1


def test_frozen_has_no_backward():
    for place in PLACES:
        res = enc_run(ef=0.5, eb=1.0, place=place, frozen=True)
        assert (res.order.kind == EB).sum() == 0 and (res.order.kind == EF).sum() == 8
    assert enc_run(ef=0.5, place="separate", frozen=True).metrics.makespan == 33 + 2 * 0.5
    assert enc_run(ef=0.5, place="bubbles", frozen=True).metrics.makespan == 33 + 0.5


def test_m_at_most_p_is_prologue_and_epilogue_only():
    res = enc_run("1f1b", 4, 3, ef=0.5, eb=1.0, place="bubbles")
    sep = enc_run("1f1b", 4, 3, ef=0.5, eb=1.0, place="separate")
    assert res.order.to_text() == sep.order.to_text()
    assert res.encoder.in_gaps == (0, 0) and res.metrics.makespan == sep.metrics.makespan


def test_encoder_ops_are_drawn_and_exported_whole():
    """e_f and e_b are not divided by the chunks a rank holds."""
    res = enc_run("interleaved", 4, 8, 2, ef=0.5, eb=1.0, place="stage0")
    dur = res.timeline.duration
    assert np.allclose(dur[res.order.kind == EF], 0.5) and np.allclose(dur[res.order.kind == EB], 1.0)


def test_closed_form_says_why_it_differs():
    res = enc_run(ef=0.5, eb=1.0)
    assert not res.bubble_agrees and not res.theory.bubble_exact
    assert "encoder" in res.theory.caveat.text()


@pytest.mark.parametrize("bad,key", [
    (dict(ef=0), "cost.range"), (dict(eb=-1), "cost.range"), (dict(ef=float("nan")), "cost.number"),
    (dict(place="middle"), "encoder.place"), (dict(frozen="yes"), "encoder.frozen"),
])
def test_bad_settings_say_what_is_valid(bad, key):
    with pytest.raises(ConfigError) as e:
        Encoder(**bad)
    assert e.value.msg.key == key


# -- invariants ---------------------------------------------------------------------

cost = st.sampled_from([0.25, 0.5, 1.0, 1.5, 2.0, 3.0]) | st.floats(0.05, 8.0, allow_nan=False)
enc_cost = st.sampled_from([0.1, 0.5, 1.0, 2.0, 5.0]) | st.floats(0.01, 10.0, allow_nan=False)


@st.composite
def configs(draw, comm=True):
    name = draw(st.sampled_from(NAMES))
    costs = Costs(draw(cost), draw(cost), draw(st.just(0.0) | cost),
                  draw(st.just(0.0) | st.floats(0.001, 2.0, allow_nan=False)) if comm else 0.0)
    cfg = Config(name, P=draw(st.integers(1, 8)), m=draw(st.integers(1, 24)), V=draw(st.integers(1, 3)), costs=costs,
                 encoder=Encoder(draw(enc_cost), draw(enc_cost), draw(st.sampled_from(PLACES)), draw(st.booleans())))
    try:
        run(cfg)
    except ConfigError as e:
        # A schedule's own refusal of (P, m, V), never the encoder's or the balancing's.
        assert not e.msg.key.startswith(("encoder.", "balance.", "cost.", "config.")), e
        assume(False)
    return cfg


def lag(res, a, b):
    return res.config.costs.comm if res.order.rank[a] != res.order.rank[b] else 0.0


@given(configs())
def test_encoder_ops_respect_their_windows_and_never_overlap(cfg):
    res = run(cfg)
    o, tl, enc = res.order, res.timeline, cfg.encoder
    eps = 1e-9 * max(1.0, tl.makespan)
    fwd, bwd = first_ops(o)
    for i in np.flatnonzero(o.kind == EF):
        f = fwd[o.mb[i]]
        assert tl.end[i] + lag(res, i, f) <= tl.start[f] + eps
    for i in np.flatnonzero(o.kind == EB):
        b = bwd[o.mb[i]]
        assert tl.start[i] >= tl.end[b] + lag(res, i, b) - eps
    # One op at a time on each rank, in the rank's order.
    same = o.rank[1:] == o.rank[:-1]
    assert (tl.start[1:][same] >= tl.end[:-1][same] - eps).all()
    # Every micro-batch's encoder ops once, at their whole cost.
    assert sorted(o.mb[o.kind == EF].tolist()) == list(range(cfg.m))
    assert sorted(o.mb[o.kind == EB].tolist()) == ([] if enc.frozen else list(range(cfg.m)))
    assert np.allclose(tl.duration[o.kind == EF], enc.ef) and np.allclose(tl.duration[o.kind == EB], enc.eb)
    # Busy time is the pipeline's work plus the encoder's.
    assert res.metrics.busy.sum() == pytest.approx(res.encoder.pipeline.duration.sum() + cfg.m * enc.work)


@given(configs())
def test_bubbles_is_never_above_separate(cfg):
    runs = {p: run(cfg.replace(encoder=cfg.encoder.replace(place=p))).encoder for p in PLACES}
    b, s = runs["bubbles"], runs["separate"]
    assert b.makespan <= s.makespan + 1e-9 * max(1.0, s.makespan)
    assert b.rounds[0] <= math.ceil(cfg.m / cfg.P) and b.rounds[1] <= s.rounds[1]
    for e in runs.values():
        assert e.exposed >= -1e-9 * e.makespan
        assert 0 <= e.hidden_share <= 1 + 1e-12 and 0 <= e.bubble_filled <= 1 + 1e-9


@given(configs(comm=False))
def test_when_everything_fits_it_costs_one_slot_each_way(cfg):
    """At comm = 0, the bubbles placement costs the pipeline's makespan + e_f + e_b
    whenever no encoder op needed a further round, and its pipeline ops run exactly
    as the pipeline alone, shifted by the prologue."""
    cfg = cfg.replace(encoder=cfg.encoder.replace(place="bubbles"))
    res = run(cfg)
    e, enc = res.encoder, cfg.encoder
    pipe = ~np.isin(res.order.kind, (EF, EB))
    shift = e.rounds[0] * enc.ef
    assert np.allclose(res.timeline.start[pipe], e.pipeline.start + shift, rtol=0, atol=1e-9 * e.makespan)
    assert e.makespan == pytest.approx(e.pipeline_makespan + e.rounds[0] * enc.ef + e.rounds[1] * enc.eb, rel=1e-9)
    if e.rounds == (1, 0 if enc.frozen else 1):
        assert e.makespan == pytest.approx(e.pipeline_makespan + enc.work, rel=1e-9)
        assert e.in_gaps == (max(0, cfg.m - cfg.P), 0 if enc.frozen else max(0, cfg.m - cfg.P))


@given(configs(comm=False))
def test_separate_costs_its_rounds(cfg):
    cfg = cfg.replace(encoder=cfg.encoder.replace(place="separate"))
    e, enc = run(cfg).encoder, cfg.encoder
    k = math.ceil(cfg.m / cfg.P)
    assert e.makespan == pytest.approx(e.pipeline_makespan + k * enc.ef + (0 if enc.frozen else k * enc.eb), rel=1e-9)


@given(configs())
def test_stage0_times_like_a_heavier_stage_0(cfg):
    """stage0 is docs/model.md's F(i, 0) costs + e_f and B(i, 0) costs + e_b: the same
    makespan as the pipeline alone with those two ops made heavier, where they are ops
    of their own; where an overlapped F&B holds one, never later."""
    cfg = cfg.replace(encoder=cfg.encoder.replace(place="stage0"))
    res = run(cfg)
    pipe = res.encoder.pipeline.order
    dur = op_durations(pipe, cfg.costs)
    fwd, bwd = first_ops(pipe)
    dur[fwd] += cfg.encoder.ef
    if not cfg.encoder.frozen:
        dur[bwd] += cfg.encoder.eb
    heavier = simulate(pipe, cfg.costs, dur)
    if (pipe.kind[fwd] == FB).any() or (pipe.kind[bwd] == FB).any():
        assert res.metrics.makespan <= heavier.makespan * (1 + 1e-9)
    else:
        assert res.metrics.makespan == pytest.approx(heavier.makespan, rel=1e-9)
