"""Interleaved 1F1B: Megatron-core 0.19.2's order, op for op; PyTorch's below m = P.

Each rank holds V chunks (stage s on rank s mod P). The forward order of
(micro-batch, chunk) pairs is one table shared by every rank: micro-batches in
groups of G; within a group chunk 0 for each micro-batch, then chunk 1, ... The k-th
backward takes the k-th table entry with its chunk reversed (V-1-c).

Megatron-core accepts a group size G with P <= G <= m whose last group, m mod G, is
0 or at least P. Its default is G = P, which needs P to divide m; for other m
pipeviz takes the smallest G Megatron accepts, which exists for every m >= P and is
the G of PyTorch's ScheduleInterleaved1F1B wherever PyTorch accepts m
(tests/test_orders.py checks both). With V = 1 the order is 1F1B's.

Below m = P Megatron-core runs nothing; PyTorch 2.13's ScheduleInterleaved1F1B runs
one round of all m micro-batches, which is this table with G = m, and pipeviz shows
that order and says whose it is (the closed form's `source`). Its bubble is then the
fill and drain of micro-batch 0 alone: micro-batch 0 crosses all VP stages forward
and back, P(t_f+t_b+t_w) in all, each of the m-1 others adds one chunk-step, so
the makespan is (VP+m-1)(t_f+t_b+t_w)/V and the bubble (V(P-m)+m-1)/(VP+m-1), which
is (P-1)/(mV+P-1) at m = P.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np

from ..closed_form import ClosedForm, fill_drain
from ..config import Config
from ..errors import ConfigError
from ..order import B, F, Order, OrderBuilder, loop_placement
from ..schedule import Schedule
from ..text import msg
from . import one_f_one_b


def megatron_accepts(P: int, m: int, G: int) -> bool:
    return P <= G <= m and not 0 < m % G < P


def group_size(P: int, m: int, G: int | None) -> int:
    """Micro-batches per group: G as given (Megatron-core's limits apply), or the
    smallest G Megatron-core accepts (P when P divides m), or below m = P all m
    (PyTorch's one round)."""
    if G is None:
        if m < P:  # Megatron-core refuses; PyTorch runs one round of all m
            return m
        return next(g for g in range(P, m + 1) if megatron_accepts(P, m, g))
    if not P <= G <= m:
        raise ConfigError("interleaved.G_range", P=P, m=m, G=G)
    if 0 < m % G < P:
        raise ConfigError("interleaved.G_last", G=G, rest=m % G, P=P, m=m)
    return G


def check(cfg: Config) -> None:
    if cfg.V > 1:
        group_size(cfg.P, cfg.m, cfg.G)


def forward_table(m: int, V: int, G: int) -> tuple[np.ndarray, np.ndarray]:
    """(micro-batch, chunk) of the k-th forward on every rank.

    Full groups of G micro-batches take chunk 0 for each micro-batch, then chunk 1, ...
    The last group holds the rest, m - last_start micro-batches (G when G divides m).
    """
    last_start = ((m - 1) // G) * G
    k = np.arange(last_start * V)  # entries of the full groups
    group, within = np.divmod(k, G * V)
    chunk_full, mb_full = np.divmod(within, G)
    tail = m - last_start
    chunk_last, mb_last = np.divmod(np.arange(tail * V), tail)
    mb = np.concatenate([group * G + mb_full, last_start + mb_last])
    return mb, np.concatenate([chunk_full, chunk_last])


def warmup(P: int, m: int, V: int, G: int, r) -> np.ndarray:
    """Megatron: 2(P-1-r) + (V-1)G warm-up forwards, capped at all mV of them."""
    return np.minimum(2 * (P - 1 - np.asarray(r)) + (V - 1) * G, m * V)


def generate(cfg: Config) -> Order:
    P, m, V = cfg.P, cfg.m, cfg.V
    if V == 1:  # one chunk per rank: Megatron runs plain 1F1B
        return one_f_one_b.generate(cfg)
    G = group_size(P, m, cfg.G)
    order = OrderBuilder(P, m, loop_placement(P, V))
    f_mb, f_chunk = forward_table(m, V, G)
    total = m * V
    w = warmup(P, m, V, G, np.arange(P))

    # Chunk c of rank r is stage cP + r; a backward walks the chunks in reverse.
    def forward(r, k):
        return F, f_mb[k], f_chunk[k] * P + r

    def backward(r, k):
        return B, f_mb[k], (V - 1 - f_chunk[k]) * P + r

    r, k = order.steps(w)  # Step 1: w_r warm-up forwards, table[0 .. w_r)
    order.emit(r, forward(r, k))
    r, i = order.steps(total - w)  # Step 2: mV - w_r steady steps: F table[w_r + i], B table[i]
    order.emit(r, forward(r, w[r] + i), backward(r, i))
    r, j = order.steps(w)  # Step 3: w_r cool-down backwards, table[mV - w_r ..)
    order.emit(r, backward(r, total - w[r] + j))
    return order.build()


def pytorchs(P: int, m: int, V: int) -> bool:
    """The order shown is PyTorch's (one round), not Megatron-core's."""
    return V > 1 and m < P


def closed_form(cfg: Config) -> ClosedForm:
    P, m, V = cfg.P, cfg.m, cfg.V
    if V == 1:
        return one_f_one_b.closed_form(cfg)
    G = group_size(P, m, cfg.G)
    # Peak: the warm-up forwards plus the first steady one, capped at all mV chunks.
    peak = np.minimum(warmup(P, m, V, G, np.arange(P)) + 1, m * V)
    theory = fill_drain(P, m, V, cfg.costs, peak=peak)
    if not pytorchs(P, m, V):
        return theory
    # One round of m < P: micro-batch 0's fill and drain, (VP+m-1) chunk-steps.
    bubble = Fraction(V * (P - m) + m - 1, V * P + m - 1)
    return replace(theory, bubble=bubble, steady_bubble=bubble, bubble_formula="(V(P-m)+m-1)/(VP+m-1)",
                   source=msg("interleaved.pytorch", m=m, P=P))


ENTRY = Schedule(
    name="interleaved", position=30, placement="loop", fixed_V=None, ops_per_chunk=2,
    generate=generate, closed_form=closed_form, check=check, takes_G=True, least_V=2,
)
