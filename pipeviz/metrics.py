"""Measure a timeline: makespan, bubbles, in-flight activations, p2p.

Definitions are SPEC.md's. In-flight activations of rank r at time t are the chunks
whose F has started and whose last backward op (W where the backward is split, else
B) has not ended. Ops on a rank never overlap, so the in-flight count only changes at
op boundaries, in the rank's own order: a running sum over each rank's ops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .order import B, F, Order, W
from .simulate import Timeline


@dataclass(frozen=True, eq=False)
class Steps:
    """A step function per rank, flat: after event i, rank[i] holds value[i] from time[i]."""

    rank: np.ndarray
    time: np.ndarray
    value: np.ndarray


@dataclass(frozen=True, eq=False)
class Metrics:
    makespan: float
    busy: np.ndarray  # (P,) busy time per rank
    idle: np.ndarray  # (P,) makespan - busy
    span: np.ndarray  # (P,) first op start to last op end, per rank
    bubble_fraction: float  # 1 - busy / (P * makespan): one iteration, global flush
    steady_bubble_fraction: float  # 1 - busy / (P * longest span): iterations back to back
    bubbles: tuple[np.ndarray, np.ndarray, np.ndarray]  # (rank, start, end) of every idle interval
    inflight: Steps  # in-flight chunks over time
    awaiting_b: Steps | None  # split backward only: chunks whose B has not ended
    awaiting_w: Steps | None  # split backward only: chunks whose B ended but W has not
    peak_chunks: np.ndarray  # (P,) peak in-flight chunks per rank
    peak_microbatches: np.ndarray  # (P,) the same in micro-batch equivalents
    peak_awaiting_b: np.ndarray | None  # (P,) at the moment of the peak: awaiting B
    peak_awaiting_w: np.ndarray | None  # (P,) ... and awaiting W only
    p2p_per_microbatch: int


def p2p_per_microbatch(order: Order) -> int:
    """Sends between ranks per micro-batch: an activation forward and a gradient
    backward across every stage boundary that crosses ranks."""
    s2r = order.stage_to_rank
    return int(2 * np.count_nonzero(s2r[1:] != s2r[:-1]))


def measure(tl: Timeline) -> Metrics:
    order = tl.order
    P, ptr = order.P, order.rank_ptr
    firsts, lasts = ptr[:-1], ptr[1:] - 1
    makespan = tl.makespan
    dur = tl.duration
    rank = order.rank
    busy = np.bincount(rank, weights=dur, minlength=P)
    span = tl.end[lasts] - tl.start[firsts]
    work = busy.sum()
    bubble = 1.0 - work / (P * makespan) if makespan > 0 else 0.0
    steady = 1.0 - work / (P * span.max()) if makespan > 0 else 0.0
    return Metrics(
        makespan=makespan,
        busy=busy,
        idle=makespan - busy,
        span=span,
        bubble_fraction=_clean(bubble),
        steady_bubble_fraction=_clean(steady),
        bubbles=idle_intervals(tl),
        **inflight(tl),
        p2p_per_microbatch=p2p_per_microbatch(order),
    )


def _clean(x: float) -> float:
    """Round away float noise (1e-16 bubbles) so a zero bubble reads as zero."""
    return 0.0 if abs(x) < 1e-12 else float(x)


def idle_intervals(tl: Timeline) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every idle interval of every rank within [0, makespan], including the leading
    wait for the first op and the trailing wait for the iteration's end."""
    order = tl.order
    P, ptr = order.P, order.rank_ptr
    rank = order.rank
    # Gap before op i on its rank: from the previous op's end (or 0) to its start.
    prev_end = np.empty_like(tl.end)
    prev_end[1:] = tl.end[:-1]
    prev_end[ptr[:-1]] = 0.0
    lo = np.concatenate([prev_end, tl.end[ptr[1:] - 1]])
    hi = np.concatenate([tl.start, np.full(P, tl.makespan)])
    who = np.concatenate([rank, np.arange(P)])
    tol = 1e-9 * max(tl.makespan, 1.0)
    gap = hi - lo > tol
    keep = np.flatnonzero(gap)
    # Order by rank then time (the trailing gaps were appended after all ranks).
    keep = keep[np.lexsort((lo[keep], who[keep]))]
    return who[keep], lo[keep], hi[keep]


def inflight(tl: Timeline) -> dict:
    """Step functions and peaks of in-flight chunks per rank."""
    order = tl.order
    rank = order.rank
    kind = order.kind
    last_backward = W if order.split_backward else B
    # +1 when an F starts, -1 when the chunk's last backward op ends. Each rank starts
    # and ends with nothing in flight, so a plain running sum restarts at every rank.
    delta = (kind == F).astype(np.int64) - (kind == last_backward)
    time = np.where(kind == F, tl.start, tl.end)
    count = np.cumsum(delta)
    peak = _segment_max(count, order.rank_ptr)
    out = dict(
        inflight=_steps(rank, time, count, delta != 0),
        peak_chunks=peak,
        peak_microbatches=peak / order.chunks_per_rank,
        awaiting_b=None,
        awaiting_w=None,
        peak_awaiting_b=None,
        peak_awaiting_w=None,
    )
    if order.split_backward:
        d_b = (kind == F).astype(np.int64) - (kind == B)
        d_w = (kind == B).astype(np.int64) - (kind == W)
        c_b, c_w = np.cumsum(d_b), np.cumsum(d_w)
        at_peak = _first_argmax(count, peak, rank)
        out.update(
            awaiting_b=_steps(rank, time, c_b, d_b != 0),
            awaiting_w=_steps(rank, time, c_w, d_w != 0),
            peak_awaiting_b=c_b[at_peak],
            peak_awaiting_w=c_w[at_peak],
        )
    return out


def _steps(rank, time, value, changes) -> Steps:
    return Steps(rank=rank[changes], time=time[changes], value=value[changes])


def _segment_max(x: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    return np.maximum.reduceat(x, ptr[:-1]) if x.size else np.zeros(len(ptr) - 1, x.dtype)


def _first_argmax(x: np.ndarray, seg_max: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """(P,) flat index of the first position where each rank reaches its maximum."""
    hits = np.flatnonzero(x == seg_max[rank])
    _, first = np.unique(rank[hits], return_index=True)
    return hits[first]
