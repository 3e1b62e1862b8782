"""Per-stage costs (docs/model.md "Per-stage costs") and where the bubble comes from."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_properties import configs

from pipeviz import Config, ConfigError, Costs, run
from pipeviz.decompose import bubble_parts
from pipeviz.order import FB, Order
from pipeviz.simulate import op_durations, simulate
from pipeviz.stages import parse_weights


def stages_of(cfg: Config) -> int:
    return run(cfg).order.S


weight = st.sampled_from([0.5, 1.0, 1.25, 2.0]) | st.floats(0.2, 4.0, allow_nan=False)


@given(configs())
def test_weights_of_one_reproduce_todays_timings_exactly(cfg):
    plain = run(cfg)
    ones = run(cfg.replace(stage_weights=(1,) * plain.order.S))
    assert np.array_equal(ones.timeline.start, plain.timeline.start)
    assert np.array_equal(ones.timeline.end, plain.timeline.end)
    assert ones.metrics.bubble_fraction == plain.metrics.bubble_fraction
    assert ones.theory.caveat == plain.theory.caveat and ones.theory.bubble_exact == plain.theory.bubble_exact
    assert ones.bubble_parts == plain.bubble_parts


@given(configs(), st.data())
def test_an_op_on_stage_s_costs_its_usual_cost_times_w_s(cfg, data):
    S = stages_of(cfg)
    w = tuple(data.draw(st.lists(weight, min_size=S, max_size=S)))
    res = run(cfg.replace(stage_weights=w))
    o = res.order
    usual = op_durations(o, cfg.costs)
    c, wa = cfg.costs, np.asarray(w)
    # An overlapped F&B (dualpipe-v) is scaled by its parts' weighted mix: its forward
    # on `stage`, its backward on `stage2`.
    pair = o.kind == FB
    scale = wa[o.stage]
    mix = (c.tf * wa[o.stage] + (c.tb + c.tw) * wa[np.maximum(o.stage2, 0)]) / (c.tf + c.tb + c.tw)
    scale = np.where(pair, mix, scale)
    assert np.allclose(res.timeline.duration, usual * scale, rtol=1e-12)
    # Every rank still does each of its stages' work once per micro-batch (an F&B
    # that takes less than its parts' sum does less).
    if not pair.any() or c.tfb is None:
        per_rank = np.bincount(o.stage_to_rank, weights=wa, minlength=cfg.P) / o.chunks_per_rank
        assert np.allclose(res.metrics.busy, cfg.m * (c.tf + c.tb + c.tw) * per_rank)
    # In-flight counts depend on each rank's order only, not on the costs.
    assert res.metrics.peak_chunks.tolist() == run(cfg).metrics.peak_chunks.tolist()


@given(configs(), st.data())
def test_unequal_weights_void_the_closed_form_with_a_reason(cfg, data):
    S = stages_of(cfg)
    w = list(data.draw(st.lists(weight, min_size=S, max_size=S)))
    res = run(cfg.replace(stage_weights=tuple(w)))
    if min(w) != max(w):
        assert not res.theory.bubble_exact and not res.theory.steady_exact
        assert "the stages cost different amounts" in res.theory.caveat.text()
        assert "各段开销不同" in res.theory.caveat.text("zh")
    else:  # every stage alike: only the time unit changes
        assert res.theory.caveat == run(cfg).theory.caveat
        if res.theory.bubble_exact:
            assert res.bubble_agrees


@given(configs(), st.data())
def test_bubble_parts_sum_to_the_simulated_bubble(cfg, data):
    S = stages_of(cfg)
    w = tuple(data.draw(st.lists(weight, min_size=S, max_size=S)))
    res = run(cfg.replace(stage_weights=w))
    parts = res.bubble_parts
    if min(w) == max(w) and cfg.costs.comm == 0:
        assert parts is None
        return
    assert parts.ideal + parts.imbalance + parts.comm == pytest.approx(res.metrics.bubble_fraction, abs=1e-12)
    assert parts.total == res.metrics.bubble_fraction
    # The ideal part is the schedule's own bubble: equal stages, no comm.
    flat = run(cfg.replace(costs=dataclasses.replace(cfg.costs, comm=0.0)))  # t_fb kept
    assert parts.ideal == pytest.approx(flat.metrics.bubble_fraction, abs=1e-12)
    if cfg.costs.comm == 0:
        assert parts.comm == 0
    else:
        assert parts.comm >= -1e-12  # latency only delays: ASAP times grow with every lag
    if min(w) == max(w):
        assert parts.imbalance == pytest.approx(0, abs=1e-12)


def test_one_heavy_stage_sets_the_pace():
    """1F1B, P=4, m=8: a first stage 1.3x as slow and a last one 1.2x. Stage 0 runs
    3.9 units a micro-batch; the others wait for it."""
    res = run(Config("1f1b", 4, 8, stage_weights=(1.3, 1, 1, 1.2)))
    assert res.metrics.makespan == pytest.approx(38.7)
    parts = res.bubble_parts
    assert parts.ideal == pytest.approx(3 / 11)  # the mean weight, 1.125, keeps the bubble
    assert parts.makespan_ideal == pytest.approx(33 * 1.125)
    assert parts.imbalance == pytest.approx(res.metrics.bubble_fraction - 3 / 11)
    assert parts.comm == 0
    assert not res.bubble_agrees


def test_bubble_parts_name_comm_alone():
    res = run(Config("1f1b", 4, 8, costs=Costs(comm=0.5)))
    parts = res.bubble_parts
    assert parts.ideal == pytest.approx(3 / 11) and parts.imbalance == 0
    assert parts.comm == pytest.approx(res.metrics.bubble_fraction - 3 / 11) and parts.comm > 0
    assert bubble_parts(run(Config("1f1b", 4, 8))) is None


def test_overlapped_pair_is_scaled_by_its_parts_weighted_mix():
    """One rank holding stages 0 (w 2) and 1 (w 0.5); an F&B of the forward of stage
    0 and the backward of stage 1 costs t_fb / 2 (two chunks per rank) times
    (t_f * 2 + (t_b + t_w) * 0.5) / (t_f + t_b + t_w)."""
    order = Order.from_rank_lists(
        m=2, stage_to_rank=[0, 0],
        ranks=[[("F", 0, 0), ("F", 0, 1), ("F&B", 1, 0, 0, 1), ("B", 0, 0), ("F", 1, 1), ("B", 1, 1),
                ("B", 1, 0)]],
    )
    costs = Costs(tf=1.0, tb=2.0, tw=1.0, tfb=3.0)
    dur = op_durations(order, costs, (2.0, 0.5))
    pair = np.flatnonzero(order.kind == FB)[0]
    assert dur[pair] == pytest.approx(3.0 / 2 * (1.0 * 2.0 + 3.0 * 0.5) / 4.0)
    assert dur[0] == 1.0 and dur[3] == 3.0  # F and full B on stage 0: 1/2 x 2, 3/2 x 2
    assert dur[1] == 0.25  # F on stage 1: 1/2 x 0.5
    plain = simulate(order, costs)
    assert simulate(order, costs, weights=(1.0, 1.0)).end.tolist() == plain.end.tolist()
    assert plain.duration[pair] == 1.5


@pytest.mark.parametrize("weights,key", [
    ((1, 1, 1), "weights.length"),
    ((1, 0, 1, 1), "weights.range"),
    ((1, -2, 1, 1), "weights.range"),
    ((1, float("nan"), 1, 1), "weights.range"),
    ((1, True, 1, 1), "weights.range"),
    ((1, "2", 1, 1), "weights.range"),
    ((), "weights.empty"),
    ("1,1,1,1", "weights.type"),
])
def test_bad_weights_are_refused_with_what_is_valid(weights, key):
    with pytest.raises(ConfigError) as e:
        run(Config("1f1b", 4, 8, stage_weights=weights))
    assert e.value.msg.key == key
    assert "stage" in str(e.value)


def test_weights_length_names_the_schedules_stages():
    with pytest.raises(ConfigError, match="4 stage weights were given, but zb-v here has 8 stages; give 8"):
        run(Config("zb-v", 4, 8, 2, stage_weights=(1.3, 1, 1, 1.2)))
    assert run(Config("interleaved", 2, 4, 2, stage_weights=(1.3, 1, 1, 1.2))).order.S == 4


def test_weights_key_the_cache():
    a = Config("1f1b", 4, 8, stage_weights=[1.3, 1, 1, 1.2])
    assert a.stage_weights == (1.3, 1.0, 1.0, 1.2)
    assert hash(a) == hash(Config("1f1b", 4, 8, stage_weights=(1.3, 1, 1, 1.2)))
    assert a != Config("1f1b", 4, 8)


@pytest.mark.parametrize("text,expected", [
    ("1.3,1,1,1.2", (1.3, 1.0, 1.0, 1.2)),
    (" 1.3 1  1;1.2 ", (1.3, 1.0, 1.0, 1.2)),
    ("", None),
    ("   ", None),
    ("2e0, .5", (2.0, 0.5)),
])
def test_typed_weights(text, expected):
    assert parse_weights(text) == expected


@pytest.mark.parametrize("text,token", [("1,x,2", "x"), ("1,0x10", "0x10"), ("1,١", "١"), ("1,inf", "inf"),
                                        ("1,__import__('os')", "__import__('os')")])
def test_typed_weights_are_read_never_evaluated(text, token):
    with pytest.raises(ConfigError) as e:
        parse_weights(text)
    assert e.value.msg.key == "weights.parse" and e.value.msg.args["token"] == token[:20]
