"""1F1B (PipeDream-flush), Megatron-core's order, op for op.

Rank r: min(P-1-r, m) warm-up forwards, then alternate one F and one B, then the
remaining Bs. Backwards run in micro-batch order.
"""

from __future__ import annotations

import numpy as np

from ..closed_form import ClosedForm, fill_drain
from ..config import Config
from ..order import B, F, Order, OrderBuilder, loop_placement
from ..schedule import Schedule


def warmup(P: int, m: int, r: np.ndarray | int):
    return np.minimum(P - 1 - np.asarray(r), m)


def generate(cfg: Config) -> Order:
    P, m = cfg.P, cfg.m
    order = OrderBuilder(P, m, loop_placement(P, 1))
    w = warmup(P, m, np.arange(P))
    r, i = order.steps(w)  # Step 1: w_r = min(P-1-r, m) warm-up forwards
    order.emit(r, (F, i, r))
    r, i = order.steps(m - w)  # Step 2: m - w_r steady steps: F(w_r + i), then B(i)
    order.emit(r, (F, w[r] + i, r), (B, i, r))
    r, i = order.steps(w)  # Step 3: w_r cool-down backwards, the ones left
    order.emit(r, (B, m - w[r] + i, r))
    return order.build()


def peak_inflight(P: int, m: int) -> np.ndarray:
    """Warm-up + the first steady forward: min(P-r, m)."""
    return np.minimum(P - np.arange(P), m)


def closed_form(cfg: Config) -> ClosedForm:
    return fill_drain(cfg.P, cfg.m, 1, cfg.costs, peak=peak_inflight(cfg.P, cfg.m))


ENTRY = Schedule(
    name="1f1b", position=20, placement="loop", fixed_V=1, ops_per_chunk=2,
    generate=generate, closed_form=closed_form,
)
