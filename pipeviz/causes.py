"""Why the timeline looks as it does: what each idle gap waits for, and one critical
path from the first start to the last end.

Timing is as soon as possible, so every op starts exactly when its rank's previous op
ends or when one of its dependencies ends (plus the comm latency across ranks), or at
time 0. That makes both questions answerable from the timeline alone:

- A gap before op i ends when op i can start. If op i has a dependency on another
  rank, the gap waits for that op (the one whose end plus lag is latest, which is
  when op i starts); otherwise for op i itself. A trailing gap waits for the
  iteration's end.
- A critical path walks back from the op that ends last, each step to an op whose end
  (plus lag) is exactly this op's start: the dependency where one is tight, else the
  rank's previous op. Its ops' durations plus the lags it crosses sum to the makespan.
"""

from __future__ import annotations

import numba
import numpy as np

from .simulate import Timeline

NONE = -1


def gap_waits(tl: Timeline, rank: np.ndarray, end: np.ndarray) -> np.ndarray:
    """For each idle gap (rank and end as from metrics.idle_intervals), the index of
    the op it waits for, or NONE for a trailing gap."""
    order = tl.order
    d = tl.deps
    tol = 1e-9 * max(1.0, tl.makespan)
    return _waits(order.rank_ptr, order.rank, tl.start, tl.end, d.ptr, d.idx, d.lag, rank.astype(np.int64), end, tol)


@numba.njit(cache=True, nogil=True)
def _waits(rank_ptr, op_rank, start, end, dep_ptr, dep_idx, dep_lag, gap_rank, gap_end, tol):  # pragma: no cover (compiled)
    out = np.full(gap_rank.size, NONE, np.int64)
    for g in range(gap_rank.size):
        r = gap_rank[g]
        i = np.searchsorted(start[rank_ptr[r] : rank_ptr[r + 1]], gap_end[g] - tol) + rank_ptr[r]
        if i >= rank_ptr[r + 1]:
            continue  # a trailing gap: it waits for the iteration's end
        out[g] = i
        best = -np.inf
        for k in range(dep_ptr[i], dep_ptr[i + 1]):
            dep = dep_idx[k]
            if op_rank[dep] != op_rank[i] and end[dep] + dep_lag[k] > best:
                best = end[dep] + dep_lag[k]
                out[g] = dep
    return out


@numba.njit(cache=True, nogil=True)
def _walk_back(rank_ptr, rank, start, end, dep_ptr, dep_idx, dep_lag, last, tol):  # pragma: no cover (compiled)
    path = np.empty(end.size, np.int64)
    n = 0
    i = last
    while True:
        path[n] = i
        n += 1
        if start[i] <= tol:
            break
        nxt = -1
        for k in range(dep_ptr[i], dep_ptr[i + 1]):
            d = dep_idx[k]
            if abs(end[d] + dep_lag[k] - start[i]) <= tol:
                nxt = d
                break
        if nxt < 0 and i > rank_ptr[rank[i]] and abs(end[i - 1] - start[i]) <= tol:
            nxt = i - 1
        if nxt < 0:  # cannot happen in an ASAP timeline; stop rather than loop
            break
        i = nxt
    return path[:n][::-1].copy()


def critical_path(tl: Timeline) -> np.ndarray:
    """Op indices of one critical path, in time order (empty for an empty order)."""
    if tl.order.n_ops == 0:
        return np.zeros(0, dtype=np.int64)
    tol = 1e-9 * max(1.0, tl.makespan)
    last = int(np.argmax(tl.end))
    d = tl.deps
    return _walk_back(tl.order.rank_ptr, tl.order.rank, tl.start, tl.end, d.ptr, d.idx, d.lag, last, tol)


def path_lags(tl: Timeline, path: np.ndarray) -> np.ndarray:
    """The wait between consecutive ops of a path (the comm latency where the path
    follows a dependency across ranks, 0 where the next op starts at once)."""
    return tl.start[path[1:]] - tl.end[path[:-1]]
