"""Looped BFS (Lamy-Poirier, Breadth-First Pipeline Parallelism, 2023): PyTorch 2.13's
ScheduleLoopedBFS order, op for op.

Each rank holds V chunks, placed in a loop as interleaved 1F1B's (stage s on rank
s mod P, so chunk c of rank r is stage cP + r). Where interleaved 1F1B goes depth
first (the earliest micro-batch first), Looped BFS goes breadth first: every
micro-batch through one chunk before any goes through the next, as GPipe does per
loop. Rank r runs two steps:

  Step 1: nF    Vm   forwards: chunk 0 for micro-batches 0..m-1, then chunk 1, ...
  Step 2: nB    Vm   backwards: the last chunk first, micro-batches m-1 down to 0

Every forward runs before any backward, so each rank holds all Vm chunks (m
micro-batches, as GPipe) when its backwards begin; what V buys is the shorter fill
and drain, (P-1)/(mV+P-1) as interleaved 1F1B's from m = P on. Below m = P, rank 0
runs out of one chunk's forwards before micro-batch 0 comes back round the loop, so
each loop waits for it: (VP+m-1) chunk-steps forward and as many back, a bubble of
(V(P-m)+m-1)/(VP+m-1), as interleaved 1F1B's one round there. Both hold at any t_f,
t_b, t_w with comm = 0.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np

from ..closed_form import ClosedForm, fill_drain
from ..config import Config
from ..order import B, F, Order, OrderBuilder, loop_placement
from ..schedule import Schedule


def generate(cfg: Config) -> Order:
    P, m, V = cfg.P, cfg.m, cfg.V
    order = OrderBuilder(P, m, loop_placement(P, V))
    step_1 = V * m
    step_2 = V * m

    r, i = order.steps(step_1)  # Step 1: chunk i // m for micro-batch i % m, breadth first
    order.emit(r, (F, i % m, (i // m) * P + r))
    r, i = order.steps(step_2)  # Step 2: the last chunk first, micro-batches in reverse
    order.emit(r, (B, m - 1 - i % m, (V - 1 - i // m) * P + r))
    return order.build()


def closed_form(cfg: Config) -> ClosedForm:
    P, m, V = cfg.P, cfg.m, cfg.V
    peak = np.full(P, V * m)  # every forward before any backward
    theory = fill_drain(P, m, V, cfg.costs, peak=peak)
    if m >= P:
        return theory
    bubble = Fraction(V * (P - m) + m - 1, V * P + m - 1)
    return replace(theory, bubble=bubble, steady_bubble=bubble, bubble_formula="(V(P-m)+m-1)/(VP+m-1)")


ENTRY = Schedule(
    name="looped-bfs", position=35, placement="loop", fixed_V=None, ops_per_chunk=2,
    least_V=2,  # at V = 1 it is GPipe
    generate=generate, closed_form=closed_form,
)
