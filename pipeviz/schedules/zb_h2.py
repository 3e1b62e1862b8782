"""ZB-H2 (Qi et al., ICLR 2024): W's fill the warm-up and cool-down bubbles too.

Each rank may hold up to 2P-1 micro-batches in flight (counted until W), twice
1F1B's peak, so it keeps issuing forwards through what would be the warm-up bubble;
the deferred W's then fill the cool-down. The order is the paper's greedy rule, run
at unit costs as the paper's hand-made schedules are, then timed with the user's
costs by the one simulator:

    whenever a rank is free it runs its next B if that B is ready;
    otherwise its next F if that F is ready and fewer than 2P-1 are in flight;
    otherwise its oldest pending W; otherwise it idles for a unit.

The phases this produces on rank r: a warm-up of forwards until the first B comes back
from rank r+1 (2P-1 of them on rank 0); a steady state where B's take priority, F's
fill their gaps up to the in-flight cap, and W's fill what is left; a cool-down of
the W's still pending. B's and F's keep micro-batch order, so the rule only needs
three counters per rank, and it runs one unit of time per step for all ranks at once.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..closed_form import ClosedForm, cost_fractions, idle_fraction, uniform_caveat
from ..config import Config
from ..order import F, I, Order, OrderBuilder, W, loop_placement
from ..schedule import Schedule
from ..text import msg

IDLE = -1


def max_inflight(P: int) -> int:
    return 2 * P - 1


def generate(cfg: Config) -> Order:
    return _greedy(cfg.P, cfg.m)


@lru_cache(maxsize=64)
def _greedy(P: int, m: int) -> Order:
    """The rule, one unit of time per step, every rank at once.

    All ops take one unit, so an op issued at an earlier step has ended, and B's and
    F's keep micro-batch order on every rank: readiness is a comparison of counters.
    B(i) on rank r is ready once rank r ran F(i) and rank r+1 ran B(i); F(i) once
    rank r-1 ran F(i).
    """
    cap = max_inflight(P)
    # nf[r] = F's rank r has run; nf_ext[0] stands for a rank -1 that "ran" all m.
    nf_ext = np.zeros(P + 1, dtype=np.int64)
    nf_ext[0] = m
    nf, nf_prev = nf_ext[1:], nf_ext[:-1]
    # nb[r] = B's rank r has run; nb_ext[P] stands for a rank P past the last stage.
    nb_ext = np.zeros(P + 1, dtype=np.int64)
    nb_ext[P] = m + 1
    nb, nb_next = nb_ext[:-1], nb_ext[1:]
    nw = np.zeros(P, dtype=np.int64)
    ran_b, ran_f, ran_w = [], [], []
    step = 0
    while step % 16 or nw.min() < m:  # check the end every 16 steps; idle steps are dropped
        step += 1
        b = (nb < nf) & (nb < nb_next)  # its F ran here and its B ran on the next rank
        not_b = ~b
        f = (nf < nf_prev) & (nf - nw < cap) & not_b  # arrived, and room in flight
        w = (nw < nb) & not_b & ~f  # otherwise the oldest pending W
        nb += b
        nf += f
        nw += w
        ran_b.append(b)
        ran_f.append(f)
        ran_w.append(w)
    # (P, steps) indicators; an op's micro-batch is how many of its kind ran before it.
    is_b, is_f, is_w = (np.array(x).T for x in (ran_b, ran_f, ran_w))
    kind = np.full(is_b.shape, IDLE, dtype=np.int8)
    kind[is_b], kind[is_f], kind[is_w] = I, F, W
    mb = np.where(is_b, is_b.cumsum(1), np.where(is_f, is_f.cumsum(1), is_w.cumsum(1))) - 1
    r, t = np.nonzero(kind != IDLE)  # row-major: rank by rank, in time order
    order = OrderBuilder(P, m, loop_placement(P, 1))
    order.emit(r, (kind[r, t], mb[r, t], r))
    return order.build()


# The formula its closed form shows (in docs/model.md's symbols).
FORMULAS = {"bubble": "(P-1)t_f / (m(t_f+t_b+t_w) + (P-1)t_f)"}


def closed_form(cfg: Config) -> ClosedForm:
    P, m, costs = cfg.P, cfg.m, cfg.costs
    tf, tb, tw = cost_fractions(costs)
    work = m * (tf + tb + tw)
    # One iteration: the last rank cannot start before the first forward has crossed
    # P-1 ranks, and then works without a gap.
    bubble = idle_fraction((P - 1) * tf, work)
    # Back to back (the paper's measure): each rank idles (P-1)(t_f + t_b - 2 t_w),
    # zero once t_w >= (t_f + t_b) / 2.
    steady = idle_fraction((P - 1) * (tf + tb - 2 * tw), work)
    caveat = uniform_caveat(costs)
    if caveat is None and m < P:
        caveat = msg("zb-h2.few_m", m=m, P=P)
    steady_caveat = caveat or (msg("zb-h2.few_steady", m=m, cap=2 * P - 1) if m < 2 * P - 1 else None)
    total = min(m, max_inflight(P))  # counted until W, on every rank
    awaiting_b = np.minimum(2 * (P - np.arange(P)) - 1, m)
    return ClosedForm(
        bubble=bubble,
        bubble_formula=FORMULAS["bubble"],
        bubble_exact=caveat is None,
        caveat=caveat,
        steady_bubble=steady,
        steady_exact=steady_caveat is None,
        peak_chunks=np.full(P, total, dtype=np.int64),
        peak_awaiting_b=awaiting_b,
        peak_awaiting_w=total - awaiting_b,
        p2p_per_microbatch=2 * (P - 1),
    )


ENTRY = Schedule(
    name="zb-h2", position=50, placement="loop", fixed_V=1, ops_per_chunk=3,
    generate=generate, closed_form=closed_form, formulas=FORMULAS,
)
