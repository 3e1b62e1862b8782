"""What another schedule would do with this run's costs: every built-in schedule
re-timed at the measured costs for the run's P and m, comm 0, as rows a comparison
table can show.

The measured means are per op; a schedule's costs are per rank's whole share of the
model (costs.py), so they are the means times the run's chunks per rank c:
  t_f = mean F * c;
  t_b = mean I * c and t_w = mean W * c where the run split its backward; where it ran
  only full backwards, t_b = t_w = mean B * c / 2 (the run cannot tell the parts
  apart: `split_even` says so);
  t_fb = mean F&B * c where the run overlapped pairs, else pipeviz's default.
A run with full and split backwards both (DualPipe-V) has a mean B of its own, but a
schedule prices a full backward t_b + t_w: its row differs from the run's model there.
Each schedule runs at its own V (interleaved at the run's V, or 2 for a run of one
chunk per rank). A schedule whose order is the run's own is marked `same_order`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import registry
from ..config import Config
from ..costs import Costs
from ..engine import run as run_schedule
from ..errors import ConfigError
from ..order import Order
from ..schedules.interleaved import ENTRY as _INTERLEAVED
from ..text import Msg
from .read import Run
from .report import Report

INTERLEAVED = _INTERLEAVED.name  # the schedule that runs at the run's V


@dataclass(frozen=True)
class Row:
    schedule: str
    V: int
    error: Msg | None = None  # why the schedule cannot run at this P and m
    makespan: float | None = None  # ms
    bubble_fraction: float | None = None
    peak_inflight_microbatches: float | None = None  # the tightest rank's
    peak_inflight_chunks: int | None = None
    vs_measured: float | None = None  # makespan - the measured makespan, ms
    vs_model: float | None = None  # makespan - the run's own order in the model, ms
    same_order: bool = False

    def as_dict(self) -> dict:
        out = {"schedule": self.schedule, "V": self.V}
        if self.error is not None:
            out["error"] = self.error.text()
            return out
        out.update(makespan=self.makespan, bubble_fraction=self.bubble_fraction,
                   peak_inflight_microbatches=self.peak_inflight_microbatches,
                   peak_inflight_chunks=self.peak_inflight_chunks, vs_measured=self.vs_measured,
                   vs_model=self.vs_model, same_order=self.same_order)
        return out


@dataclass(frozen=True)
class WhatIf:
    costs: Costs | None  # the per-rank costs the rows are timed with (None: the run's cannot be)
    split_even: bool  # t_b and t_w are the full backward halved
    rows: tuple[Row, ...]
    error: Msg | None = None  # why no row could be timed


def schedule_costs(rep: Report) -> tuple[Costs, bool]:
    """The per-rank costs of the measured means (module docstring); ConfigError if a
    cost is out of pipeviz's range (a zero-length op, say)."""
    mean, c = rep.costs.mean, rep.run.V
    split_even = "I" not in mean
    if split_even:
        tb = tw = mean.get("B", 0.0) * c / 2
    else:
        tb, tw = mean["I"] * c, mean["W"] * c
    tfb = mean["F&B"] * c if "F&B" in mean else None
    return Costs(mean.get("F", 0.0) * c, tb, tw, 0.0, tfb), split_even


def interleaved_V(run: Run) -> int:
    return run.V if run.V >= 2 else 2


def what_if(rep: Report) -> WhatIf:
    run = rep.run
    try:
        costs, split_even = schedule_costs(rep)
    except ConfigError as e:
        return WhatIf(costs=None, split_even=False, rows=(), error=e.msg)
    measured, model = run.metrics.makespan, rep.simulated_metrics.makespan
    rows = []
    for name, spec in registry.SCHEDULES.items():
        V = interleaved_V(run) if name == INTERLEAVED else (spec.fixed_V or 1)
        try:
            res = run_schedule(Config(name, run.P, run.m, V, costs))
        except ConfigError as e:
            rows.append(Row(name, V, error=e.msg))
            continue
        mt = res.metrics
        rows.append(Row(
            name, V, makespan=mt.makespan, bubble_fraction=mt.bubble_fraction,
            peak_inflight_microbatches=float(mt.peak_microbatches.max()),
            peak_inflight_chunks=int(mt.peak_chunks.max()), vs_measured=mt.makespan - measured,
            vs_model=mt.makespan - model, same_order=same_order(res.order, run.order),
        ))
    return WhatIf(costs=costs, split_even=split_even, rows=tuple(rows))


def same_order(a: Order, b: Order) -> bool:
    """The two orders run the same ops in the same order on the same ranks."""
    return all(np.array_equal(x, y) for x, y in (
        (a.stage_to_rank, b.stage_to_rank), (a.rank_ptr, b.rank_ptr), (a.kind, b.kind), (a.mb, b.mb),
        (a.stage, b.stage), (a.mb2, b.mb2), (a.stage2, b.stage2)))
