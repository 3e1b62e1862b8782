"""Columns for the figures, as numpy arrays, built from one engine Result.

Bokeh sends numeric numpy columns as binary (about 1 ms at any size); lists and
strings cost far more, so every column here is numeric except the few labels drawn
inside boxes wide enough to hold them. Colors are indices into a color mapper.
"""

from __future__ import annotations

import numpy as np

from ..engine import Result

# Okabe-Ito, safe for the common color-vision deficiencies: F blue, B vermillion,
# W bluish green. Later chunks are lighter shades of the same hue.
KIND_COLORS = ("#0072B2", "#D55E00", "#009E73")
W_ONLY_COLOR = "#9fd8c5"  # lighter: chunks holding only what W needs
BUBBLE_HATCH = "#6b6b6b"
RANK_PALETTE = (  # cividis-like, dark = rank 0: the staircase reads top to bottom
    "#00204d", "#00336f", "#39486b", "#575c6d", "#707173", "#8a8779", "#a69d75", "#c4b56c",
    "#e4cf5b", "#ffea46",
)
ROW = 0.38  # half the height of a rank's row of boxes, in rank units
MAX_CHUNKS = 8  # color index = kind * MAX_CHUNKS + chunk
LABEL_PX_PER_CHAR = 7.5  # a micro-batch number is drawn when its box has room for it


def chunk_of(res: Result) -> np.ndarray:
    """(N,) index of each op's chunk within its rank, 0 .. chunks per rank - 1."""
    order = res.order
    if res.schedule.placement == "v":  # chunk 0 on the way down, chunk 1 on the way back
        nth = (np.arange(order.S) >= order.P).astype(np.int64)
    else:  # stage cP + r is chunk c of rank r
        nth = np.arange(order.S) // order.P
    return nth[order.stage]


def ops(res: Result) -> dict[str, np.ndarray]:
    order, tl = res.order, res.timeline
    rank = order.rank.astype(np.float64)
    chunk = chunk_of(res)
    return {
        "left": tl.start,
        "right": tl.end,
        "top": rank - ROW,
        "bottom": rank + ROW,
        "rank": order.rank,
        "kind": order.kind.astype(np.int32),
        "mb": order.mb,
        "stage": order.stage,
        "chunk": chunk,
        "color": (order.kind.astype(np.int32) * MAX_CHUNKS + chunk).astype(np.float64),
    }


def labels(res: Result, plot_px: float) -> dict:
    """Micro-batch numbers, centred in the boxes that are wide enough at full view."""
    order, tl = res.order, res.timeline
    px_per_unit = plot_px / max(tl.makespan, 1e-12)
    digits = 1 + sum((order.mb >= 10**k).astype(np.int64) for k in range(1, 7))  # exact, unlike log10
    room = (tl.end - tl.start) * px_per_unit >= (digits + 1) * LABEL_PX_PER_CHAR
    keep = np.flatnonzero(room)
    return {
        "x": (tl.start[keep] + tl.end[keep]) / 2,
        "y": order.rank[keep].astype(np.float64),
        "text": [str(b) for b in order.mb[keep].tolist()],
    }


def bubbles(res: Result) -> dict[str, np.ndarray]:
    rank, start, end = res.metrics.bubbles
    r = rank.astype(np.float64)
    return {"left": start, "right": end, "top": r - ROW, "bottom": r + ROW, "rank": rank, "length": end - start}


def inflight_bars(res: Result, unit: str) -> dict[str, np.ndarray]:
    """Peak in-flight per rank, stacked (awaiting B, then awaiting W only) where the
    backward is split, with the closed-form value; in chunks or micro-batches."""
    mt, th = res.metrics, res.theory
    scale = 1.0 if unit == "chunks" else 1.0 / res.order.chunks_per_rank
    peak = mt.peak_chunks * scale
    held_b = (mt.peak_awaiting_b if mt.peak_awaiting_b is not None else mt.peak_chunks) * scale
    P = res.config.P
    return {
        "rank": np.arange(P, dtype=np.float64),
        "zero": np.zeros(P),
        "b": held_b.astype(np.float64),
        "peak": peak.astype(np.float64),
        "w_only": (peak - held_b).astype(np.float64),
        "theory": (th.peak_chunks * scale).astype(np.float64),
    }


def inflight_steps(res: Result) -> dict:
    """Each rank's in-flight count over time as one step line (a multi_line path per
    rank, which draws far faster than a segment per step): from (0, 0), hold each
    value until the next event, then jump."""
    steps = res.metrics.inflight
    P = res.config.P
    bounds = np.searchsorted(steps.rank, np.arange(1, P))  # events are rank-major
    xs, ys = [], []
    for t, v in zip(np.split(steps.time, bounds), np.split(steps.value, bounds)):
        t = np.concatenate([[0.0], t])
        v = np.concatenate([[0.0], v.astype(np.float64)])
        xs.append(np.repeat(t, 2)[1:])  # t0, t1, t1, t2, t2, ..., tk, tk
        ys.append(np.repeat(v, 2)[:-1])  # v0, v0, v1, v1, ..., v(k-1), vk
    return {"xs": xs, "ys": ys, "rank": np.arange(P, dtype=np.float64)}


def chunk_palette(base: tuple[str, str, str], chunks: int) -> list[str]:
    """kind * MAX_CHUNKS + chunk -> color: each kind's base color for chunk 0, lighter
    shades for the later chunks (up to 60% toward white), so a reader can follow the
    loops of an interleaved or V schedule."""
    out = []
    for color in base:
        r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
        for c in range(MAX_CHUNKS):
            t = 0.6 * c / (chunks - 1) if chunks > 1 and c < chunks else 0.0
            mix = [round(x + (255 - x) * t) for x in (r, g, b)]
            out.append("#{:02x}{:02x}{:02x}".format(*mix))
    return out
