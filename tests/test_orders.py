"""Each generator emits the libraries' order, op for op (checked against per-op
reference implementations in reference_orders.py)."""

import pytest
import reference_orders as ref

from pipeviz import Config, ConfigError
from pipeviz.registry import SCHEDULES
from pipeviz.schedules.interleaved import group_size


def ranks(cfg):
    order = SCHEDULES[cfg.schedule].generate(cfg)
    return [order.rank_ops(r) for r in range(cfg.P)]


@pytest.mark.parametrize("P", range(1, 9))
def test_1f1b_order(P):
    for m in range(1, 3 * P + 2):
        assert ranks(Config("1f1b", P, m)) == [ref.one_f_one_b(P, m, r) for r in range(P)]


@pytest.mark.parametrize("P", range(1, 9))
def test_gpipe_order(P):
    for m in (1, P, 2 * P + 1):
        got = ranks(Config("gpipe", P, m))
        assert got == [[("F", i, r) for i in range(m)] + [("B", i, r) for i in range(m)] for r in range(P)]


@pytest.mark.parametrize("P", range(1, 7))
@pytest.mark.parametrize("V", range(2, 5))
def test_interleaved_order_is_megatrons(P, V):
    for m in range(1, 4 * P + 1):
        G = ref.pytorch_group_size(P, m)
        if G is None:
            with pytest.raises(ConfigError):
                ranks(Config("interleaved", P, m, V))
            continue
        if m % P == 0:
            assert G == P
        assert ranks(Config("interleaved", P, m, V)) == [ref.megatron_interleaved(P, m, V, G, r) for r in range(P)]


def test_interleaved_explicit_group_size():
    P, m, V = 4, 12, 2
    for G in (4, 6, 12):  # divisors of m, and Megatron's limits P <= G <= m
        assert ranks(Config("interleaved", P, m, V, G=G)) == [ref.megatron_interleaved(P, m, V, G, r) for r in range(P)]
    # A last group of 12 mod 8 = 4 >= P micro-batches is allowed.
    assert ranks(Config("interleaved", P, m, V, G=8)) == [ref.megatron_interleaved(P, m, V, 8, r) for r in range(P)]


@pytest.mark.parametrize("P,m,G,fragment", [
    (4, 12, 3, "P <= G <= m"),
    (4, 12, 13, "P <= G <= m"),
    (4, 13, 5, "last group of 3"),
])
def test_interleaved_rejects_what_megatron_rejects(P, m, G, fragment):
    with pytest.raises(ConfigError, match=fragment):
        group_size(P, m, G)


def test_interleaved_pytorch_rule_message_names_nearest_valid_m():
    with pytest.raises(ConfigError, match="8 or 10"):
        group_size(4, 9, None)


def test_interleaved_v1_is_1f1b():
    for P, m in [(1, 1), (3, 2), (4, 8), (5, 7)]:
        assert ranks(Config("interleaved", P, m, 1)) == ranks(Config("1f1b", P, m, 1))


@pytest.mark.parametrize("P", range(1, 9))
def test_zb_h1_order(P):
    for m in range(1, 3 * P + 2):
        assert ranks(Config("zb-h1", P, m)) == [ref.zb_h1(P, m, r) for r in range(P)]


@pytest.mark.parametrize("P", range(1, 9))
def test_zb_h2_order_is_the_greedy_rule(P):
    for m in range(1, 4 * P + 2):
        assert ranks(Config("zb-h2", P, m)) == ref.zb_h2_greedy(P, m), (P, m)


@pytest.mark.parametrize("P", range(1, 9))
def test_zb_v_order(P):
    for m in range(1, 4 * P + 2):
        assert ranks(Config("zb-v", P, m, 2)) == [ref.zb_v(P, m, r) for r in range(P)], (P, m)


def test_zb_v_placement():
    order = SCHEDULES["zb-v"].generate(Config("zb-v", 4, 8, 2))
    assert order.stage_to_rank.tolist() == [0, 1, 2, 3, 3, 2, 1, 0]
