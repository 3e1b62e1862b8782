"""DualPipe-V (DeepSeek's `dualpipe/dualpipev.py`; PyTorch 2.13's ScheduleDualPipeV).

Two chunks per rank placed in a V, as ZB-V: rank r holds stage r (chunk 0, on the
way down) and stage 2P-1-r (chunk 1, on the way back). It needs m >= 2P. The heart
of it is the overlapped F&B: the forward of one chunk and the full backward of the
other, run together as one op, so the communication of each hides behind the
compute of the other (costed t_fb; docs/model.md, "dualpipe-v").

Rank r runs eight steps, DeepSeek's names and counts (PP = 2P stages; "F0" is a
forward of chunk 0, "B1" a backward of chunk 1, "F0B1" an overlapped pair):

  Step 1: nF0        2(P-r-1)    forwards of chunk 0: the way down
  Step 2: nF0F1      r+1         pairs (F0, F1): the first micro-batches turn at the bottom
  Step 3: nB1W1F1    P-r-1       triples (B1 split into I then W, F1)
  Step 4: nF0B1F1B0  m-2P+r+1    pairs of overlapped ops (F0&B1, F1&B0); on the last
                                 rank the first F0 and B1 run one after the other
  Step 5: nB1F1B0    P-r-1       pairs (B1, F1&B0)
  Step 6: nB1B0      r+1         pairs (B1, B0); from step (r+1)//2 on, the backwards
                                 are split (DeepSeek's "the second half of the chunks use
                                 zero bubble"): B0 from that step, B1 one step later on
                                 even ranks (its switch comes after B1 there)
  Step 7: nWB0       P-r-1       pairs (W, B0 split)
  Step 8: nW         r+1         W's

Each chunk's forwards and backwards run in micro-batch order (one counter per chunk
and direction, as DeepSeek's `current_f_chunk_id` / `current_b_chunk_id`). A W runs
the weight gradient of the oldest split backward whose W has not run (DeepSeek's
WeightGradStore is a FIFO queue). Backwards inside F&B pairs and in steps 5-6 before
the switch are full (B); the others are split (I then W): whether a backward is split
is a property of each op.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..closed_form import AuthorsBubble, ClosedForm, cost_fractions, exact
from ..config import Config
from ..errors import ConfigError
from ..order import FB, B, F, I, Order, OrderBuilder, W, v_placement
from ..schedule import Schedule
from ..text import msg


def check(cfg: Config) -> None:
    if cfg.m < 2 * cfg.P:
        raise ConfigError("dualpipe-v.m_below_2P", m=cfg.m, P=cfg.P, need=2 * cfg.P)


def fifo(P: int, m: int, r: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mb, stage) of the k-th split backward of steps 6 and 7 on rank r, in the
    order they run: the W's of steps 7 and 8 pop them first in, first out.

    Step 6 splits B0 from its step h0 = (r+1)//2 on and B1 from h1 = r//2 + 1 on, so
    an even rank first splits one B0 alone (its step h0 = r/2), then every step
    splits (B1, B0); step 7 splits one B0 per step."""
    s0, s1 = r, 2 * P - 1 - r
    lone = (r % 2 == 0).astype(np.int64)  # step 6's lone split B0 (even ranks)
    h1 = r // 2 + 1
    j = k - lone  # position among step 6's split pairs
    step = h1 + j // 2
    in_step_6 = k <= r  # step 6 splits r+1 backwards in all
    mb = np.where(k < lone, m - P + r // 2,
                  np.where(in_step_6, np.where(j % 2 == 0, m - r - 1 + step, m - P + step), m - P + k))
    stage = np.where(in_step_6 & (k >= lone) & (j % 2 == 0), s1, s0)
    return mb, stage


