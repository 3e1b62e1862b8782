"""ZB-V (Qi et al., ICLR 2024): two chunks per rank placed in a V.

Rank r holds stage r (chunk 0, on the way down) and stage 2P-1-r (chunk 1, on the way
back), so rank 0 runs both the first and the last stage and the backward starts where
the forward began. The warm-up follows the order PyTorch's ScheduleZBVZeroBubble uses,
which reaches the one-iteration lower bound at equal costs.

Rank r runs seven steps (chunk 0 is "0", chunk 1 is "1"; B is the input gradient):

  Step 1: nF0       2(P-r)-1   forwards of chunk 0: the way down
  Step 2: nF1F0     r          pairs (F1, F0): the first micro-batches turn at the bottom
  Step 3: nF1B1W1   P-r        triples on the way back up
  Step 4: steady    n-P        steps of (F0, B0, W0, F1, B1, W1); the last P-r-1 have no F0
  Step 5: nB0B1     r          pairs
  Step 6: nB0W0     P-r        pairs
  Step 7: nW        2r         the W's left: r of chunk 1, then r of chunk 0

The phases are written for n = max(m, 2P-1) micro-batches (the warm-up needs 2P-1
to fill the V); micro-batches past m are then dropped, which removes whole
micro-batches and so keeps every dependency of the ones left.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..closed_form import ClosedForm, cost_fractions, idle_fraction, uniform_caveat
from ..config import Config
from ..order import F, I, Order, OrderBuilder, W, v_placement
from ..schedule import Schedule
from ..text import msg


def generate(cfg: Config) -> Order:
    P, m = cfg.P, cfg.m
    n = max(m, 2 * P - 1)  # micro-batches the phases are written for (padding past m)
    order = OrderBuilder(P, m, v_placement(P))
    rank = np.arange(P)
    s0, s1 = rank, 2 * P - 1 - rank  # chunk 0 and chunk 1 of rank r
    step_1 = 2 * (P - rank) - 1
    step_2 = rank
    step_3 = P - rank
    step_4 = np.full(P, n - P)
    step_4_f0 = n - (2 * P - 1 - rank)  # of which steps that still have a chunk-0 forward
    step_5 = rank
    step_6 = P - rank
    step_7 = rank

    r, i = order.steps(step_1)  # Step 1: 2(P-r)-1 forwards of chunk 0: the way down
    order.emit(r, (F, i, s0[r]))
    r, i = order.steps(step_2)  # Step 2: r pairs (F1, F0): the first micro-batches turn at the bottom
    order.emit(r, (F, i, s1[r]), (F, step_1[r] + i, s0[r]))
    r, i = order.steps(step_3)  # Step 3: P-r triples (F1, B1, W1) on the way back up
    order.emit(r, (F, r + i, s1[r]), (I, i, s1[r]), (W, i, s1[r]))
    # Step 4: steady state, n-P steps of (F0, B0, W0, F1, B1, W1); chunk 0's forwards
    # continue at 2P-1-r, chunk 1's at P, chunk 1's backwards at P-r. Its last P-r-1
    # steps have no chunk-0 forward left.
    r, i = order.steps(step_4_f0)
    order.emit(
        r, (F, step_1[r] + step_2[r] + i, s0[r]), (I, i, s0[r]), (W, i, s0[r]),
        (F, P + i, s1[r]), (I, step_3[r] + i, s1[r]), (W, step_3[r] + i, s1[r]),
    )
    r, i = order.steps(step_4 - step_4_f0)
    i = step_4_f0[r] + i
    order.emit(r, (I, i, s0[r]), (W, i, s0[r]), (F, P + i, s1[r]), (I, step_3[r] + i, s1[r]),
               (W, step_3[r] + i, s1[r]))
    r, i = order.steps(step_5)  # Step 5: cool-down, r pairs (B0, B1)
    order.emit(r, (I, n - P + i, s0[r]), (I, n - r + i, s1[r]))
    r, i = order.steps(step_6)  # Step 6: P-r pairs (B0, W0)
    order.emit(r, (I, n - P + r + i, s0[r]), (W, n - P + i, s0[r]))
    r, i = order.steps(step_7)  # Step 7: the W's left: r of chunk 1, then r of chunk 0
    order.emit(r, (W, n - r + i, s1[r]))
    r, i = order.steps(step_7)
    order.emit(r, (W, n - r + i, s0[r]))
    return order.build(keep_mb_below=m)  # drop the padding micro-batches


# The formula its closed form shows (in docs/model.md's symbols).
FORMULAS = {"bubble": "(P-1)t_f/2 / (m(t_f+t_b+t_w) + (P-1)t_f/2)"}


def closed_form(cfg: Config) -> ClosedForm:
    P, m, costs = cfg.P, cfg.m, cfg.costs
    tf, tb, tw = cost_fractions(costs)
    work = m * (tf + tb + tw)
    # The one-iteration lower bound: rank P-1 cannot start before the first forward has
    # crossed P-1 half-size chunks, (P-1) t_f / 2. ZB-V meets it at equal costs.
    bubble = idle_fraction((P - 1) * tf / 2, work)
    caveat = uniform_caveat(costs)
    if caveat is None and m < 2 * P - 1:
        caveat = msg("zb-v.few_m", m=m, need=2 * P - 1)
    # Chunk 0's warm-up plus chunk 1's first forwards: 2P chunks (P micro-batches) on
    # every rank once m is large; with few micro-batches, all 2m chunks, or the m+1+r
    # that rank r has started before its first backward.
    r = np.arange(P)
    peak = np.minimum(np.minimum(2 * P, 2 * m), m + 1 + r)
    return ClosedForm(
        bubble=bubble,
        bubble_formula=FORMULAS["bubble"],
        bubble_exact=caveat is None,
        caveat=caveat,
        steady_bubble=Fraction(0),
        steady_exact=caveat is None,
        peak_chunks=peak.astype(np.int64),
        peak_awaiting_b=peak.astype(np.int64),  # each W follows its B at once
        peak_awaiting_w=np.zeros(P, dtype=np.int64),
        p2p_per_microbatch=4 * (P - 1),  # 2P-1 boundaries, one of them inside rank P-1
    )


ENTRY = Schedule(
    name="zb-v", position=60, placement="v", fixed_V=2, ops_per_chunk=3,
    generate=generate, closed_form=closed_form, formulas=FORMULAS,
)
