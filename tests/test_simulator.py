"""The simulator on hand-made orders, and the edge cases of every schedule."""

import re

import pytest

from pipeviz import NAMES, Config, ConfigError, Costs, DeadlockError, OrderError, run
from pipeviz.config import MAX_OPS
from pipeviz.order import Order
from pipeviz.registry import SCHEDULES
from pipeviz.simulate import simulate, validate


def test_deadlock_is_reported_with_the_stuck_ops():
    # Rank 0 wants B(0) before it has sent F(1); rank 1 runs F(1) before B(0), so
    # neither can move once rank 1 needs F(1).
    order = Order.from_rank_lists(
        m=2,
        stage_to_rank=[0, 1],
        ranks=[
            [("F", 0, 0), ("B", 0, 0), ("F", 1, 0), ("B", 1, 0)],
            [("F", 0, 1), ("F", 1, 1), ("B", 0, 1), ("B", 1, 1)],
        ],
    )
    with pytest.raises(DeadlockError) as e:
        simulate(order, Costs())
    msg = str(e.value)
    assert "rank 0 is stuck at B(mb 0, stage 0), which waits for B(mb 0, stage 1) on rank 1" in msg
    assert "rank 1 is stuck at F(mb 1, stage 1), which waits for F(mb 1, stage 0) on rank 0" in msg
    assert [b[0] for b in e.value.blocked] == [0, 1]
    assert "死锁" in e.value.text("zh")


def test_deadlock_on_own_rank_order():
    order = Order.from_rank_lists(m=1, stage_to_rank=[0], ranks=[[("B", 0, 0), ("F", 0, 0)]])
    with pytest.raises(DeadlockError, match="B\\(mb 0, stage 0\\), which waits for F\\(mb 0, stage 0\\) on rank 0"):
        simulate(order, Costs())


def test_missing_and_repeated_ops_are_refused():
    missing = Order.from_rank_lists(m=2, stage_to_rank=[0], ranks=[[("F", 0, 0), ("B", 0, 0), ("F", 1, 0)]])
    with pytest.raises(OrderError, match=r"the backward of mb 1 on stage 0 is missing: write 0B1"):
        simulate(missing, Costs())
    twice = Order.from_rank_lists(m=1, stage_to_rank=[0], ranks=[[("F", 0, 0), ("F", 0, 0), ("B", 0, 0)]])
    with pytest.raises(OrderError, match="0F0 appears 2 times"):
        simulate(twice, Costs())


def test_stage_on_wrong_rank_is_refused():
    order = Order.from_rank_lists(
        m=1, stage_to_rank=[0, 1], ranks=[[("F", 0, 0), ("F", 0, 1), ("B", 0, 1), ("B", 0, 0)], []]
    )
    with pytest.raises(OrderError, match="stage 1 lives on rank 1"):
        simulate(order, Costs())



@pytest.mark.parametrize("home", [-1, 2])
def test_placement_onto_a_missing_rank_is_refused(home):
    # Two ranks; stage 1 is placed on a rank that does not exist. The check runs in
    # the compiled pass, before any op is indexed by its rank.
    good = Order.from_rank_lists(m=1, stage_to_rank=[0, 1], ranks=[[("F", 0, 0), ("B", 0, 0)], [("F", 0, 1), ("B", 0, 1)]])
    bad = Order(P=2, m=1, stage_to_rank=good.stage_to_rank.copy(), kind=good.kind, mb=good.mb, stage=good.stage,
                mb2=good.mb2, stage2=good.stage2, rank_ptr=good.rank_ptr)
    bad.stage_to_rank[1] = home
    for check in (simulate, lambda o, c: validate(o)):
        with pytest.raises(OrderError, match=r"stage_to_rank must map each stage to a rank in 0\.\.1"):
            check(bad, Costs())

