"""Activation balancing (BPipe, docs/model.md "Activation balancing (BPipe)"): the reference case
and invariants over generated configurations, against a per-chunk reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pipeviz import NAMES, Config, ConfigError, Costs, run
from pipeviz.balance import value_at
from pipeviz.order import FB, B, F, W


def test_spec_reference_p8_1f1b():
    res = run(Config("1f1b", 8, 8, balance="bpipe"))
    bal = res.balance
    assert res.metrics.peak_chunks.tolist() == [8, 7, 6, 5, 4, 3, 2, 1]
    assert bal.peak_chunks.tolist() == [5, 5, 5, 5, 4, 4, 4, 4]
    assert bal.peak_microbatches.tolist() == [5, 5, 5, 5, 4, 4, 4, 4]
    assert bal.transfers == 18  # 3 chunks of each of ranks 0..2 go out and back
    assert bal.pairs == [(0, 7, 5), (1, 6, 5), (2, 5, 5), (3, 4, 5)]


@pytest.mark.parametrize("P", [2, 3, 4, 5, 8, 16])
def test_1f1b_target_is_half_the_staircase(P):
    """For 1F1B a pair's target is ceil((P+1)/2) micro-batches; the front ranks keep no more."""
    bal = run(Config("1f1b", P, 2 * P, balance="bpipe")).balance
    T = -(-(P + 1) // 2)
    assert all(t == T for _, _, t in bal.pairs)
    assert bal.peak_chunks[: P // 2].max() <= T


def test_zb_v_is_left_alone():
    res = run(Config("zb-v", 4, 8, 2, balance="bpipe"))
    assert res.balance.pairs == [] and res.balance.transfers == 0
    assert res.balance.peak_chunks.tolist() == res.metrics.peak_chunks.tolist()


def test_interleaved_counts_chunks_and_reports_micro_batches():
    res = run(Config("interleaved", 8, 16, 2, balance="bpipe"))
    bal = res.balance
    assert bal.transfers == bal.transfer_chunks / 2
    assert np.allclose(bal.peak_microbatches, bal.peak_chunks / 2)


def test_bad_mode():
    with pytest.raises(ConfigError) as e:
        Config(balance="zero")
    assert e.value.msg.key == "balance.mode" and "bpipe" in str(e.value)


cost = st.sampled_from([0.25, 0.5, 1.0, 2.0]) | st.floats(0.05, 8.0, allow_nan=False)


@st.composite
def configs(draw):
    name = draw(st.sampled_from(NAMES))
    costs = Costs(draw(cost), draw(cost), draw(st.just(0.0) | cost),
                  draw(st.just(0.0) | st.floats(0.001, 2.0, allow_nan=False)))
    cfg = Config(name, P=draw(st.integers(1, 12)), m=draw(st.integers(1, 40)), V=draw(st.integers(1, 4)),
                 costs=costs, balance="bpipe")
    try:
        run(cfg)
    except ConfigError as e:
        # A schedule's own refusal of (P, m, V), never the encoder's or the balancing's.
        assert not e.msg.key.startswith(("encoder.", "balance.", "cost.", "config.")), e
        assume(False)
    return cfg


def series(steps, r):
    sel = steps.rank == r
    return steps.time[sel], steps.value[sel]


@given(configs())
def test_pairs_hold_what_is_in_flight_and_fronts_keep_their_target(cfg):
    res = run(cfg)
    bal, mt = res.balance, res.metrics
    P = cfg.P
    for r in range(P // 2):
        p = P - 1 - r
        tf, vf = series(mt.inflight, r)
        tp, vp = series(mt.inflight, p)
        af, rf = series(bal.resident, r)
        ap, rp = series(bal.resident, p)
        at = np.union1d(np.union1d(tf, tp), np.union1d(af, ap))
        total_before = value_at(tf, vf, at) + value_at(tp, vp, at)
        total_after = value_at(af, rf, at) + value_at(ap, rp, at)
        assert (total_before == total_after).all()  # every instant, nothing lost or doubled
        if mt.peak_chunks[r] > mt.peak_chunks[p]:
            T = -(-(int(mt.peak_chunks[r]) + int(mt.peak_chunks[p])) // 2)
            assert (r, p, T) in bal.pairs
            assert rf.max() <= T and bal.peak_chunks[r] == min(T, mt.peak_chunks[r])
        else:
            assert (rf == vf).all() and (rp == vp).all()
    if P % 2:
        mid = P // 2
        assert bal.peak_chunks[mid] == mt.peak_chunks[mid]
    assert (bal.resident.value >= 0).all()


@given(configs())
def test_timeline_does_not_change(cfg):
    a, b = run(cfg), run(cfg.replace(balance=None))
    assert b.balance is None
    assert np.array_equal(a.timeline.start, b.timeline.start) and np.array_equal(a.timeline.end, b.timeline.end)
    assert np.array_equal(a.metrics.peak_chunks, b.metrics.peak_chunks)


def reference_transfers(res) -> int:
    """Follow every chunk of every front rank, event by event, and count those that are
    ever among the newest beyond the target (2 transfers each)."""
    o, tl = res.order, res.timeline
    moved = 0
    for front, _, T in res.balance.pairs:
        held: list[tuple[float, int]] = []  # (forward start, op) of chunks in flight, oldest first
        ever = set()
        for i in range(int(o.rank_ptr[front]), int(o.rank_ptr[front + 1])):
            k = int(o.kind[i])
            if k in (F, FB):
                key = (int(o.mb[i]), int(o.stage[i]))
                held.append((tl.start[i], key))
                ever.update(c for _, c in held[T:])
            if k in (B, W, FB):
                key = (int(o.mb2[i]), int(o.stage2[i])) if k == FB else (int(o.mb[i]), int(o.stage[i]))
                held = [h for h in held if h[1] != key]
                ever.update(c for _, c in held[T:])
        moved += len(ever)
    return 2 * moved


@given(configs())
def test_transfers_follow_each_chunk(cfg):
    res = run(cfg)
    bal = res.balance
    assert bal.transfer_chunks == reference_transfers(res)
    assert bal.transfers == bal.transfer_chunks / res.order.chunks_per_rank
