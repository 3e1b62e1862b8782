"""Why ranks idle, and the critical path, on generated configurations."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from test_properties import configs

from pipeviz import Config, run
from pipeviz.causes import NONE, critical_path, gap_waits, path_lags


def test_default_view_waits():
    """The article's figure: rank 0 idles from 4 to 10 waiting for B(mb 0) from rank 1."""
    res = run(Config("1f1b", 4, 8))
    rank, start, end = res.metrics.bubbles
    waits = gap_waits(res.timeline, rank, end)
    first = int(np.flatnonzero(rank == 0)[0])
    assert (start[first], end[first]) == (4.0, 10.0)
    assert res.order.op(waits[first]) == ("B", 0, 1) and res.order.rank[waits[first]] == 1
    # rank 3 waits for the first forward from rank 2, and its trailing gap for the end.
    last_rank = np.flatnonzero(rank == 3)
    assert res.order.op(waits[last_rank[0]]) == ("F", 0, 2)
    assert waits[last_rank[-1]] == NONE


@given(configs())
def test_each_gap_ends_when_what_it_waits_for_allows(cfg):
    res = run(cfg)
    tl = res.timeline
    rank, start, end = res.metrics.bubbles
    waits = gap_waits(tl, rank, end)
    tol = 1e-9 * max(1.0, tl.makespan)
    for g, w in enumerate(waits.tolist()):
        if w == NONE:
            assert abs(end[g] - tl.makespan) <= tol  # only the wait for the iteration's end
            continue
        if res.order.rank[w] == rank[g]:  # its own next op: it starts as the gap ends
            assert abs(tl.start[w] - end[g]) <= tol
        else:  # a dependency on another rank: it ends (plus comm) as the gap ends
            assert abs(tl.end[w] + cfg.costs.comm - end[g]) <= tol


@given(configs())
def test_critical_path_is_tight_and_as_long_as_the_makespan(cfg):
    res = run(cfg)
    tl = res.timeline
    path = critical_path(tl)
    assert tl.start[path[0]] == 0 and tl.end[path[-1]] == tl.makespan
    lags = path_lags(tl, path)
    assert np.isin(np.round(lags, 9), np.round([0.0, cfg.costs.comm], 9)).all()
    assert np.isclose(tl.duration[path].sum() + lags.sum(), tl.makespan, rtol=1e-12, atol=1e-9)
    # Each link is the rank's previous op or one of the op's dependencies.
    for a, b in zip(path[:-1].tolist(), path[1:].tolist()):
        assert a in tl.deps.of(b).tolist() or (a == b - 1 and res.order.rank[a] == res.order.rank[b])
