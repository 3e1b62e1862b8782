"""DualPipe-V: DeepSeek's order op for op, timings computed by hand, the peak, and
where DeepSeek's bubble (PP/2-1)(F&B+B-3W) is a rank's idle."""

from __future__ import annotations

from fractions import Fraction

import pytest
import reference_orders as ref
from hypothesis import assume, given
from hypothesis import strategies as st

from pipeviz import Config, ConfigError, Costs, run
from pipeviz.closed_form import exact
from pipeviz.registry import SCHEDULES
from pipeviz.schedules.dualpipe_v import fb_count


def order(P, m):
    return SCHEDULES["dualpipe-v"].generate(Config("dualpipe-v", P, m, 2))


@pytest.mark.parametrize("P", range(1, 9))
def test_order_is_deepseeks_op_for_op(P):
    for m in range(2 * P, 4 * P + 1):
        o = order(P, m)
        assert [o.rank_ops(r) for r in range(P)] == [ref.dualpipe_v(P, m, r) for r in range(P)], (P, m)


def test_order_mixes_full_and_split_backwards():
    o = order(4, 8)
    assert o.rank_ops(0)[7:10] == [("F", 0, 7), ("I", 0, 7), ("W", 0, 7)]  # step 3: split
    assert o.rank_ops(0)[17] == ("F&B", 7, 0, 3, 7)  # step 4: 0F7&7B3, a full backward inside
    assert o.rank_ops(0)[25] == ("B", 7, 7)  # step 6 on rank 0: B1 full, then B0 split
    assert o.rank_ops(0)[26] == ("I", 4, 0)


def test_overlapped_pairs_per_rank():
    # Two per step 4 step (one fewer on the last rank), one per step 5 step.
    for P in range(1, 9):
        for m in range(2 * P, 4 * P + 1):
            o = order(P, m)
            pairs = [sum(op[0] == "F&B" for op in o.rank_ops(r)) for r in range(P)]
            assert pairs == fb_count(P, m).tolist() == [2 * m - 3 * P + r + 1 - (r == P - 1) for r in range(P)]


# Timings computed by hand, op by op, at t_f = t_b = t_w = 1 (a chunk's F, I and W take
# 0.5, a full B 1, an F&B t_fb/2), for P = 2, m = 4 and P = 3, m = 6.
#
# P = 2, m = 4 (rank 0: 0F0 0F1 0F2 3F0 3I0 3W0 3F1 0F3&3B1 3F2&0B0 3B2 3F3&0B1 3B3 0I2 0W2
# 0I3 0W3; rank 1: 1F0 2F0 1F1 2F1 1F2 2B0 2F2&1B0 1F3&2B1 2F3&1B1 2B2 1B2 2I3 1I3 2W3 1W3),
# with X = t_fb/2: the warm-up ends with 2B0 at 4; 1B0 needs it, so 2F2&1B0 ends 4+X,
# 3F2&0B0 4+2X, 2F3&1B1 4+3X, 3B2 5+2X, so 3F3&0B1 starts T = max(5+2X, 4+3X); 2B2 runs
# at T, 1B2 at T+1, 3B3 ends T+X+1, and the split tails take 2 more on both ranks from
# T + max(2, X+1). Makespan T + max(2, X+1) + 2; both ranks run 3 pairs, busy 12 - 3(3-t_fb)/2.
#
# P = 3, m = 6: the warm-up is the same at every t_fb (5F2 ends at 6, 3B0 at 5.5, 4F2 at 5);
# from there each op starts at the latest of its rank's last end and its inputs, e.g. at
# t_fb = 2 (X = 1): 1F4&4B1 5-6, 3F3&2B0 5.5-6.5, 0F5&5B2 6-7, 4F3&1B0 6.5-7.5, ...,
# 5F5&0B2 11.5-12.5, 5B5 12.5-13.5, 0I3 13.5, ... 0W5 ends 16.5 on every rank. Ranks run
# 4, 5, 5 pairs: busy 18 - n(3 - t_fb)/2.
HAND = [
    # P, m, t_fb, makespan, idle per rank
    (2, 4, 3.0, 13.0, [1.0, 1.0]),  # T = 8.5; no overlap gain: every rank idles D
    (2, 4, 2.0, 11.0, [0.5, 0.5]),  # T = 7
    (2, 4, 4.0, 15.0, [1.5, 1.5]),  # T = 10
    (2, 4, 1.5, 10.5, [0.75, 0.75]),  # T = 6.5; t_fb < t_f + t_w: D = 0.25 is no rank's idle
    (3, 6, 3.0, 20.0, [2.0, 2.0, 2.0]),
    (3, 6, 2.0, 16.5, [0.5, 1.0, 1.0]),  # busy 16, 15.5, 15.5
    (3, 6, 4.0, 23.5, [3.5, 3.0, 3.0]),  # busy 20, 20.5, 20.5: rank 0 idles longest
    (3, 6, 1.5, 15.75, [0.75, 1.5, 1.5]),  # busy 15, 14.25, 14.25; D = 0.5
]


