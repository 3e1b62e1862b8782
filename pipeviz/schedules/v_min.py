"""V-Min (Qi et al., "Pipeline Parallelism with Controllable Memory", arXiv 2405.15362):
sail-sg's order (`zbv_greedy.py`, "min"), op for op.

A V-shaped schedule (chunk 0 of rank r is stage r, chunk 1 is stage 2P-1-r) with
the backward split, built from the building block with the shortest lifespan: about
a third of 1F1B's activations, (P+4)//3 micro-batches at the peak where 1F1B holds
P, for a bubble about two thirds of 1F1B's (the authors' 2B/3, B = (P-1)/(m+P-1),
plus an overhead that grows with m, at t_f = t_b = t_w; they note V-Min alone slows
down when F, B and W differ). The block, micro-batch 0's slots on rank r (the next
micro-batch's come 6 units later); g = 2 when 3 divides P, else 0, keeps the
repeated blocks from colliding:

  F0  r              chunk 0 forward: one unit a rank, on the way down
  F1  2P-1-r         chunk 1 forward: back up
  B1  2P+g+r         chunk 1 backward: down again
  B0  4P+g-1-r       chunk 0 backward: back up

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
    g = 2 if P % 3 == 0 else 0
    return np.stack([r, 2 * P - 1 - r, 2 * P + g + r, 4 * P + g - 1 - r], axis=1)


def generate(cfg: Config) -> Order:
    return v_schedule(cfg.P, cfg.m, pattern(cfg.P))


def peak_microbatches(P: int) -> int:
    """The authors' peak: (P+4)//3 micro-batches."""
    return (P + 4) // 3


def closed_form(cfg: Config) -> ClosedForm:
    P, m = cfg.P, cfg.m
    bubble = Fraction(2 * (P - 1), 3 * (m + P - 1))  # 2B/3
    peak = np.full(P, min(2 * peak_microbatches(P), 2 * m), dtype=np.int64)
    return ClosedForm(
        bubble=bubble,
        bubble_formula="2(P-1)/(3(m+P-1))",
        bubble_exact=False,
        caveat=msg("v-min.estimate", peak=peak_microbatches(P)),
        steady_bubble=bubble,
        steady_exact=False,
        peak_chunks=peak,
        peak_awaiting_b=None,  # the authors give the peak only
        peak_awaiting_w=None,
        p2p_per_microbatch=4 * (P - 1),  # 2P-1 boundaries, one of them inside rank P-1
        peak_exact=False,
    )


ENTRY = Schedule(
    name="v-min", position=64, placement="v", fixed_V=2, ops_per_chunk=3,
    generate=generate, closed_form=closed_form,
)
