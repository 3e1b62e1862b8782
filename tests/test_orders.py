"""Each generator emits the libraries' order, op for op (checked against per-op
reference implementations in reference_orders.py, and against the orders the
libraries themselves wrote, tests/data/orders/)."""

import gzip
import json
from functools import cache
from pathlib import Path

import pytest
import reference_orders as ref

from pipeviz import Config, ConfigError
from pipeviz.registry import SCHEDULES
from pipeviz.schedules.interleaved import group_size

ORDERS = Path(__file__).resolve().parent / "data" / "orders"  # written by PyTorch 2.13 (docs/model.md, "Reference numbers")


@cache
def reference(name: str) -> dict:
    """Orders a library wrote (tests/data/orders/make_reference.py says how): "P m V"
    -> the order's text, or {"refused": why}."""
    with gzip.open(ORDERS / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)["orders"]


def ranks(cfg, split_as="B"):
    """Each rank's ops; the references write a split schedule's input-gradient
    backward as B (the paper's name), pipeviz as I (PyTorch's)."""
    order = SCHEDULES[cfg.schedule].generate(cfg)
    return [[(split_as if op[0] == "I" else op[0], *op[1:]) for op in order.rank_ops(r)] for r in range(cfg.P)]


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
    for m in range(P, 4 * P + 1):  # below m = P Megatron-core runs nothing (PyTorch's order: below)
        G = ref.smallest_megatron_group(P, m)
        if m % P == 0:
            assert G == P  # Megatron's default
        if ref.pytorch_group_size(P, m) is not None:
            assert G == ref.pytorch_group_size(P, m)  # PyTorch's rule, where it accepts m
        assert group_size(P, m, None) == G
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


@pytest.mark.parametrize("P", range(2, 9))
def test_interleaved_orders_equal_pytorchs_own_wherever_pytorch_runs(P):
    """PyTorch 2.13's ScheduleInterleaved1F1B at every m in 1..4P and V in 2..4 it
    accepts: below m = P its one round (which Megatron-core refuses), from m = P on
    the same order as Megatron-core's."""
    orders, compared = reference("torch-Interleaved1F1B"), 0
    for m in range(1, 4 * P + 1):
        for V in range(2, 5):
            want = orders[f"{P} {m} {V}"]
            if isinstance(want, dict):  # PyTorch refuses m not divisible by its rounds; Megatron's order runs
                assert "multiple of the number of rounds" in want["refused"] and m > P
                continue
            cfg = Config("interleaved", P, m, V)
            assert SCHEDULES["interleaved"].generate(cfg).to_text() == want, (P, m, V)
            source = SCHEDULES["interleaved"].closed_form(cfg).source
            assert (source is not None and source.key == "interleaved.pytorch") == (m < P), (P, m, V)
            compared += 1
    assert compared >= 3 * (P - 1) + 3 * 3 * P // 2


def test_interleaved_below_p_says_whose_order_it_is():
    from pipeviz import run

    res = run(Config("interleaved", 4, 2, 2))
    assert res.theory.source.text() == ("PyTorch's order (ScheduleInterleaved1F1B: one round of all m = 2 "
                                        "micro-batches); Megatron-core refuses m < P = 4, and from m = 4 on "
                                        "the order is Megatron's")
    assert res.theory.bubble_formula == "(V(P-m)+m-1)/(VP+m-1)" and str(res.theory.bubble) == "5/9"
    assert res.bubble_agrees and res.theory.bubble_exact
    assert run(Config("interleaved", 4, 4, 2)).theory.source is None
    with pytest.raises(ConfigError, match="P <= G <= m"):  # a G given by hand keeps Megatron-core's limits
        group_size(4, 2, 2)


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


def test_zb_h2_warmup_and_cooldown_are_what_the_rule_does():
    """Steps 1 and 3 are closed forms of the greedy rule's first and last ops; the
    rule's own picks (step 2) must then hold exactly the ops they leave: m - w_r F's,
    every B, and the W's before the cool-down's c_r, in micro-batch order, for every
    P and m the explorer accepts."""
    import numpy as np

    from pipeviz.order import F, I, W
    from pipeviz.schedules.zb_h2 import cooldown, greedy_steady, warmup

    for P in range(1, 33):
        rank = np.arange(P)
        for m in range(1, 129):
            r, kind, mb = greedy_steady(P, m)
            w, c = warmup(P, m, rank), cooldown(P, m, rank)
            for k, first, n in [(F, w, m - w), (I, 0 * w, np.full(P, m)), (W, 0 * w, m - c)]:
                mine = kind == k
                assert np.array_equal(np.bincount(r[mine], minlength=P), n), (P, m, k)
                assert np.array_equal(mb[mine] - first[r[mine]], np.concatenate([np.arange(x) for x in n])), (P, m, k)


