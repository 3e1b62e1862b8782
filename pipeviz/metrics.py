"""Measure a timeline: makespan, bubbles, in-flight activations, p2p.

Definitions: docs/model.md, "Metrics". In-flight activations of rank r at time t are the chunks
whose forward has started and whose last backward op (W where the backward is split,
else the full backward, alone or inside an F&B) has not ended. Ops on a rank never
overlap, so the count changes only at op boundaries, in the rank's own order: each
op contributes a +1 at its start (a forward) and a -1 at its end (a last backward),
and a running sum over the ranks' ops, start event before end event, is the count.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
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
    P, split = order.P, order.has_w
    # One compiled call measures everything: at small sizes each call into compiled
    # code, each array it returns and each numpy call cost as much as the arithmetic.
    (makespan, longest, busy, idle, span, bubbles, inflight_steps, peak, peak_mb,
     at_peak) = _measure(order.kind, tl.start, tl.end, order.rank_ptr, order.chunks_per_rank)
    awaiting = _awaiting(order.kind, tl.start, tl.end, order.rank_ptr, at_peak) if split else None
    work = busy.sum()  # numpy's pairwise sum, as engine.js sums: the bubble is the same to the bit
    bubble = 1.0 - work / (P * makespan) if makespan > 0 else 0.0
    steady = 1.0 - work / (P * longest) if makespan > 0 else 0.0
    return Metrics(
        makespan=makespan,
        busy=busy,
        idle=idle,
        span=span,
        bubble_fraction=_clean(bubble),
        steady_bubble_fraction=_clean(steady),
        bubbles=bubbles,
        inflight=Steps(*inflight_steps),
        peak_chunks=peak,
        peak_microbatches=peak_mb,
        awaiting_b=Steps(*awaiting[0]) if split else None,
        awaiting_w=Steps(*awaiting[1]) if split else None,
        peak_awaiting_b=awaiting[2] if split else None,
        peak_awaiting_w=awaiting[3] if split else None,
        p2p_per_microbatch=p2p_per_microbatch(order),
        p2p_article=p2p_article(order),
    )


@numba.njit(cache=True, nogil=True)
def _measure(kind, start, end, ptr, chunks):  # pragma: no cover (compiled)
    """`measure`'s numbers and arrays: makespan, the longest span,
    busy, idle and span per rank, the idle intervals, and in-flight chunks (steps,
    peak in chunks and in micro-batches, the event of the peak)."""
    makespan = end.max() - start.min() if end.size else 0.0
    busy, span = _busy_span(start, end, ptr)
    bubbles = _idle(start, end, ptr, makespan, 1e-9 * max(makespan, 1.0))
    _, rank, time, value, peak, at_peak = _events(kind, INFLIGHT, start, end, ptr)
    longest = span.max() if span.size else 0.0
    return makespan, longest, busy, makespan - busy, span, bubbles, (rank, time, value), peak, \
        peak / chunks, at_peak


@numba.njit(cache=True, nogil=True)
def _awaiting(kind, start, end, ptr, at_peak):  # pragma: no cover (compiled)
    """For a split backward: the steps of the chunks awaiting B and awaiting W, and
    their counts at each rank's in-flight peak."""
    c_b, rank_b, time_b, value_b, _, _ = _events(kind, AWAITING_B, start, end, ptr)
    c_w, rank_w, time_w, value_w, _, _ = _events(kind, AWAITING_W, start, end, ptr)
    return (rank_b, time_b, value_b), (rank_w, time_w, value_w), c_b[at_peak], c_w[at_peak]


def _clean(x: float) -> float:
    """Round away float noise (1e-16 bubbles) so a zero bubble reads as zero."""
    return 0.0 if abs(x) < 1e-12 else float(x)


@numba.njit(cache=True, nogil=True)
def _busy_span(start, end, ptr):  # pragma: no cover (compiled)
    """(P,) busy time (durations summed in op order) and span (first start to last end) per rank."""
    P = ptr.size - 1
    busy = np.zeros(P)
    span = np.zeros(P)
    for r in range(P):
        for i in range(ptr[r], ptr[r + 1]):
            busy[r] += end[i] - start[i]
        if ptr[r + 1] > ptr[r]:
            span[r] = end[ptr[r + 1] - 1] - start[ptr[r]]
    return busy, span


