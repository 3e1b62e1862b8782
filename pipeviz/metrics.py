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

import numpy as np

from .compiled import K
from .order import Order
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
    P = order.P
    # One compiled call measures everything (awaiting B and W too, where the backward
    # is split): at small sizes each call into compiled code, each array it returns
    # and each numpy call cost as much as the arithmetic.
    (makespan, longest, busy, idle, span, bubbles, inflight_steps, peak, peak_mb,
     awaiting) = K.measure_timeline(order.kind, tl.start, tl.end, order.rank_ptr, order.chunks_per_rank)
    split = awaiting is not None
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


def _clean(x: float) -> float:
    """Round away float noise (1e-16 bubbles) so a zero bubble reads as zero."""
    return 0.0 if abs(x) < 1e-12 else float(x)


def idle_intervals(tl: Timeline) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every idle interval of every rank within [0, makespan], including the leading
    wait for the first op and the trailing wait for the iteration's end; by rank,
    then time."""
    tol = 1e-9 * max(tl.makespan, 1.0)
    return K.idle_gaps(tl.start, tl.end, tl.order.rank_ptr, tl.makespan, tol)

