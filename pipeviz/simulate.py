"""Time any order: as soon as possible, with each rank's order fixed.

An op starts at the latest of the end of its rank's previous op and the end of each
dependency (plus the comm latency when the dependency ran on another rank):
  F(mb, s) after F(mb, s-1);
  B(mb, s) after B(mb, s+1), and on the last stage after F(mb, s);
  W(mb, s) after B(mb, s).
Every op has at most one dependency, so the timing is one pass over the ops in a
valid global order. The pass goes in waves: each wave times the next op of every rank
whose dependency is already timed, as one set of numpy operations over the ranks.
A steady pipeline advances every rank each wave, so the waves number about the ops
per rank, and each costs a few microseconds whatever P is. A wave that can advance
no rank before all ops are timed is a deadlock.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .costs import Costs
from .errors import DeadlockError, OrderError
from .order import KIND_NAMES, B, F, Order, W


@dataclass(frozen=True, eq=False)
class Timeline:
    order: Order
    costs: Costs
    start: np.ndarray  # (N,) start time of each op
    end: np.ndarray  # (N,) end time of each op
    dep: np.ndarray  # (N,) index of the op each op waits for, -1 for none

    @property
    def duration(self) -> np.ndarray:
        return self.end - self.start

    @property
    def makespan(self) -> float:
        return float(self.end.max() - self.start.min()) if self.end.size else 0.0


def op_durations(order: Order, costs: Costs) -> np.ndarray:
    """(N,) duration of each op: a rank's share of the cost, over its chunks."""
    backward = costs.tb if order.split_backward else costs.tb + costs.tw
    per_kind = np.array([costs.tf, backward, costs.tw]) / order.chunks_per_rank
    return per_kind[order.kind]


def describe_op(order: Order, i: int) -> str:
    return f"{KIND_NAMES[order.kind[i]]}(mb {order.mb[i]}, stage {order.stage[i]})"


def validate(order: Order) -> None:
    """Each (kind, mb, stage) exactly once, and each stage's ops on the rank holding it."""
    P, m, S, N = order.P, order.m, order.S, order.n_ops
    if order.rank_ptr.shape != (P + 1,) or order.rank_ptr[0] != 0 or order.rank_ptr[-1] != N:
        raise OrderError(f"rank_ptr must run from 0 to {N} over {P} ranks")
    if S == 0 or order.stage_to_rank.min() < 0 or order.stage_to_rank.max() >= P:
        raise OrderError(f"stage_to_rank must map each stage to a rank in 0..{P - 1}")
    kinds = 3 if order.split_backward else 2
    bad = (order.kind < 0) | (order.kind >= kinds)
    bad |= (order.mb < 0) | (order.mb >= m) | (order.stage < 0) | (order.stage >= S)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        allowed = "F, B, W" if order.split_backward else "F, B (no W: the backward is not split)"
        raise OrderError(
            f"op {i} on rank {order.rank[i]} is out of range: kind {order.kind[i]}, mb {order.mb[i]}, "
            f"stage {order.stage[i]}; valid kinds {allowed}, mb 0..{m - 1}, stage 0..{S - 1}"
        )
    wrong_rank = order.stage_to_rank[order.stage] != order.rank
    if wrong_rank.any():
        i = int(np.flatnonzero(wrong_rank)[0])
        raise OrderError(
            f"{describe_op(order, i)} is on rank {order.rank[i]}, but stage {order.stage[i]} "
            f"lives on rank {order.stage_to_rank[order.stage[i]]}"
        )
    key = (order.kind.astype(np.int64) * m + order.mb) * S + order.stage
    count = np.bincount(key, minlength=kinds * m * S)
    if (count != 1).any():
        k = int(np.flatnonzero(count != 1)[0])
        kind, rest = divmod(k, m * S)
        mb, stage = divmod(rest, S)
        what = "is missing" if count[k] == 0 else f"appears {count[k]} times"
        raise OrderError(f"{KIND_NAMES[kind]}(mb {mb}, stage {stage}) {what}; every op must appear exactly once")


