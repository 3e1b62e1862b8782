"""ZB-H1 (Qi et al., Zero Bubble Pipeline Parallelism, ICLR 2024).

1F1B with each backward split into I (input gradient, the paper's B) and W (weight
gradient). Rank r lets up to r W's wait, so its W's fill the bubble 1F1B leaves on
that rank while the peak in-flight memory stays 1F1B's (P on rank 0).
"""

from __future__ import annotations

import numpy as np

from ..closed_form import ClosedForm, comm_caveat, cost_fractions, idle_fraction
from ..config import Config
from ..order import F, I, Order, OrderBuilder, W, loop_placement
from ..schedule import Schedule
from ..text import msg
from . import one_f_one_b


def generate(cfg: Config) -> Order:
    P, m = cfg.P, cfg.m
    order = OrderBuilder(P, m, loop_placement(P, 1))
    w = one_f_one_b.warmup(P, m, np.arange(P))
    steady = m - w
    held = np.minimum(np.arange(P), steady)  # steady steps whose W waits: rank r lets r W's wait
    first_w = steady - held  # W's run in the steady state: W(0 .. first_w)

    r, i = order.steps(w)  # Step 1: w_r = min(P-1-r, m) warm-up forwards, as 1F1B
    order.emit(r, (F, i, r))
    r, i = order.steps(held)  # Step 2a: the first r steady steps: F(w+i), B(i); the W waits
    order.emit(r, (F, w[r] + i, r), (I, i, r))
    r, i = order.steps(first_w)  # Step 2b: the other steady steps also run the oldest W
    i = held[r] + i
    order.emit(r, (F, w[r] + i, r), (I, i, r), (W, i - r, r))
    r, j = order.steps(w)  # Step 3: cool-down, w_r steps of B, then the oldest pending W
    order.emit(r, (I, steady[r] + j, r), (W, first_w[r] + j, r))
    r, j = order.steps(held)  # Step 4: the r W's still pending, oldest first
    order.emit(r, (W, first_w[r] + w[r] + j, r))
    return order.build()


# The formula its closed form shows (in docs/model.md's symbols).
FORMULAS = {"bubble": "(P-1)(t_f+t_b-t_w) / (m(t_f+t_b+t_w) + (P-1)(t_f+t_b-t_w))"}


def closed_form(cfg: Config) -> ClosedForm:
    P, m, costs = cfg.P, cfg.m, cfg.costs
    tf, tb, tw = cost_fractions(costs)
    # The fill and drain cost (P-1)(t_f + t_b) on the critical path, as in 1F1B with
    # W taken off it, and each rank's pending W's fill (P-1) t_w of that: each rank
    # idles (P-1)(t_f + t_b - t_w), a third of 1F1B's at equal costs.
    bubble = idle_fraction((P - 1) * (tf + tb - tw), m * (tf + tb + tw))
    caveat = comm_caveat(costs)
    if caveat is None and m < P:
        caveat = msg("zb-h1.few_m", m=m, P=P)
    if caveat is None and tw > min(tf, tb):
        caveat = msg("zb-h1.big_w", tw=costs.tw, tf=costs.tf, tb=costs.tb)
    total = np.minimum(P, m)  # counted until W: P-r awaiting B plus r awaiting W only
    awaiting_b = np.minimum(P - np.arange(P), m)
    return ClosedForm(
        bubble=bubble,
        bubble_formula=FORMULAS["bubble"],
        bubble_exact=caveat is None,
        caveat=caveat,
        steady_bubble=bubble,  # rank 0 runs from the first op to the last
        steady_exact=caveat is None,
        peak_chunks=np.full(P, total, dtype=np.int64),
        peak_awaiting_b=awaiting_b,
        peak_awaiting_w=total - awaiting_b,
        p2p_per_microbatch=2 * (P - 1),
    )


ENTRY = Schedule(
    name="zb-h1", position=40, placement="loop", fixed_V=1, ops_per_chunk=3,
    generate=generate, closed_form=closed_form, formulas=FORMULAS,
)
