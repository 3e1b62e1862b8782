"""Activation balancing (BPipe): flatten the in-flight staircase by letting back ranks
hold front ranks' activations. docs/model.md ("Activation balancing (BPipe)") states the model.

Rank r < P/2 pairs with rank P-1-r (with odd P the middle rank is unpaired). In
chunks, a pair's target is T = ceil((front peak + partner peak) / 2). The front rank
keeps at most T resident; the newest of its in-flight chunks beyond T (newest by
forward start) are held by its partner. At every instant:

    front resident   = min(front in flight, T)
    partner resident = partner in flight + max(0, front in flight - T)

A pair whose front peak is not above its partner's is left alone. The timeline does
not change: only where activations are held does.

Transfers: a chunk's place among its rank's in-flight chunks, counted from the oldest
by forward start, never rises (newer forwards do not move it; freeing an older chunk
lowers it). So a chunk is ever beyond T exactly when it is beyond T the moment its
forward starts, and each such chunk costs 2 transfers (out and back). They are
reported in micro-batch equivalents (chunk transfers / chunks per rank).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .metrics import Metrics, Steps
from .order import FB, B, F, W
from .simulate import Timeline


@dataclass(frozen=True, eq=False)
class Balance:
    pairs: list[tuple[int, int, int]]  # (front, partner, target in chunks) of every balanced pair
    target: np.ndarray  # (P,) the pair's target for both ranks of a balanced pair, else -1
    resident: Steps  # resident chunks over time, per rank, after balancing
    peak_chunks: np.ndarray  # (P,) peak resident chunks after balancing
    peak_microbatches: np.ndarray  # (P,) the same in micro-batch equivalents
    excess_chunks: int  # chunks that are ever held by a partner
    transfer_chunks: int  # 2 per such chunk
    transfers: float  # in micro-batch equivalents

    @property
    def moved(self) -> bool:
        return bool(self.pairs)


def steps_of(steps: Steps, r: int) -> tuple[np.ndarray, np.ndarray]:
    """Rank r's step function (steps are rank-major)."""
    lo, hi = np.searchsorted(steps.rank, [r, r + 1])
    return steps.time[lo:hi], steps.value[lo:hi]


def value_at(time: np.ndarray, value: np.ndarray, at: np.ndarray) -> np.ndarray:
    """A step function (0 before its first step) at each time in `at`, right-continuous."""
    k = np.searchsorted(time, at, side="right") - 1
    return np.where(k >= 0, value[np.maximum(k, 0)], 0)


def forward_counts(tl: Timeline) -> tuple[np.ndarray, np.ndarray]:
    """(rank, in-flight count just after) each forward's start, in each rank's order."""
    order = tl.order
    kind, n = order.kind, order.n_ops
    up = (kind == F) | (kind == FB)
    down = (kind == B) | (kind == W) | (kind == FB)
    delta = np.empty(2 * n, dtype=np.int64)
    delta[0::2] = up
    delta[1::2] = -down.astype(np.int64)
    count = np.cumsum(delta)  # each rank's events net to zero, so this runs per rank
    return order.rank[up], count[0::2][up]


def bpipe(tl: Timeline, mt: Metrics) -> Balance:
    order = tl.order
    P, chunks = order.P, order.chunks_per_rank
    peak = mt.peak_chunks
    target = np.full(P, -1, dtype=np.int64)
    f_rank, f_count = forward_counts(tl)
    pairs = []
    series = {}  # rank -> (time, value) after balancing, for the ranks that change
    excess = 0
    for r in range(P // 2):
        p = P - 1 - r
        if peak[r] <= peak[p]:
            continue
        T = -(-(int(peak[r]) + int(peak[p])) // 2)
        pairs.append((r, p, T))
        target[r] = target[p] = T
        excess += int(np.count_nonzero(f_count[f_rank == r] > T))
        t_f, v_f = steps_of(mt.inflight, r)
        t_p, v_p = steps_of(mt.inflight, p)
        series[r] = (t_f, np.minimum(v_f, T))
        at = np.union1d(t_f, t_p)
        series[p] = (at, value_at(t_p, v_p, at) + np.maximum(value_at(t_f, v_f, at) - T, 0))
    ranks, times, values = [], [], []
    for r in range(P):
        t, v = series[r] if r in series else steps_of(mt.inflight, r)
        ranks.append(np.full(t.size, r, dtype=np.int64))
        times.append(t)
        values.append(v.astype(np.int64))
    resident = Steps(rank=np.concatenate(ranks), time=np.concatenate(times), value=np.concatenate(values))
    after = np.array([int(v.max()) if v.size else 0 for v in values], dtype=np.int64)
    after = np.maximum(after, 0)
    return Balance(
        pairs=pairs, target=target, resident=resident, peak_chunks=after, peak_microbatches=after / chunks,
        excess_chunks=excess, transfer_chunks=2 * excess, transfers=2 * excess / chunks,
    )