@pytest.mark.parametrize("P", range(1, 9))
def test_zb_v_order(P):
    for m in range(1, 4 * P + 2):
        assert ranks(Config("zb-v", P, m, 2)) == [ref.zb_v(P, m, r) for r in range(P)], (P, m)


@pytest.mark.parametrize("name,schedule", [
    ("torch-Interleaved1F1B-P4-m8-V2.txt", Config("interleaved", 4, 8, 2)),
    ("torch-ZBVZeroBubble-P4-m8-V2.txt", Config("zb-v", 4, 8, 2)),
    ("torch-DualPipeV-P4-m8-V2.txt", Config("dualpipe-v", 4, 8, 2)),
])
def test_orders_equal_pytorchs_own(name, schedule):
    """PyTorch 2.13's schedule classes wrote these orders; pipeviz writes the same."""
    text = "\n".join(line for line in (ORDERS / name).read_text().splitlines() if not line.startswith("#"))
    assert SCHEDULES[schedule.schedule].generate(schedule).to_text() == text


def test_zb_v_placement():
    order = SCHEDULES["zb-v"].generate(Config("zb-v", 4, 8, 2))
    assert order.stage_to_rank.tolist() == [0, 1, 2, 3, 3, 2, 1, 0]


def test_action_notation_round_trips_and_reads_ascii_digits_only():
    from pipeviz import OrderError
    from pipeviz.order import parse_order, parse_token

    order = SCHEDULES["zb-v"].generate(Config("zb-v", 4, 8, 2))
    again = parse_order(order.to_text(), "v")
    assert again.to_text() == order.to_text() and again.m == 8
    assert parse_token("12F345") == ("F", 345, 12) and parse_token("0F3&5B1") == ("F&B", 3, 0, 1, 5)
    # Other decimal digits are no numbers here ('٣' is 3 to Python's \d), as in URLs.
    for token in ("٣F٣", "0F²", "0F١", "EF٣", "0F3&5B١"):
        assert parse_token(token) is None, token
    # A number too long for the order's arrays is refused with a message, not an OverflowError.
    assert parse_token("0F999999999") == ("F", 999999999, 0)
    with pytest.raises(OrderError, match="'0F99999999999999999999' is not an op"):
        parse_order("0F99999999999999999999")


def test_orders_too_large_to_hold_are_refused_before_any_table_is_built():
    """A pasted order names its own m and S; a forward and a backward of every
    (mb, stage) past MAX_OPS is refused with a message, before validation builds its
    (m, S) tables (once 23 GB for '0F999999999')."""
    import tracemalloc

    from pipeviz import OrderError
    from pipeviz.order import Order, parse_order
    from pipeviz.simulate import validate

    tracemalloc.start()
    for text, fragment in [("0F999999999", "micro-batches 0..999999999 on stages 0..0"),
                           ("0F0 999999999B0", "micro-batches 0..0 on stages 0..999999999"),
                           ("0F0 0B0\n1F0 1B499999", "2,000,000 ops, more than the 1,000,000")]:
        with pytest.raises(OrderError, match=fragment):
            parse_order(text)
    order = Order.from_rank_lists(10**8, [0], [[("F", 10**8 - 1, 0)]])
    with pytest.raises(OrderError, match="micro-batches 0..99999999 on stages 0..0"):
        validate(order)
    assert tracemalloc.get_traced_memory()[1] < 50_000_000
    tracemalloc.stop()
    assert parse_order("0F0 0B0\n1F0 1B249999").m == 250_000  # 2mS = 1,000,000: not refused here


@pytest.mark.parametrize("P", range(2, 9))
def test_looped_bfs_orders_equal_pytorchs_own(P):
    """PyTorch 2.13's ScheduleLoopedBFS at every m in P..4P and V in 1..4, op for op."""
    orders = reference("torch-LoopedBFS")
    for m in range(P, 4 * P + 1):
        for V in range(1, 5):
            cfg = Config("looped-bfs", P, m, V)
            assert SCHEDULES["looped-bfs"].generate(cfg).to_text() == orders[f"{P} {m} {V}"], (P, m, V)


@pytest.mark.parametrize("name", ["v-half", "v-min"])
@pytest.mark.parametrize("P", range(1, 9))
def test_v_half_and_v_min_orders_equal_sail_sgs(name, P):
    """sail-sg's zbv_greedy.py at every m in 1..4P (its orders at unit costs), op for op:
    the building block, the squeezes and the W's placed as the reference places them."""
    orders = reference(f"sailsg-{name}")
    for m in range(1, 4 * P + 1):
        order = SCHEDULES[name].generate(Config(name, P, m, 2))
        assert order.to_text() == orders[f"{P} {m} 2"], (name, P, m)
        assert order.stage_to_rank.tolist() == [*range(P), *reversed(range(P))]
