"""V-Half (Qi et al., "Pipeline Parallelism with Controllable Memory", arXiv 2405.15362):
sail-sg's order (`zbv_greedy.py`, "half"), op for op.

A V-shaped schedule (chunk 0 of rank r is stage r, chunk 1 is stage 2P-1-r) with
the backward split, built from a building block whose lifespan holds about half of
1F1B's activations: (P+2)//2 micro-batches at the peak where 1F1B holds P, for a
bubble about half of 1F1B's (the authors' B/2, B = (P-1)/(m+P-1), at t_f = t_b =
t_w). The block, micro-batch 0's slots on rank r (the next micro-batch's come 6
units later); g = 3 when P is even, else 0, keeps the repeated blocks from
colliding:

  F0  2r             chunk 0 forward: two units a rank, on the way down
  F1  3P-2-r         chunk 1 forward: back up, one unit a rank
  B1  3P+g+2r-1      chunk 1 backward: down again, two units a rank
  B0  6P+g-2-r       chunk 0 backward: back up, one unit a rank

`building_blocks.v_schedule` repeats it and runs the paper's squeezes and W
placement (its docstring lists the six steps). The closed forms are the authors'
estimates, so the readout marks them approximate.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..closed_form import ClosedForm
from ..config import Config
from ..order import Order
from ..schedule import Schedule
from ..text import msg
from .building_blocks import v_schedule


def pattern(P: int) -> np.ndarray:
    """(P, 4): the slots of micro-batch 0's F0, F1, B1 and B0 on each rank."""
    r = np.arange(P)
    g = 3 if P % 2 == 0 else 0
    return np.stack([2 * r, 3 * P - 2 - r, 3 * P + g + 2 * r - 1, 6 * P + g - 2 - r], axis=1)


def generate(cfg: Config) -> Order:
    return v_schedule(cfg.P, cfg.m, pattern(cfg.P))


def peak_microbatches(P: int) -> int:
    """The authors' peak: (P+2)//2 micro-batches."""
    return (P + 2) // 2


def closed_form(cfg: Config) -> ClosedForm:
    P, m = cfg.P, cfg.m
    bubble = Fraction(P - 1, 2 * (m + P - 1))  # B/2
    peak = np.full(P, min(2 * peak_microbatches(P), 2 * m), dtype=np.int64)
    return ClosedForm(
        bubble=bubble,
        bubble_formula="(P-1)/(2(m+P-1))",
        bubble_exact=False,
        caveat=msg("v-half.estimate", peak=peak_microbatches(P)),
        steady_bubble=bubble,
        steady_exact=False,
        peak_chunks=peak,
        peak_awaiting_b=None,  # the authors give the peak only
        peak_awaiting_w=None,
        p2p_per_microbatch=4 * (P - 1),  # 2P-1 boundaries, one of them inside rank P-1
        peak_exact=False,
    )


ENTRY = Schedule(
    name="v-half", position=62, placement="v", fixed_V=2, ops_per_chunk=3,
    generate=generate, closed_form=closed_form,
)