def generate(cfg: Config) -> Order:
    P, m = cfg.P, cfg.m
    order = OrderBuilder(P, m, v_placement(P))
    rank = np.arange(P)
    s0, s1 = rank, 2 * P - 1 - rank  # chunk 0 and chunk 1 of rank r
    step_1 = 2 * (P - rank - 1)
    step_2 = rank + 1
    step_3 = P - rank - 1
    step_4 = m - 2 * P + rank + 1
    step_5 = P - rank - 1
    step_6 = rank + 1
    step_7 = P - rank - 1
    step_8 = rank + 1

    r, i = order.steps(step_1)  # Step 1: nF0
    order.emit(r, (F, i, s0[r]))
    r, i = order.steps(step_2)  # Step 2: nF0F1
    order.emit(r, (F, step_1[r] + i, s0[r]), (F, i, s1[r]))
    r, i = order.steps(step_3)  # Step 3: nB1W1F1, the backward split (I, then its W at once)
    order.emit(r, (I, i, s1[r]), (W, i, s1[r]), (F, r + 1 + i, s1[r]))
    # Step 4: nF0B1F1B0. Chunk 0's forwards continue at 2P-r-1, chunk 1's backwards at
    # P-r-1, chunk 1's forwards at P, chunk 0's backwards at 0.
    last = (rank == P - 1).astype(np.int64)
    r, i = order.steps(last)  # the last rank's first step: F0 and B1 not overlapped
    order.emit(r, (F, P + i, s0[r]), (B, i, s1[r]), (FB, P + i, s1[r], i, s0[r]))
    r, i = order.steps(step_4 - last)
    i = last[r] + i
    order.emit(r, (FB, 2 * P - r - 1 + i, s0[r], P - r - 1 + i, s1[r]), (FB, P + i, s1[r], i, s0[r]))
    r, i = order.steps(step_5)  # Step 5: nB1F1B0
    order.emit(r, (B, m - P + i, s1[r]), (FB, m - P + r + 1 + i, s1[r], m - 2 * P + r + 1 + i, s0[r]))
    # Step 6: nB1B0, chunk 1's backwards from m-r-1, chunk 0's from m-P.
    h0 = (rank + 1) // 2  # the step from which B0 is split
    r, i = order.steps(h0)  # both full
    order.emit(r, (B, m - rank[r] - 1 + i, s1[r]), (B, m - P + i, s0[r]))
    r, i = order.steps(1 - rank % 2)  # even ranks, step r/2: B1 full, B0 split
    i = h0[r] + i
    order.emit(r, (B, m - r - 1 + i, s1[r]), (I, m - P + i, s0[r]))
    r, i = order.steps(step_6 - h0 - (1 - rank % 2))  # both split
    i = rank[r] // 2 + 1 + i
    order.emit(r, (I, m - r - 1 + i, s1[r]), (I, m - P + i, s0[r]))
    r, i = order.steps(step_7)  # Step 7: nWB0, each W the oldest pending one
    w_mb, w_stage = fifo(P, m, r, i)
    order.emit(r, (W, w_mb, w_stage), (I, m - P + r + 1 + i, s0[r]))
    r, i = order.steps(step_8)  # Step 8: nW, the rest of the queue
    w_mb, w_stage = fifo(P, m, r, step_7[r] + i)
    order.emit(r, (W, w_mb, w_stage))
    return order.build()


def fb_count(P: int, m: int) -> np.ndarray:
    """(P,) overlapped F&B ops on each rank: two per step 4 step (one fewer on the
    last rank) and one per step 5 step."""
    r = np.arange(P)
    return 2 * (m - 2 * P + r + 1) - (r == P - 1) + (P - r - 1)


def fb_cost(costs) -> Fraction:
    """t_fb as an exact fraction (t_f + t_b + t_w when unset)."""
    tf, tb, tw = cost_fractions(costs)
    return tf + tb + tw if costs.tfb is None else exact(costs.tfb)


def deepseek_idle(P: int, costs) -> Fraction:
    """DeepSeek's bubble (PP/2-1)(F&B + B - 3W), PP = 2P stages, with a chunk's costs
    (half a rank's share): F&B = t_fb/2, B = (t_b+t_w)/2 (full), W = t_w/2. In
    pipeviz's units that is (P-1)(t_fb + t_b - 2t_w)/2."""
    _, tb, tw = cost_fractions(costs)
    return (P - 1) * (fb_cost(costs) + tb - 2 * tw) / 2


