"""ZB-H2 (Qi et al., ICLR 2024): W's fill the warm-up and cool-down bubbles too.

Each rank may hold up to 2P-1 micro-batches in flight (counted until W), twice
1F1B's peak, so it keeps issuing forwards through what would be the warm-up bubble;
the deferred W's then fill the cool-down. Rank r runs three phases:

  Step 1: warm-up     w_r = min(2(P-r)-1, m)              forwards: the first B reaches
                                                          rank r at time 2P-1-r
  Step 2: steady      the greedy rule below picks each op, up to rank r's last B
  Step 3: cool-down   c_r = max(1, min(2r+1, m-2(P-1-r)))  W's still pending, oldest first

The paper draws ZB-H2 by hand; pipeviz (docs/model.md, "zb-h2") fixes it as the output
of the paper's greedy rule, run at unit costs and then timed with the user's costs by
the one simulator. Steps 1 and 3 are what the rule does there, in closed form
(tests/test_orders.py holds them to the rule for every P in 1..32 and m up to 128);
step 2 is the rule itself, `greedy_steady`:

    whenever a rank is free it runs its next B if that B is ready;
    otherwise its next F if that F is ready and fewer than 2P-1 are in flight;
    otherwise its oldest pending W; otherwise it idles for a unit.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..closed_form import ClosedForm, cost_fractions, idle_fraction, uniform_caveat
from ..compiled import K
from ..config import Config
from ..order import F, Order, OrderBuilder, W, loop_placement
from ..schedule import Schedule
from ..text import msg


def max_inflight(P: int) -> int:
    return 2 * P - 1


def warmup(P: int, m: int, r):
    """Step 1: rank r runs F(0), F(1), ... at times r, r+1, ... until the first B comes
    back, at time 2P-1-r; on rank 0 that is 2P-1 forwards, the in-flight cap."""
    return np.minimum(2 * (P - np.asarray(r)) - 1, m)


def cooldown(P: int, m: int, r):
    """Step 3: the W's still pending after rank r's last B: 2r+1 once m >= 2P-1 (the
    tail of the paper's parallelogram), fewer when the pipeline never fills, and
    always at least the last B's own W."""
    r = np.asarray(r)
    return np.maximum(1, np.minimum(2 * r + 1, m - 2 * (P - 1 - r)))


def generate(cfg: Config) -> Order:
    P, m = cfg.P, cfg.m
    order = OrderBuilder(P, m, loop_placement(P, 1))
    rank = np.arange(P)
    step_1 = warmup(P, m, rank)
    step_3 = cooldown(P, m, rank)

    r, i = order.steps(step_1)  # Step 1: w_r warm-up forwards
    order.emit(r, (F, i, r))
    r, kind, mb = greedy_steady(P, m)  # Step 2: the rule's picks, up to rank r's last B
    order.emit(r, (kind, mb, r))
    r, i = order.steps(step_3)  # Step 3: c_r cool-down W's, the oldest pending first
    order.emit(r, (W, m - step_3[r] + i, r))
    return order.build()


@lru_cache(maxsize=64)
def greedy_steady(P: int, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Step 2 of every rank: (rank, kind, mb) of each op the rule picks after the
    warm-up and up to the rank's last B, rank by rank in time order. The rule runs
    as one of the engine's loops (pipeviz/kernels.py, `zbh2_rule`, whose docstring
    says why three counters per rank are its whole state)."""
    warm = np.ascontiguousarray(warmup(P, m, np.arange(P)), dtype=np.int64)
    kind, mb, count = K.zbh2_rule(P, m, warm)
    keep = np.arange(kind.shape[1]) < count[:, None]
    r, t = np.nonzero(keep)  # row-major: rank by rank, in time order
    return r, kind[r, t], mb[r, t]


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