def idle_intervals(tl: Timeline) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every idle interval of every rank within [0, makespan], including the leading
    wait for the first op and the trailing wait for the iteration's end; by rank,
    then time."""
    tol = 1e-9 * max(tl.makespan, 1.0)
    return _idle(tl.start, tl.end, tl.order.rank_ptr, tl.makespan, tol)


@numba.njit(cache=True, nogil=True)
def _idle(start, end, ptr, makespan, tol):  # pragma: no cover (compiled)
    """A rank's ops run in order, so its gaps come out in time order: before each op
    (from the previous op's end, or 0), then after its last op until the makespan."""
    P = ptr.size - 1
    n = start.size + P
    who = np.empty(n, np.int64)
    lo = np.empty(n)
    hi = np.empty(n)
    k = 0
    for r in range(P):
        prev = 0.0
        for i in range(ptr[r], ptr[r + 1]):
            if start[i] - prev > tol:
                who[k], lo[k], hi[k] = r, prev, start[i]
                k += 1
            prev = end[i]
        if makespan - prev > tol:
            who[k], lo[k], hi[k] = r, prev, makespan
            k += 1
    return who[:k].copy(), lo[:k].copy(), hi[:k].copy()


# What `_events` counts. In flight: +1 when a forward starts, -1 when a chunk's last
# backward op ends (B, W, or the backward half of an F&B). Awaiting B: the same, but
# -1 when its B or I ends. Awaiting W only: +1 when an I ends, -1 when its W ends.
INFLIGHT, AWAITING_B, AWAITING_W = range(3)


def _delta_table() -> np.ndarray:
    """(mode, start 0 / end 1, op kind): what one op adds to the count `_events` keeps."""
    table = np.zeros((3, 2, 7), np.int64)
    for mode in (INFLIGHT, AWAITING_B):
        table[mode, 0, [F, FB]] = 1
    table[INFLIGHT, 1, [B, W, FB]] = -1
    table[AWAITING_B, 1, [B, I, FB]] = -1
    table[AWAITING_W, 1, I] = 1
    table[AWAITING_W, 1, W] = -1
    return table


DELTA = _delta_table()  # a global: numba freezes it into the compiled code


@numba.njit(cache=True, nogil=True)
def _events(kind, count_of, start, end, ptr):  # pragma: no cover (compiled)
    """Per op, a start event then an end event (`DELTA` of what is counted), rank by
    rank: the running count after each event; the step function of the changes, keeping
    the last of simultaneous ones on a rank (a chunk freed and the next taken at the
    same instant is no dip); each rank's peak (at least 0) and the event where the
    rank first reaches it."""
    P = ptr.size - 1
    n = 2 * start.size
    count = np.empty(n, np.int64)
    s_rank = np.empty(n, np.int64)
    s_time = np.empty(n)
    s_value = np.empty(n, np.int64)
    peak = np.zeros(P, np.int64)
    at_peak = np.zeros(P, np.int64)
    delta = DELTA[count_of]
    k = 0
    for r in range(P):
        c = 0  # each rank from 0: a full order ends every rank at 0, the ops that ran of a deadlocked one need not
        best = np.iinfo(np.int64).min
        for i in range(ptr[r], ptr[r + 1]):
            for h in range(2):  # the op's start event, then its end event
                e = 2 * i + h
                d = delta[h, kind[i]]
                t = start[i] if h == 0 else end[i]
                c += d
                count[e] = c
                if c > best:
                    best = c
                    at_peak[r] = e
                if d != 0:
                    if k > 0 and s_rank[k - 1] == r and s_time[k - 1] == t:
                        k -= 1  # simultaneous with the last change: keep only the later one
                    s_rank[k], s_time[k], s_value[k] = r, t, c
                    k += 1
        if ptr[r + 1] > ptr[r]:
            peak[r] = max(best, 0)
    return count, s_rank[:k].copy(), s_time[:k].copy(), s_value[:k].copy(), peak, at_peak
