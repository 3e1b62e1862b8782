"""docs/model.md's reference numbers, exactly."""

from fractions import Fraction

import pytest

from pipeviz import Config, Costs, run


def bubble(res):
    return Fraction(res.metrics.bubble_fraction).limit_denominator(10_000)


@pytest.mark.parametrize("schedule", ["1f1b", "gpipe"])
def test_1f1b_and_gpipe_article_defaults(schedule):
    res = run(Config(schedule, P=4, m=8))
    assert res.metrics.makespan == 33
    assert bubble(res) == Fraction(3, 11)
    assert res.theory.bubble == Fraction(3, 11)
    assert res.theory.bubble_formula == "(P-1)/(m+P-1)"


@pytest.mark.parametrize("schedule", ["1f1b", "gpipe"])
@pytest.mark.parametrize("P", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("m", [1, 2, 7, 16])
def test_fill_drain_bubble_any_P_m(schedule, P, m):
    res = run(Config(schedule, P=P, m=m))
    assert res.metrics.bubble_fraction == pytest.approx((P - 1) / (m + P - 1), abs=1e-12)
    assert res.metrics.makespan == pytest.approx(3 * (m + P - 1))


def test_1f1b_peak_inflight():
    assert run(Config("1f1b", P=4, m=3)).metrics.peak_chunks.tolist() == [3, 3, 2, 1]
    assert run(Config("1f1b", P=4, m=8)).metrics.peak_chunks.tolist() == [4, 3, 2, 1]


def test_gpipe_peak_is_m_everywhere():
    assert run(Config("gpipe", P=4, m=8)).metrics.peak_chunks.tolist() == [8] * 4


def test_interleaved_p4_v2_m8():
    res = run(Config("interleaved", P=4, m=8, V=2))
    assert res.metrics.makespan == 28.5
    assert bubble(res) == Fraction(3, 19)
    assert res.theory.bubble == Fraction(3, 19)


@pytest.mark.parametrize("P,V", [(2, 2), (4, 2), (4, 3), (8, 2), (3, 4)])
@pytest.mark.parametrize("k", [1, 2, 3])  # m = kP, m = P included
def test_interleaved_bubble_formula(P, V, k):
    m = k * P
    res = run(Config("interleaved", P=P, m=m, V=V))
    assert res.metrics.bubble_fraction == pytest.approx((P - 1) / (m * V + P - 1), abs=1e-12)


def test_interleaved_peak_p8_v2():
    res = run(Config("interleaved", P=8, m=16, V=2))
    assert res.metrics.peak_chunks.tolist() == [23, 21, 19, 17, 15, 13, 11, 9]
    assert res.metrics.peak_microbatches[0] == 11.5
    assert run(Config("interleaved", P=8, m=8, V=2)).metrics.peak_chunks[0] == 16


def test_zb_h1_p4_m8():
    res = run(Config("zb-h1", P=4, m=8))
    assert res.metrics.makespan == 27
    assert bubble(res) == Fraction(1, 9)
    # A third of 1F1B's idle time at default costs: (P-1)(t_f + t_b - t_w) = 3 per rank.
    assert res.metrics.idle.tolist() == [3, 3, 3, 3]
    assert run(Config("1f1b", P=4, m=8)).metrics.idle.tolist() == [9, 9, 9, 9]


def test_zb_h1_memory_split():
    res = run(Config("zb-h1", P=4, m=8))
    assert res.metrics.peak_chunks[0] == 4  # rank 0: P, as 1F1B
    assert res.metrics.peak_awaiting_b.tolist() == [4, 3, 2, 1]  # P - r
    assert res.metrics.peak_awaiting_w.tolist() == [0, 1, 2, 3]  # r


@pytest.mark.parametrize("P", range(1, 9))
def test_zb_h1_makespan_3m_plus_p_minus_1(P):
    for m in range(P, 4 * P + 1):
        assert run(Config("zb-h1", P=P, m=m)).metrics.makespan == 3 * m + P - 1, (P, m)


@pytest.mark.parametrize("P", range(2, 9))
def test_zb_h2_zero_steady_bubble(P):
    for m in range(2 * P - 1, 4 * P + 1):
        res = run(Config("zb-h2", P=P, m=m))
        assert res.metrics.steady_bubble_fraction == 0, (P, m)
        assert res.metrics.bubble_fraction == pytest.approx((P - 1) / (3 * m + P - 1), abs=1e-12)
        assert res.metrics.peak_chunks[0] == 2 * P - 1  # counted until W


@pytest.mark.parametrize("P", range(2, 9))
def test_zb_h2_small_m_leaves_a_steady_bubble(P):
    for m in range(1, 2 * P - 1):
        assert run(Config("zb-h2", P=P, m=m)).metrics.steady_bubble_fraction > 0, (P, m)


def test_zb_v_reaches_lower_bound():
    res = run(Config("zb-v", P=4, m=8, V=2))
    assert res.metrics.makespan == 25.5
    assert bubble(res) == Fraction(1, 17)
    # Balanced memory: P micro-batches (2P chunks) on every rank.
    assert res.metrics.peak_microbatches.tolist() == [4, 4, 4, 4]


def test_lower_bound_holds_for_every_schedule():
    """No schedule beats rank P-1's wait for the first forward (P=4, m=8, defaults)."""
    for name, V in [("gpipe", 1), ("1f1b", 1), ("interleaved", 2), ("interleaved", 4),
                    ("zb-h1", 1), ("zb-h2", 1), ("zb-v", 2)]:
        assert run(Config(name, P=4, m=8, V=V)).metrics.makespan >= 25.5


def test_p2p_per_microbatch():
    # The article's count: 2 per micro-batch, 2V interleaved (a boundary crossed per chunk, each way).
    assert run(Config("1f1b", P=4, m=8)).metrics.p2p_article == 2
    assert run(Config("gpipe", P=4, m=8)).metrics.p2p_article == 2
    assert run(Config("zb-h1", P=4, m=8)).metrics.p2p_article == 2
    assert run(Config("interleaved", P=4, m=8, V=3)).metrics.p2p_article == 6
    # Total sends between ranks: 2(S-1) minus boundaries inside one rank.
    assert run(Config("1f1b", P=4, m=8)).metrics.p2p_per_microbatch == 6
    assert run(Config("interleaved", P=4, m=8, V=2)).metrics.p2p_per_microbatch == 14
    assert run(Config("zb-v", P=4, m=8, V=2)).metrics.p2p_per_microbatch == 12
    assert run(Config("1f1b", P=1, m=8)).metrics.p2p_per_microbatch == 0
    assert run(Config("interleaved", P=1, m=4, V=3)).metrics.p2p_per_microbatch == 0


def test_comm_makes_simulation_differ_and_says_why():
    res = run(Config("1f1b", P=4, m=8, costs=Costs(comm=0.5)))
    assert not res.bubble_agrees
    assert res.theory.caveat.key == "cf.comm" and "comm = 0.5" in res.theory.caveat.text()
    assert res.metrics.makespan > 33 and res.metrics.busy.tolist() == [24] * 4
    # One micro-batch crosses P-1 boundaries forward and back: 2(P-1) comm on its path.
    assert run(Config("1f1b", P=2, m=1, costs=Costs(comm=0.5))).metrics.makespan == 6 + 2 * 0.5


def test_v_half_and_v_min_peaks_p8_m16():
    """Peaks in flight (chunks, counted until W) at P=8, m=16 (docs/model.md's reference numbers)."""
    assert run(Config("v-half", P=8, m=16, V=2)).metrics.peak_chunks.tolist() == [10] * 8
    assert run(Config("v-min", P=8, m=16, V=2)).metrics.peak_chunks.tolist() == [7] + [8] * 7


@pytest.mark.parametrize("name,peak", [("v-half", lambda P: (P + 2) // 2), ("v-min", lambda P: (P + 4) // 3)])
@pytest.mark.parametrize("P", range(2, 9))
def test_v_half_and_v_min_tightest_rank_holds_the_authors_peak(name, peak, P):
    """The authors' peaks, (P+2)//2 and (P+4)//3 micro-batches (half and a third of
    1F1B's P), are the tightest rank's for every m in P..4P; the closed form says it is
    the authors' estimate, not every rank's (V-Min's rank 0 holds one chunk less)."""
    for m in range(P, 4 * P + 1):
        res = run(Config(name, P=P, m=m, V=2))
        assert res.metrics.peak_chunks.max() == 2 * peak(P) == res.theory.peak_chunks.max(), (P, m)
        assert not res.theory.bubble_exact and not res.theory.peak_exact
        assert res.theory.caveat.key == f"{name}.estimate"


def test_looped_bfs_p4_v2_m8():
    res = run(Config("looped-bfs", P=4, m=8, V=2))
    assert res.metrics.makespan == 28.5  # the fill and drain of interleaved 1F1B's
    assert bubble(res) == Fraction(3, 19) == res.theory.bubble
    assert res.metrics.peak_chunks.tolist() == [16] * 4  # every forward before any backward: m micro-batches