def test_w_after_a_full_backward_is_refused():
    order = Order.from_rank_lists(m=1, stage_to_rank=[0], ranks=[[("F", 0, 0), ("B", 0, 0), ("W", 0, 0)]])
    with pytest.raises(OrderError, match="0W0 has no 0I0 before it"):
        simulate(order, Costs())
    split = Order.from_rank_lists(m=1, stage_to_rank=[0], ranks=[[("F", 0, 0), ("I", 0, 0)]])
    with pytest.raises(OrderError, match="0W0 is missing: 0I0 splits the backward"):
        simulate(split, Costs())


def test_full_and_split_backwards_mix_in_one_order():
    """DualPipe-V mixes them: whether a backward is split is per op."""
    order = Order.from_rank_lists(m=2, stage_to_rank=[0], ranks=[[("F", 0, 0), ("B", 0, 0), ("F", 1, 0),
                                                                   ("I", 1, 0), ("W", 1, 0)]])
    tl = simulate(order, Costs())
    assert tl.end.tolist() == [1, 3, 4, 5, 6]


@pytest.mark.parametrize("name", NAMES)
def test_single_rank_has_no_bubble(name):
    spec = SCHEDULES[name]
    res = run(Config(name, P=1, m=5, V=spec.fixed_V or 3))
    assert res.metrics.bubble_fraction == 0
    assert res.metrics.makespan == pytest.approx(5 * 3)
    assert res.metrics.bubbles[0].size == 0
    assert res.bubble_agrees


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("m", [1, 2, 3])
def test_few_microbatches(name, m):
    """m = 1 and m < P run and are measured (no closed form is promised there for ZB)."""
    spec = SCHEDULES[name]
    cfg = Config(name, P=4, m=m, V=spec.fixed_V or 1)
    if name == "dualpipe-v":  # DeepSeek's rule: m >= 2P, said with the m that would do
        with pytest.raises(ConfigError, match="use m >= 8"):
            run(cfg)
        return
    res = run(cfg)
    assert res.metrics.makespan > 0
    assert 0 < res.metrics.bubble_fraction < 1
    assert res.peak_agrees or not res.theory.peak_exact  # V-Half's and V-Min's peaks are the authors' estimates


def test_m1_1f1b_is_one_round_trip():
    res = run(Config("1f1b", P=4, m=1))
    assert res.metrics.makespan == 4 * 1 + 4 * 2


def test_too_large_is_refused_with_a_valid_suggestion():
    with pytest.raises(ConfigError, match=f"more than the {MAX_OPS:,}") as e:
        run(Config("interleaved", P=64, m=2048, V=8))
    assert "use m <=" in str(e.value)


@pytest.mark.parametrize("cfg,fragment", [
    (Config("interleaved", P=4, m=3, V=2, G=3), "P <= G <= m"),
    (Config("1f1b", V=2), "V must be 1"),
    (Config("gpipe", V=3), "V must be 1"),
    (Config("zb-v", V=1), "V must be 2"),
    (Config("zb-h1", G=4), "only applies to interleaved"),
    (Config("nope"), "choose one of gpipe, 1f1b"),
])
def test_invalid_combinations_say_what_is_valid(cfg, fragment):
    with pytest.raises(ConfigError, match=fragment):
        run(cfg)


@pytest.mark.parametrize("kwargs,fragment", [
    (dict(P=0), "P must be at least 1"),
    (dict(m=-3), "m must be at least 1"),
    (dict(V=1.5), "V must be a whole number"),
])
def test_bad_numbers(kwargs, fragment):
    with pytest.raises(ConfigError, match=fragment):
        Config("1f1b", **kwargs)


@pytest.mark.parametrize("kwargs,fragment", [
    (dict(tf=0), "tf must be between 1e-06 and 1e+06, got 0"),
    (dict(tw=-1), "tw must be 0 or between 1e-06 and 1e+06, got -1"),
    (dict(comm=float("nan")), "comm must be a number between"),
    (dict(tf=1e308), "tf must be between"),
    (dict(tb=5e-324), "tb must be between"),
])
def test_bad_costs(kwargs, fragment):
    with pytest.raises(ConfigError, match=re.escape(fragment)):
        Costs(**kwargs)
