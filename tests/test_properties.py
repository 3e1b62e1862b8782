"""Invariants over many generated configurations (hypothesis):
P in 1..16, m in 1..64, V in 1..4, every schedule, random costs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pipeviz import NAMES, Config, ConfigError, Costs, run
from pipeviz.order import FB, B, F, I, W
from pipeviz.simulate import op_durations

cost = st.sampled_from([0.25, 0.5, 1.0, 1.5, 2.0, 3.0]) | st.floats(0.05, 8.0, allow_nan=False)
costs = st.builds(
    Costs,
    tf=cost,
    tb=cost,
    tw=st.just(0.0) | cost,
    comm=st.just(0.0) | st.floats(0.001, 2.0, allow_nan=False),
    tfb=st.none() | cost,  # an overlapped F&B (DualPipe-V); None: t_f + t_b + t_w
)


@st.composite
def configs(draw):
    name = draw(st.sampled_from(NAMES))
    cfg = Config(
        name,
        P=draw(st.integers(1, 16)),
        m=draw(st.integers(1, 64)),
        V=draw(st.integers(1, 4)),
        costs=draw(costs),
    )
    try:
        run(cfg)
    except ConfigError as e:
        # Invalid combinations are refused with a message that says what is valid.
        assert e.msg.key in ("schedule.fixed_v1", "schedule.fixed_v", "dualpipe-v.m_below_2P"), e
        assume(False)
    return cfg


@given(configs())
def test_every_op_once_on_its_rank(cfg):
    res = run(cfg)
    o = res.order
    pair = o.kind == FB
    # Every (mb, stage) has one forward and one backward, alone or in an overlapped pair,
    # and a W exactly where its backward is split.
    fwd = (o.kind == F) | pair
    forwards = list(zip(o.mb[fwd].tolist(), o.stage[fwd].tolist()))
    backwards = list(zip(o.mb[(o.kind == B) | (o.kind == I)].tolist(), o.stage[(o.kind == B) | (o.kind == I)].tolist()))
    backwards += list(zip(o.mb2[pair].tolist(), o.stage2[pair].tolist()))
    every = {(mb, s) for mb in range(cfg.m) for s in range(o.S)}
    assert len(forwards) == len(backwards) == cfg.m * o.S
    assert set(forwards) == set(backwards) == every
    split = set(zip(o.mb[o.kind == I].tolist(), o.stage[o.kind == I].tolist()))
    assert sorted(zip(o.mb[o.kind == W].tolist(), o.stage[o.kind == W].tolist())) == sorted(split)
    assert (o.stage_to_rank[o.stage] == o.rank).all()
    assert (o.stage_to_rank[o.stage2[pair]] == o.rank[pair]).all()
    # Every rank holds the same number of chunks.
    assert np.bincount(o.stage_to_rank).tolist() == [o.chunks_per_rank] * cfg.P


@given(configs())
def test_timing_is_as_soon_as_possible(cfg):
    """Each op starts exactly at the latest of its rank's previous op's end and its
    dependency's end (+ comm across ranks): dependencies hold, ranks never overlap,
    and nothing waits longer than it must."""
    res = run(cfg)
    tl, o = res.timeline, res.order
    rank = o.rank
    deps = tl.deps
    ready = np.zeros(o.n_ops)
    for i in range(o.n_ops):
        for d in deps.of(i):
            ready[i] = max(ready[i], tl.end[d] + (cfg.costs.comm if rank[d] != rank[i] else 0.0))
    prev_end = np.r_[0.0, tl.end[:-1]]
    prev_end[o.rank_ptr[:-1]] = 0.0
    eps = 1e-9 * max(1.0, tl.makespan)
    assert (tl.start >= ready - eps).all()
    assert (tl.start >= prev_end - eps).all()
    assert np.allclose(tl.start, np.maximum(ready, prev_end), rtol=0, atol=eps)
    assert np.allclose(tl.end - tl.start, op_durations(o, cfg.costs))


@given(configs())
def test_busy_time_is_the_work(cfg):
    res = run(cfg)
    c = cfg.costs
    # A rank's share of the model, every micro-batch, less what each overlapped pair
    # saves (or adds) against running its forward and full backward apart.
    pairs = np.bincount(res.order.rank[res.order.kind == FB], minlength=cfg.P)
    per_chunk = 1 / res.order.chunks_per_rank
    work = cfg.m * (c.tf + c.tb + c.tw) - pairs * (c.tf + c.tb + c.tw - c.fb) * per_chunk
    assert np.allclose(res.metrics.busy, work)
    assert np.allclose(res.metrics.idle, res.metrics.makespan - work)
    b_rank, b_start, b_end = res.metrics.bubbles
    idle_sum = np.bincount(b_rank, weights=b_end - b_start, minlength=cfg.P)
    assert np.allclose(idle_sum, res.metrics.idle, atol=1e-6 * max(1, res.metrics.makespan))
    assert 0 <= res.metrics.steady_bubble_fraction <= res.metrics.bubble_fraction + 1e-12


@given(configs())
def test_simulation_equals_closed_form_where_exact(cfg):
    res = run(cfg)
    th = res.theory
    if th.bubble_exact:
        assert res.bubble_agrees, (res.metrics.bubble_fraction, float(th.bubble))
    else:
        assert th.caveat  # a reason is always given
    if th.steady_exact:
        assert res.steady_agrees, (res.metrics.steady_bubble_fraction, float(th.steady_bubble))
    # Peak in-flight depends only on the order, so its closed form holds at any costs
    # (where it is the order's exactly, not an estimate such as V-Half's and V-Min's).
    if th.peak_exact:
        assert res.metrics.peak_chunks.tolist() == th.peak_chunks.tolist()
    if th.peak_awaiting_b is not None:
        assert res.metrics.peak_awaiting_b.tolist() == th.peak_awaiting_b.tolist()
        assert res.metrics.peak_awaiting_w.tolist() == th.peak_awaiting_w.tolist()
    assert res.metrics.p2p_per_microbatch == th.p2p_per_microbatch


@given(configs(), st.sampled_from([0.5, 2.0, 3.0, 10.0]))
def test_scaling_costs_scales_makespan(cfg, k):
    a = run(cfg)
    b = run(cfg.replace(costs=cfg.costs.scaled(k)))
    assert b.metrics.makespan == pytest.approx(k * a.metrics.makespan, rel=1e-9)
    assert b.metrics.bubble_fraction == pytest.approx(a.metrics.bubble_fraction, abs=1e-9)
    assert b.metrics.steady_bubble_fraction == pytest.approx(a.metrics.steady_bubble_fraction, abs=1e-9)


@given(configs())
def test_inflight_steps_match_peaks(cfg):
    res = run(cfg)
    mt, o = res.metrics, res.order
    steps = mt.inflight
    for r in range(cfg.P):
        sel = steps.rank == r
        values, times = steps.value[sel], steps.time[sel]
        assert values.max() == mt.peak_chunks[r]
        assert values[-1] == 0 and (values >= 0).all()
        assert (np.diff(times) >= 0).all()
    assert np.allclose(mt.peak_microbatches, mt.peak_chunks / o.chunks_per_rank)
    if o.has_w:
        # awaiting B + awaiting W only = in flight, at the peak.
        assert (mt.peak_awaiting_b + mt.peak_awaiting_w == mt.peak_chunks).all()
        assert mt.awaiting_w.value.min() >= 0 and mt.awaiting_b.value.min() >= 0
    # Every chunk that enters ends: by a W where split, else by a full backward.
    assert ((o.kind == F) | (o.kind == FB)).sum() == ((o.kind == W) | (o.kind == B) | (o.kind == FB)).sum()
    # Simultaneous changes are merged: no two steps of a rank share a time.
    same = (steps.rank[1:] == steps.rank[:-1]) & (steps.time[1:] == steps.time[:-1])
    assert not same.any()
