"""GPipe: every forward, then every backward (Huang et al., 2019)."""

from __future__ import annotations

import numpy as np

from ..closed_form import ClosedForm, fill_drain
from ..config import Config
from ..order import B, F, Order, OrderBuilder, loop_placement
from ..schedule import Schedule


def generate(cfg: Config) -> Order:
    P, m = cfg.P, cfg.m
    order = OrderBuilder(P, m, loop_placement(P, 1))
    r, i = order.steps(m)  # Step 1: m forwards, in micro-batch order
    order.emit(r, (F, i, r))
    r, i = order.steps(m)  # Step 2: m backwards, in micro-batch order
    order.emit(r, (B, i, r))
    return order.build()


def closed_form(cfg: Config) -> ClosedForm:
    # Every rank holds all m activations when its first backward starts.
    return fill_drain(cfg.P, cfg.m, 1, cfg.costs, peak=np.full(cfg.P, cfg.m))


ENTRY = Schedule(
    name="gpipe", position=10, placement="loop", fixed_V=1, ops_per_chunk=2,
    generate=generate, closed_form=closed_form,
)
