"""A profiled step's numbers: measured costs, the model of the same order, where the
step loses time (docs/reading.md, "A real run").

- Measured cost per kind: the mean duration (ms) of F, I, W, B and F&B over all ranks,
  summed in the order the ops are stored (rank by rank, each rank's in its order);
  per stage too, and per (stage, kind) for the imbalance below.
- Simulated: the same order timed by pipeviz's simulator, each op at its kind's mean,
  comm 0. gap = measured makespan - simulated makespan: time the model does not have
  (communication, launches, stragglers).
- Gap lines: for each op of each rank, the wait before it (from the rank's previous
  op's end, or from 0) measured and in the model. Where the measured wait is longer by
  more than GAP_SHARE of the measured makespan, the line names what the rank did in
  that wait: the action that took most of it (a RECV from its peer rank, a SEND, a
  bookkeeping action), or nothing recorded if the time no action covers is larger.
  Sorted by the excess, largest first.
- Stages: per stage, the mean of each kind and its work per micro-batch (its ops'
  measured time over m, an F&B split between its two stages in proportion to the
  mean F and the mean full backward); weight = work / the mean stage's work.
  Imbalance: the order timed again with each op at the mean of its own (kind,
  stage) (an F&B at the mean of its (stage, stage) pair), minus the simulated
  makespan: what unequal stages cost in the model.

`report(run)` computes all of it; static/trace.js computes the same, in the same order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..costs import DEFAULT_COSTS
from ..metrics import Metrics, measure
from ..order import FB, KIND_NAMES, B, F, I, W
from ..simulate import Timeline, simulate
from ..text import Msg, msg
from .names import COMM_KINDS
from .read import Run

MEASURED_KINDS = ("F", "I", "W", "B", "F&B")  # docs/reading.md's order of the measured costs
STAGE_KINDS = ("F", "I", "W", "B")
GAP_SHARE = 0.01
CAUSES = ("recv", "send", "book", "none")  # what a gap line says filled the wait
_CODE = {KIND_NAMES[k]: k for k in (F, B, I, W, FB)}


def ms(x: float) -> str:
    """A time in ms as the words show it: two decimals."""
    return f"{x:.2f}"


@dataclass(frozen=True, eq=False)
class Costs:
    """Measured costs in ms (module docstring)."""

    mean: dict  # kind -> mean ms, for the kinds present, in MEASURED_KINDS order
    count: dict  # kind -> ops measured
    stage_mean: np.ndarray  # (S, 4) mean ms of F, I, W, B on each stage (NaN: none)
    stage_count: np.ndarray  # (S, 4)
    stage_rank: np.ndarray  # (S,) the rank holding each stage
    stage_work: np.ndarray  # (S,) measured ms per micro-batch on each stage
    stage_weight: np.ndarray  # (S,) work over the mean stage's


@dataclass(frozen=True)
class Gap:
    """A wait that is longer than the model's (module docstring)."""

    rank: int
    op: int  # index of the op waited before, in the run's order
    waited: float  # measured wait before it, ms
    model: float  # the model's wait there, ms
    excess: float  # waited - model
    cause: str  # "recv", "send", "book" or "none"
    comm: int  # index of the action into run.comm, -1 for none
    spent: float  # ms of the wait that action (or, for none, no action) covers
    msg: Msg


@dataclass(frozen=True, eq=False)
class Imbalance:
    makespan: float  # the order timed with per-stage costs, ms
    extra: float  # that minus the simulated makespan
    slowest: int  # the stage with the most work per micro-batch
    ratio: float  # its work over the mean stage's
    msg: Msg


@dataclass(frozen=True, eq=False)
class Report:
    run: Run
    costs: Costs
    simulated: Timeline  # the same order at the measured means, comm 0
    simulated_metrics: Metrics
    gap: float  # measured makespan - simulated makespan, ms
    gaps: tuple[Gap, ...]
    imbalance: Imbalance


def report(run: Run) -> Report:
    costs = measured_costs(run)
    order = run.order
    dur = np.array([costs.mean[KIND_NAMES[k]] for k in order.kind.tolist()], dtype=np.float64)
    sim = simulate(order, DEFAULT_COSTS, dur=dur)
    sim_metrics = measure(sim)
    gap = run.metrics.makespan - sim_metrics.makespan
    return Report(run=run, costs=costs, simulated=sim, simulated_metrics=sim_metrics, gap=gap,
                  gaps=tuple(gap_lines(run, sim)), imbalance=imbalance(run, costs, sim_metrics.makespan))


def _mean(total: float, n: int) -> float:
    return total / n if n else math.nan