def dependencies(order: Order) -> np.ndarray:
    """(N,) index of the op each op waits for, -1 for none (SPEC.md's only dependencies)."""
    m, S, N = order.m, order.S, order.n_ops
    where = np.full((3, m, S), -1, dtype=np.int64)
    where[order.kind, order.mb, order.stage] = np.arange(N)
    k, mb, s = order.kind, order.mb, order.stage
    dep = np.full(N, -1, dtype=np.int64)
    sel = (k == F) & (s > 0)
    dep[sel] = where[F, mb[sel], s[sel] - 1]
    sel = (k == B) & (s < S - 1)
    dep[sel] = where[B, mb[sel], s[sel] + 1]
    sel = (k == B) & (s == S - 1)
    dep[sel] = where[F, mb[sel], s[sel]]
    sel = k == W
    dep[sel] = where[B, mb[sel], s[sel]]
    return dep


def simulate(order: Order, costs: Costs) -> Timeline:
    validate(order)
    dep = dependencies(order)
    N, P = order.n_ops, order.P
    rank = order.rank
    index = np.arange(N)
    dur = op_durations(order, costs)

    # Only a dependency on another rank can make a rank wait: one on its own rank was
    # met by an earlier op (or, if it comes later, can never be: a deadlock). So each
    # rank's ops fall into runs, each headed by an op that may wait, followed by ops
    # that start as the previous one ends. The waves time runs, not ops.
    has_dep = dep >= 0
    cross = has_dep & (rank[np.maximum(dep, 0)] != rank)
    head = cross | (has_dep & (dep > index))
    lengths = np.diff(order.rank_ptr)
    head[order.rank_ptr[:-1][lengths > 0]] = True
    heads = np.flatnonzero(head)
    H = heads.size
    run_of = np.cumsum(head) - 1
    csum = np.concatenate([[0.0], np.cumsum(dur)])
    run_base = csum[heads]
    off_start = csum[:-1] - run_base[run_of]  # op start, relative to its run's start
    off_end = csum[1:] - run_base[run_of]
    run_dur = np.diff(np.append(run_base, csum[-1]))

    NONE, DONE = H, H + 1  # sentinel runs: "no dependency" (always met), "rank finished" (never met)
    waits_on = np.full(H + 2, NONE, dtype=np.int64)
    waits_on[DONE] = DONE
    lag = np.zeros(H + 2)  # from the start of the awaited op's run to when this run may start
    has = has_dep[heads]
    waits_on[:H][has] = run_of[dep[heads[has]]]
    lag[:H][has] = off_end[dep[heads[has]]] + np.where(cross[heads[has]], costs.comm, 0.0)
    timed = np.zeros(H + 2, dtype=bool)
    timed[NONE] = True
    run_start = np.zeros(H + 2)
    run_start[NONE] = -np.inf
    following = np.arange(1, H + 3, dtype=np.int64)  # next run on the same rank
    last_run = run_of[order.rank_ptr[1:][lengths > 0] - 1]
    following[last_run] = DONE
    current = np.full(P, DONE, dtype=np.int64)
    current[lengths > 0] = run_of[order.rank_ptr[:-1][lengths > 0]]
    free = np.zeros(P)  # when each rank's previous run ends

    remaining = H
    while remaining:
        w = waits_on[current]
        ok = timed[w]
        ready = np.flatnonzero(ok)
        if ready.size == 0:
            raise _deadlock(order, heads, dep, current, DONE)
        q = current[ready]
        t0 = np.maximum(free[ready], run_start[w[ready]] + lag[q])
        run_start[q] = t0
        timed[q] = True
        free[ready] = t0 + run_dur[q]
        current[ready] = following[q]
        remaining -= ready.size
    base = run_start[run_of]
    return Timeline(order=order, costs=costs, start=base + off_start, end=base + off_end, dep=dep)


def _deadlock(order: Order, heads: np.ndarray, dep: np.ndarray, current: np.ndarray, done: int) -> DeadlockError:
    rank = order.rank
    blocked = []
    for r in np.flatnonzero(current != done):
        i = int(heads[current[r]])
        d = int(dep[i])
        blocked.append((int(r), describe_op(order, i), f"{describe_op(order, d)} on rank {rank[d]}"))
    return DeadlockError(blocked)
