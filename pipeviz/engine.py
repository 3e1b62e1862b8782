"""One call from parameters to everything shown: schedule, timeline, metrics, closed form."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from . import registry
from .balance import Balance, bpipe
from .closed_form import ClosedForm
from .config import Config
from .encoder import EncoderRun, theory_caveat, with_encoder
from .metrics import Metrics, measure
from .order import Order
from .schedule import Schedule
from .simulate import Timeline, simulate
from .stages import with_caveat

# Simulated and closed-form values agree when they match to this relative tolerance:
# the simulation sums floats, the closed form is an exact fraction.
RTOL = 1e-9


@dataclass(frozen=True, eq=False)
class Result:
    config: Config
    schedule: Schedule
    order: Order
    timeline: Timeline
    metrics: Metrics
    theory: ClosedForm
    encoder: EncoderRun | None = None  # the encoder's report, when the run has one
    balance: Balance | None = None  # activations after balancing, when asked for

    @property
    def bubble_agrees(self) -> bool:
        return _close(self.metrics.bubble_fraction, float(self.theory.bubble))

    @property
    def steady_agrees(self) -> bool:
        return _close(self.metrics.steady_bubble_fraction, float(self.theory.steady_bubble))

    @property
    def peak_agrees(self) -> bool:
        return bool(np.array_equal(self.metrics.peak_chunks, self.theory.peak_chunks))

    @cached_property
    def bubble_parts(self):
        """Ideal, imbalance and comm parts of the bubble (`pipeviz.decompose`), or None
        when the stages are equal and comm is 0. Computed once, on first use."""
        from .decompose import bubble_parts

        return bubble_parts(self)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= RTOL * max(1.0, abs(a), abs(b))


def run(cfg: Config) -> Result:
    """Check, generate, time and measure one configuration (ConfigError if invalid)."""
    spec = registry.check(cfg)
    order = spec.generate(cfg)
    weights = cfg.stage_weights
    timeline = simulate(order, cfg.costs, weights=weights)
    theory = spec.closed_form(cfg)
    enc = None
    if cfg.encoder is not None:  # the encoder's ops join the ranks' orders; one simulator times them
        enc = with_encoder(timeline, cfg.encoder)
        order, timeline = enc.order, enc.timeline
        theory = replace(theory, bubble_exact=False, steady_exact=False, caveat=theory_caveat())
    theory = with_caveat(theory, weights)  # unequal stages: why the closed form no longer holds
    metrics = measure(timeline)
    balance = bpipe(timeline, metrics) if cfg.balance == "bpipe" else None
    return Result(cfg, spec, order, timeline, metrics, theory, encoder=enc, balance=balance)
