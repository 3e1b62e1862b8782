"""Synthetic traces written from pipeviz's own timelines (every schedule, P 1..5, any
costs) read back to the same step: the same order, the same times, the same numbers;
at the measured means the model is the timeline itself, so there is no gap and no gap
line; with comm the gap is exactly what comm adds. Files in any order, ranks from
distributedInfo or given, clocks shifted per rank and set right with offsets."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from tracegen import synthetic, write

from pipeviz import NAMES, Config, ConfigError, Costs, run
from pipeviz.errors import TraceError
from pipeviz.trace import read_traces, report, what_if

COST = st.sampled_from([0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 0.7, 1.3])


@st.composite
def schedules(draw, comm=False):
    name = draw(st.sampled_from(NAMES))
    P = draw(st.integers(1, 5))
    m = draw(st.integers(1, 10))
    V = draw(st.integers(1, 3)) if name == "interleaved" else None
    tf, tb, tw = draw(COST), draw(COST), draw(COST)
    c = draw(st.sampled_from([0.1, 0.5, 1.0])) if comm else 0.0
    tfb = draw(st.sampled_from([None, 2.0, 4.0])) if name == "dualpipe-v" else None
    if V is None:
        V = 2 if name in ("zb-v", "dualpipe-v") else 1
    try:
        return run(Config(name, P, m, V, Costs(tf, tb, tw, c, tfb)))
    except ConfigError:
        assume(False)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(res=schedules(), seed=st.integers(0, 2**32 - 1), gz=st.booleans())
def test_a_timeline_written_as_traces_reads_back_to_the_same_step(res, seed, gz, tmp_path_factory):
    rnd = random.Random(seed)
    o, tl, mt = res.order, res.timeline, res.metrics
    base = rnd.uniform(0, 1e12)
    traces = synthetic(o, tl.start, tl.end, base_us=base)
    paths = write(traces, tmp_path_factory.mktemp("t"), gz=gz)
    shuffled = paths[:]
    rnd.shuffle(shuffled)
    r = read_traces([str(p) for p in shuffled])
    assert r.order.to_text() == o.to_text()
    assert r.placement == res.schedule.placement or o.chunks_per_rank == 1 or o.P == 1
    # Each time went through microseconds at `base`: a few units in its last place.
    atol = 4 * float(np.spacing(base + 1000.0 * mt.makespan)) / 1000.0
    assert np.allclose(r.start, tl.start, rtol=0, atol=atol) and np.allclose(r.end, tl.end, rtol=0, atol=atol)
    assert r.metrics.makespan == pytest.approx(mt.makespan, abs=atol)
    assert r.metrics.bubble_fraction == pytest.approx(mt.bubble_fraction, abs=1e-6)
    assert r.metrics.peak_chunks.tolist() == mt.peak_chunks.tolist()
    rep = report(r)
    # Each kind's mean is its op's cost, so the model of the order is the timeline
    # itself (up to the rounding, summed along the longest chain of ops).
    chain = atol * (o.n_ops + 1)
    assert np.allclose(rep.simulated.start, tl.start, rtol=0, atol=chain) and abs(rep.gap) <= chain
    assert rep.gaps == ()
    rows = {row.schedule: row for row in what_if(rep).rows}
    assert rows[res.config.schedule].same_order or res.config.schedule == "interleaved" and res.config.V == 1


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(res=schedules(comm=True), seed=st.integers(0, 2**32 - 1))
def test_comm_is_the_gap_the_model_does_not_have(res, seed, tmp_path_factory):
    """A step timed with comm, read back: the model (comm 0) is the same order
    without it, and the gap is the difference, to the microsecond's rounding."""
    o, tl = res.order, res.timeline
    paths = write(synthetic(o, tl.start, tl.end), tmp_path_factory.mktemp("c"))
    r = read_traces([str(p) for p in paths])
    rep = report(r)
    no_comm = run(res.config.replace(costs=Costs(res.config.costs.tf, res.config.costs.tb, res.config.costs.tw, 0.0,
                                                 res.config.costs.tfb)))
    assert rep.simulated_metrics.makespan == pytest.approx(no_comm.metrics.makespan, abs=1e-6)
    assert rep.gap == pytest.approx(res.metrics.makespan - no_comm.metrics.makespan, abs=1e-6)
    assert all(g.cause == "none" for g in rep.gaps)  # no action recorded in the waits


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(res=schedules(), seed=st.integers(0, 2**32 - 1))
# Found by the search: ops of 83.33 us back to back on a clock 1000 ms ahead, set right,
# came out 1e-10 us apart the wrong way and were refused as overlapping.
@example(res=run(Config("interleaved", 1, 1, 3, Costs(0.25, 0.25, 0.25, 0.0))), seed=0)
def test_clocks_of_several_hosts_set_right_with_offsets(res, seed, tmp_path_factory):
    rnd = random.Random(seed)
    o, tl = res.order, res.timeline
    traces = synthetic(o, tl.start, tl.end)
    shift = [rnd.choice([0.0, 0.25, -3.5, 1000.0]) for _ in range(o.P)]  # ms each host's clock is ahead
    for t, d in zip(traces, shift):
        for e in t["traceEvents"]:
            if "ts" in e:
                e["ts"] += d * 1000.0
    for t in traces:
        del t["distributedInfo"]
    paths = write(traces, tmp_path_factory.mktemp("o"))
    order = list(range(o.P))
    rnd.shuffle(order)  # files in any order, ranks given by hand
    files = [str(paths[r]) for r in order]
    r = read_traces(files, ranks=order, offsets_ms=[-d for d in shift])
    assert r.order.to_text() == o.to_text()
    assert np.allclose(r.start, tl.start, atol=1e-6) and np.allclose(r.end, tl.end, atol=1e-6)
    assert r.offsets_ms == tuple(-d for d in shift)


@pytest.mark.parametrize("early_us, refused", [(0.0, False), (0.0009, False), (0.002, True), (5.0, True)])
def test_an_op_overlaps_the_last_only_beyond_the_traces_nanosecond(early_us, refused, tmp_path):
    """Two ops on one rank back to back, the second starting `early_us` before the first
    ended: within a nanosecond (the format's resolution, where a shifted clock's rounding
    lies) they abut; beyond it they overlap, and the reader says which two."""
    res = run(Config("1f1b", 1, 2, 1, Costs(1.0, 1.0, 1.0, 0.0)))
    traces = synthetic(res.order, res.timeline.start, res.timeline.end, base_us=1e12)
    ops = [e for e in traces[0]["traceEvents"] if e.get("name", "").startswith("PP:")]
    ops[1]["ts"] -= early_us
    paths = write(traces, tmp_path)
    if refused:
        with pytest.raises(TraceError, match=f"{ops[0]['name']} and {ops[1]['name']} overlap in time"):
            read_traces([str(p) for p in paths])
    else:
        assert read_traces([str(p) for p in paths]).order.to_text() == res.order.to_text()
