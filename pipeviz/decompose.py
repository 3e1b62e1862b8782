"""Where the bubble comes from, when stages are unequal or hops cost time.

The same order is timed three times (as MindSpore's pipeline simulator splits it):
  ideal      every stage at the mean weight, no comm: the schedule's own bubble;
  imbalance  the real stage weights, no comm, minus the ideal;
  comm       the real run (weights and comm) minus the run without comm.
Each part is a difference of one-iteration bubble fractions, so the three sum to the
simulated bubble exactly (up to float rounding). With equal weights the imbalance is
0; with no comm the comm part is 0. The total work is the same in all three runs
(every stage does the same ops, and the mean weight keeps their sum), so the parts
compare idle time at equal work.

An imbalance part can be negative in principle (a heavier stage that happens to sit
where the order waits anyway); it is reported as it comes out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .costs import Costs
from .metrics import measure
from .simulate import simulate
from .stages import uneven


@dataclass(frozen=True)
class BubbleParts:
    ideal: float  # bubble fraction with equal stages (the mean weight) and no comm
    imbalance: float  # real weights, no comm, minus ideal
    comm: float  # real run minus real weights without comm
    total: float  # the simulated bubble fraction: ideal + imbalance + comm
    makespan_ideal: float
    makespan_no_comm: float


def needed(res) -> bool:
    """The split says something: stages differ or hops cost time."""
    return uneven(res.config.stage_weights) or res.config.costs.comm > 0


def bubble_parts(res) -> BubbleParts | None:
    """The three parts of `res`'s bubble (an engine Result), or None when the stages
    are equal and comm is 0 (the whole bubble is then the ideal part)."""
    if not needed(res):
        return None
    cfg, order = res.config, res.order
    no_comm = Costs(cfg.costs.tf, cfg.costs.tb, cfg.costs.tw, 0.0, cfg.costs.tfb)
    weights = cfg.stage_weights
    mean = (float(np.mean(weights)),) * order.S if weights is not None else None
    ideal = measure(_timed(res, no_comm, mean))
    if cfg.costs.comm > 0:
        flat = measure(_timed(res, no_comm, weights))
    else:
        flat = res.metrics
    total = res.metrics.bubble_fraction
    return BubbleParts(
        ideal=ideal.bubble_fraction,
        imbalance=_clean(flat.bubble_fraction - ideal.bubble_fraction),
        comm=_clean(total - flat.bubble_fraction),
        total=total,
        makespan_ideal=ideal.makespan,
        makespan_no_comm=flat.makespan,
    )


def _timed(res, costs: Costs, weights):
    """res's order timed with other costs and weights; its encoder ops (if any) keep
    their e_f and e_b."""
    enc = getattr(res, "encoder", None)
    if enc is None:
        return simulate(res.order, costs, weights=weights)
    from .encoder import durations

    return simulate(res.order, costs, durations(res.order, costs, enc.settings, weights), weights=weights)


def _clean(x: float) -> float:
    return 0.0 if abs(x) < 1e-12 else float(x)