def busy(P: int, m: int, costs) -> list[Fraction]:
    """Each rank's busy time: its share of every micro-batch, m(t_f+t_b+t_w), less
    what each of its overlapped pairs saves, (t_f+t_b+t_w - t_fb)/2."""
    tf, tb, tw = cost_fractions(costs)
    gain = (tf + tb + tw - fb_cost(costs)) / 2
    return [m * (tf + tb + tw) - int(n) * gain for n in fb_count(P, m)]


def caveat_for(P: int, costs):
    """Why DeepSeek's bubble may not be rank P-1's idle, or None where it is.

    Found on a grid (P 2..8, m 2P..4P, costs from 0 to 4 units, t_fb from 0.1 to
    three times t_f+t_b+t_w) and held by tests/test_dualpipe_v.py with hypothesis:
    rank P-1's idle is exactly (P-1)(t_fb+t_b-2t_w)/2 whenever comm = 0, t_f = t_b,
    t_w <= t_f and t_fb >= t_f + t_w, and nowhere else on the grid but isolated
    coincidences. It is then also the largest idle when t_fb <= t_f+t_b+t_w (the
    ranks near the bottom of the V run the most overlapped pairs, so they idle
    longest when a pair saves time); with a slower t_fb, rank 0 idles longer."""
    if P == 1:
        return None  # one rank never waits, and (P-1) = 0
    if costs.comm > 0:
        return msg("cf.comm", comm=costs.comm)
    tf, tb, tw = cost_fractions(costs)
    if tf != tb:
        return msg("dualpipe-v.f_ne_b", tf=costs.tf, tb=costs.tb)
    if tw > tf:
        return msg("dualpipe-v.big_w", tw=costs.tw, tf=costs.tf)
    if fb_cost(costs) < tf + tw:
        return msg("dualpipe-v.fast_fb", tfb=float(fb_cost(costs)), least=float(tf + tw))
    return None


def closed_form(cfg: Config) -> ClosedForm:
    P, m, costs = cfg.P, cfg.m, cfg.costs
    D = deepseek_idle(P, costs)
    work = busy(P, m, costs)
    # Where DeepSeek's bubble holds it is the idle of rank P-1, so the iteration lasts
    # rank P-1's busy time plus D, and every rank idles the rest of that.
    makespan = work[P - 1] + D
    bubble = 1 - sum(work) / (P * makespan) if makespan > 0 else Fraction(0)
    caveat = caveat_for(P, costs)
    equal = len(set(work)) == 1
    formula = "D/(m(t_f+t_b+t_w)+D)" if equal else "1-Σbusy/(P(busy[P-1]+D))"
    peak = np.full(P, 2 * P + 1, dtype=np.int64)  # DeepSeek's PP+1 chunks, every rank
    return ClosedForm(
        bubble=bubble,
        bubble_formula=formula,
        bubble_exact=caveat is None,
        caveat=caveat,
        steady_bubble=bubble,  # rank 0 runs from the first op to the last
        steady_exact=caveat is None,
        peak_chunks=peak,
        peak_awaiting_b=peak,  # the peak comes before any split backward
        peak_awaiting_w=np.zeros(P, dtype=np.int64),
        p2p_per_microbatch=4 * (P - 1),  # 2P-1 boundaries, one of them inside rank P-1
        authors=AuthorsBubble(who="dualpipe-v.deepseek", formula="D = (PP/2-1)(F&B+B-3W) = (P-1)(t_fb+t_b-2t_w)/2",
                              idle=D, rank=P - 1),
    )


ENTRY = Schedule(
    name="dualpipe-v", position=70, placement="v", fixed_V=2, ops_per_chunk=3,
    generate=generate, closed_form=closed_form, check=check,
)