@pytest.mark.parametrize("P,m,tfb,makespan,idle", HAND)
def test_makespan_and_idle_computed_by_hand(P, m, tfb, makespan, idle):
    res = run(Config("dualpipe-v", P, m, 2, Costs(tfb=tfb)))
    assert res.metrics.makespan == makespan
    assert res.metrics.idle.tolist() == idle


def test_pytorchs_p4_m8():
    res = run(Config("dualpipe-v", 4, 8, 2))
    assert res.metrics.makespan == 27
    assert res.theory.bubble == Fraction(1, 9) and res.bubble_agrees
    assert res.metrics.idle.tolist() == [3, 3, 3, 3] and res.theory.authors.idle == 3  # (PP/2-1)(F&B+B-3W) = 3 * 1


@pytest.mark.parametrize("P", range(1, 9))
def test_peak_is_2P_plus_1_chunks_on_every_rank(P):
    """DeepSeek's PP+1 with PP = 2P stages, from the simulation."""
    for m in range(2 * P, 4 * P + 1):
        res = run(Config("dualpipe-v", P, m, 2))
        assert res.metrics.peak_chunks.tolist() == [2 * P + 1] * P, (P, m)
        assert res.metrics.peak_microbatches.tolist() == [P + 0.5] * P
        assert res.metrics.peak_awaiting_w.tolist() == [0] * P  # the peak comes before any split backward
        assert res.peak_agrees


@pytest.mark.parametrize("P,m", [(1, 1), (2, 3), (4, 7), (8, 1)])
def test_m_below_2P_is_refused_with_the_m_that_would_do(P, m):
    with pytest.raises(ConfigError, match=f"use m >= {2 * P}") as e:
        run(Config("dualpipe-v", P, m, 2))
    assert e.value.msg.key == "dualpipe-v.m_below_2P"


@pytest.mark.parametrize("V", [1, 3])
def test_v_other_than_2_is_refused(V):
    with pytest.raises(ConfigError, match="V must be 2"):
        run(Config("dualpipe-v", 4, 8, V))


# Where DeepSeek's bubble holds: comm = 0, t_f = t_b, t_w <= t_f, t_fb >= t_f + t_w. There
# it is rank P-1's idle, and the largest when t_fb <= t_f + t_b + t_w.

def deepseek(res):
    return float(res.theory.authors.idle)


def test_brief_cases_equal_costs_match_the_largest_idle():
    for P in range(2, 9):
        for m in range(2 * P, 4 * P + 1, 3):
            for tw in (0.0, 0.5, 1.0):
                res = run(Config("dualpipe-v", P, m, 2, Costs(1, 1, tw)))
                assert res.theory.bubble_exact and res.bubble_agrees
                assert res.metrics.idle.max() == pytest.approx(deepseek(res), abs=1e-9), (P, m, tw)


def test_brief_cases_unequal_costs_miss_it():
    for P in range(2, 9):
        for m in range(2 * P, 4 * P + 1, 3):
            res = run(Config("dualpipe-v", P, m, 2, Costs(1, 2, 0.5)))
            assert not res.theory.bubble_exact and res.theory.caveat.key == "dualpipe-v.f_ne_b"
            assert abs(res.metrics.idle.max() - deepseek(res)) > 0.1, (P, m)


@pytest.mark.parametrize("costs,key", [
    (Costs(1, 1, 1, 0.5), "cf.comm"),
    (Costs(2, 1, 0.5), "dualpipe-v.f_ne_b"),
    (Costs(1, 1, 1.5), "dualpipe-v.big_w"),
    (Costs(1, 1, 0.5, 0, 1.2), "dualpipe-v.fast_fb"),
])
def test_outside_the_region_it_says_why_and_differs(costs, key):
    res = run(Config("dualpipe-v", 4, 10, 2, costs))
    assert res.theory.caveat.key == key and not res.theory.bubble_exact
    assert abs(res.metrics.idle[3] - deepseek(res)) > 0.1


region = st.tuples(
    st.integers(2, 8), st.integers(0, 8),  # P, m - 2P
    st.sampled_from([0.5, 1.0, 2.0]) | st.floats(0.05, 5.0),  # t_f = t_b
    st.sampled_from([0.0, 0.25, 1.0]) | st.floats(0.01, 1.0),  # t_w / t_f
    st.floats(0.0, 3.0),  # t_fb above t_f + t_w, in units of t_b
)


@given(region)
def test_deepseeks_bubble_is_rank_P_minus_1s_idle_in_the_region(x):
    P, extra, t, w_share, over = x
    tw = t * w_share
    tfb = t + tw + over * t
    assume(exact(tfb) >= exact(t) + exact(tw))  # not rounded below t_f + t_w
    res = run(Config("dualpipe-v", P, 2 * P + extra, 2, Costs(t, t, tw, 0.0, tfb)))
    assert res.theory.bubble_exact and res.bubble_agrees and res.steady_agrees
    idle = res.metrics.idle
    tol = 1e-9 * res.metrics.makespan
    assert idle[P - 1] == pytest.approx(deepseek(res), abs=tol)
    if tfb <= 2 * t + tw:  # no slower than running F and B apart: also the largest
        assert idle.max() == pytest.approx(deepseek(res), abs=tol)
