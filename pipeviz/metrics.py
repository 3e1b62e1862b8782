"""Measure a timeline: makespan, bubbles, in-flight activations, p2p.

Definitions are SPEC.md's. In-flight activations of rank r at time t are the chunks
whose forward has started and whose last backward op (W where the backward is split,
else the full backward, alone or inside an F&B) has not ended. Ops on a rank never
overlap, so the count changes only at op boundaries, in the rank's own order: each
op contributes a +1 at its start (a forward) and a -1 at its end (a last backward),
and a running sum over the ranks' ops, start event before end event, is the count.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .order import FB, B, F, I, Order, W
from .simulate import Timeline


@dataclass(frozen=True, eq=False)
class Steps:
    """A step function per rank, flat and rank-major: from time[i], rank[i] holds
    value[i] (until the rank's next step). Simultaneous changes are merged."""

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
    p2p_per_microbatch: int  # sends between ranks per micro-batch
    p2p_article: int  # the article's count: 2 per micro-batch per boundary, 2V interleaved


def p2p_per_microbatch(order: Order) -> int:
    """Sends between ranks per micro-batch: an activation forward and a gradient
    backward across every stage boundary that crosses ranks."""
    s2r = order.stage_to_rank
    return int(2 * np.count_nonzero(s2r[1:] != s2r[:-1]))


def p2p_article(order: Order) -> int:
    """The article's convention: a micro-batch crosses each rank boundary once per
    chunk, each way: 2 per micro-batch for one chunk per rank, 2V for V chunks."""
    return 2 * order.chunks_per_rank if order.P > 1 else 0


def measure(tl: Timeline) -> Metrics:
    order = tl.order
    P, ptr = order.P, order.rank_ptr
    firsts, lasts = ptr[:-1], ptr[1:] - 1
    makespan = tl.makespan
    busy = np.bincount(order.rank, weights=tl.duration, minlength=P)
    nonempty = ptr[1:] > ptr[:-1]
    span = np.where(nonempty, tl.end[np.maximum(lasts, 0)] - tl.start[np.minimum(firsts, max(order.n_ops - 1, 0))], 0.0)
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
        p2p_article=p2p_article(order),
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
    prev_end[ptr[:-1][ptr[:-1] < order.n_ops]] = 0.0
    last_end = np.where(ptr[1:] > ptr[:-1], tl.end[np.maximum(ptr[1:] - 1, 0)] if order.n_ops else 0.0, 0.0)
    lo = np.concatenate([prev_end, last_end])
    hi = np.concatenate([tl.start, np.full(P, tl.makespan)])
    who = np.concatenate([rank, np.arange(P)])
    tol = 1e-9 * max(tl.makespan, 1.0)
    keep = np.flatnonzero(hi - lo > tol)
    # Order by rank then time (the trailing gaps were appended after all ranks).
    keep = keep[np.lexsort((lo[keep], who[keep]))]
    return who[keep], lo[keep], hi[keep]


def _events(tl: Timeline, up: np.ndarray, down: np.ndarray):
    """Per op, a start event (+1 where `up`) then an end event (-1 where `down`):
    (rank, time, delta) of the events that change something, in rank order, and
    the running count after each."""
    order = tl.order
    n = order.n_ops
    delta = np.empty(2 * n, dtype=np.int64)
    delta[0::2] = up
    delta[1::2] = -down.astype(np.int64)
    time = np.empty(2 * n)
    time[0::2] = tl.start
    time[1::2] = tl.end
    rank = np.repeat(order.rank, 2)
    count = np.cumsum(delta)
    return rank, time, delta, count


def _steps(rank, time, count, changes) -> Steps:
    """The step function of the changes, keeping only the last of simultaneous ones
    (a chunk freed and the next taken at the same instant is no dip)."""
    r, t, v = rank[changes], time[changes], count[changes]
    last = np.ones(r.size, dtype=bool)
    last[:-1] = (r[1:] != r[:-1]) | (t[1:] != t[:-1])
    return Steps(rank=r[last], time=t[last], value=v[last])


def inflight(tl: Timeline) -> dict:
    """Step functions and peaks of in-flight chunks per rank."""
    order = tl.order
    kind = order.kind
    P = order.P
    has_f = (kind == F) | (kind == FB)
    ends_chunk = (kind == B) | (kind == W) | (kind == FB)
    rank, time, delta, count = _events(tl, has_f, ends_chunk)
    event_ptr = 2 * order.rank_ptr
    peak = _segment_max(count, event_ptr, P)
    out = dict(
        inflight=_steps(rank, time, count, delta != 0),
        peak_chunks=peak,
        peak_microbatches=peak / order.chunks_per_rank,
        awaiting_b=None,
        awaiting_w=None,
        peak_awaiting_b=None,
        peak_awaiting_w=None,
    )
    if order.has_w:
        ends_b = (kind == B) | (kind == I) | (kind == FB)
        _, _, d_b, c_b = _events(tl, has_f, ends_b)
        _, _, d_w, c_w = _events(tl, np.zeros(order.n_ops, bool), kind == W)
        # awaiting W only: +1 when an I ends; the I's end event is its second slot.
        d_w[1::2] += kind == I
        c_w = np.cumsum(d_w)
        at_peak = _first_argmax(count, peak, rank)
        out.update(
            awaiting_b=_steps(rank, time, c_b, d_b != 0),
            awaiting_w=_steps(rank, time, c_w, d_w != 0),
            peak_awaiting_b=c_b[at_peak],
            peak_awaiting_w=c_w[at_peak],
        )
    return out


def _segment_max(x: np.ndarray, ptr: np.ndarray, P: int) -> np.ndarray:
    out = np.zeros(P, dtype=np.int64)
    nonempty = ptr[1:] > ptr[:-1]
    if x.size:
        out[nonempty] = np.maximum.reduceat(x, ptr[:-1][nonempty])
    return np.maximum(out, 0)


def _first_argmax(x: np.ndarray, seg_max: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """(P,) flat index of the first position where each rank reaches its maximum."""
    hits = np.flatnonzero(x == seg_max[rank])
    out = np.zeros(seg_max.size, dtype=np.int64)
    ranks, first = np.unique(rank[hits], return_index=True)
    out[ranks] = hits[first]
    return out

