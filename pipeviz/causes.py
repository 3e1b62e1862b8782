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

import numpy as np

from .compiled import K
from .simulate import Timeline

NONE = K.NONE  # a trailing gap waits for no op


def gap_waits(tl: Timeline, rank: np.ndarray, end: np.ndarray) -> np.ndarray:
    """For each idle gap (rank and end as from metrics.idle_intervals), the index of
    the op it waits for, or NONE for a trailing gap."""
    order = tl.order
    d = tl.deps
    tol = 1e-9 * max(1.0, tl.makespan)
    return K.gap_waits(order.rank_ptr, order.rank, tl.start, tl.end, d.ptr, d.idx, d.lag,
                       np.ascontiguousarray(rank, dtype=np.int64), np.ascontiguousarray(end, dtype=np.float64), tol)


def critical_path(tl: Timeline) -> np.ndarray:
    """Op indices of one critical path, in time order (empty for an empty order)."""
    if tl.order.n_ops == 0:
        return np.zeros(0, dtype=np.int64)
    tol = 1e-9 * max(1.0, tl.makespan)
    last = int(np.argmax(tl.end))
    d = tl.deps
    return K.walk_back(tl.order.rank_ptr, tl.order.rank, tl.start, tl.end, d.ptr, d.idx, d.lag, last, tol)


def path_lags(tl: Timeline, path: np.ndarray) -> np.ndarray:
    """The wait between consecutive ops of a path (the comm latency where the path
    follows a dependency across ranks, 0 where the next op starts at once)."""
    return tl.start[path[1:]] - tl.end[path[:-1]]