def measured_costs(run: Run) -> Costs:
    order = run.order
    kinds = order.kind.tolist()
    stage, stage2 = order.stage.tolist(), order.stage2.tolist()
    dur = [e - s for s, e in zip(run.start.tolist(), run.end.tolist())]
    total, count = dict.fromkeys(MEASURED_KINDS, 0.0), dict.fromkeys(MEASURED_KINDS, 0)
    S = order.S
    st_total = [[0.0] * 4 for _ in range(S)]
    st_count = [[0] * 4 for _ in range(S)]
    for k, s, d in zip(kinds, stage, dur):
        name = KIND_NAMES[k]
        total[name] += d
        count[name] += 1
        if name in STAGE_KINDS:
            j = STAGE_KINDS.index(name)
            st_total[s][j] += d
            st_count[s][j] += 1
    mean = {k: total[k] / count[k] for k in MEASURED_KINDS if count[k]}
    # Work per micro-batch: each stage's ops; an F&B split as its parts cost alone.
    f_part = mean.get("F", 0.0)
    b_part = mean["B"] if "B" in mean else mean.get("I", 0.0) + mean.get("W", 0.0)
    work = [sum(st_total[s]) for s in range(S)]
    for k, s, s2, d in zip(kinds, stage, stage2, dur):
        if k == FB:
            share = f_part / (f_part + b_part) if f_part + b_part > 0 else 0.5
            work[s] += d * share
            work[s2] += d * (1.0 - share)
    work = [w / order.m for w in work]
    avg = sum(work) / S
    return Costs(
        mean=mean, count={k: count[k] for k in MEASURED_KINDS if count[k]},
        stage_mean=np.array([[_mean(st_total[s][j], st_count[s][j]) for j in range(4)] for s in range(S)]),
        stage_count=np.array(st_count, dtype=np.int64), stage_rank=order.stage_to_rank.copy(),
        stage_work=np.array(work), stage_weight=np.array([w / avg if avg > 0 else 1.0 for w in work]),
    )


def gap_lines(run: Run, sim: Timeline) -> list[Gap]:
    order, comm = run.order, run.comm
    start, end = run.start.tolist(), run.end.tolist()
    s_start, s_end = sim.start.tolist(), sim.end.tolist()
    c_start, c_end = comm.start.tolist(), comm.end.tolist()
    threshold = GAP_SHARE * run.metrics.makespan
    out = []
    for r in range(order.P):
        lo, hi = int(order.rank_ptr[r]), int(order.rank_ptr[r + 1])
        c_lo, c_hi = int(comm.rank_ptr[r]), int(comm.rank_ptr[r + 1])
        j = c_lo
        prev, s_prev = 0.0, 0.0
        for i in range(lo, hi):
            waited, model = start[i] - prev, s_start[i] - s_prev
            excess = waited - model
            if excess > threshold:
                while j < c_hi and c_end[j] <= prev:
                    j += 1
                best, best_at, covered = 0.0, -1, 0.0
                k = j
                while k < c_hi and c_start[k] < start[i]:
                    part = min(c_end[k], start[i]) - max(c_start[k], prev)
                    if part > 0:
                        covered += part
                        if part > best:
                            best, best_at = part, k
                    k += 1
                bare = waited - covered
                out.append(_gap(run, r, i, waited, model, excess, best_at, best, bare))
            prev, s_prev = end[i], s_end[i]
    out.sort(key=lambda g: (-g.excess, g.rank, g.op))
    return out


def _gap(run: Run, r: int, i: int, waited: float, model: float, excess: float, at: int, best: float,
         bare: float) -> Gap:
    op = run.order.token(i)
    args = dict(rank=r, ms=ms(excess), op=op)
    if at < 0 or bare > best:
        return Gap(r, i, waited, model, excess, "none", -1, max(bare, 0.0), msg("trace.gap.none", **args))
    comm = run.comm
    kind = COMM_KINDS[int(comm.kind[at])]
    cause = "recv" if kind.startswith("RECV") else "send" if kind.startswith("SEND") else "book"
    peer = int(comm.peer[at])
    if cause != "book" and peer < 0:
        cause = "book"  # a send or receive with no neighbour on another rank: say only what it was
    if cause == "book":
        return Gap(r, i, waited, model, excess, cause, at, best, msg("trace.gap.book", comm=kind, **args))
    return Gap(r, i, waited, model, excess, cause, at, best, msg(f"trace.gap.{cause}", comm=kind, peer=peer, **args))


def imbalance(run: Run, costs: Costs, simulated: float) -> Imbalance:
    order = run.order
    kinds, stage, stage2 = order.kind.tolist(), order.stage.tolist(), order.stage2.tolist()
    dur = [e - s for s, e in zip(run.start.tolist(), run.end.tolist())]
    total: dict = {}
    count: dict = {}
    for k, s, s2, d in zip(kinds, stage, stage2, dur):
        key = (k, s, s2)
        total[key] = total.get(key, 0.0) + d
        count[key] = count.get(key, 0) + 1
    per_op = np.array([total[(k, s, s2)] / count[(k, s, s2)] for k, s, s2 in zip(kinds, stage, stage2)])
    tl = simulate(order, DEFAULT_COSTS, dur=per_op)
    makespan = float(tl.end.max() - tl.start.min())
    weight = costs.stage_weight
    slowest = int(np.argmax(weight))
    ratio = float(weight[slowest])
    extra = makespan - simulated
    key = "trace.imbalance" if extra >= 0 else "trace.imbalance_shorter"
    text = msg(key, stage=slowest, rank=int(costs.stage_rank[slowest]), ratio=f"{ratio:.2f}",
               ms=ms(abs(extra)), with_stages=ms(makespan), without=ms(simulated))
    return Imbalance(makespan=makespan, extra=extra, slowest=slowest, ratio=ratio, msg=text)
