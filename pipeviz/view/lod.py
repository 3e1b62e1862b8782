"""Level of detail for the timeline: what the ops source holds for a visible window.

At the sliders' ends (P=32, m=128, V=8: 65,536 ops on ~800 pixels) an op is a
quarter of a pixel wide. Drawn one box each, with outlines, the timeline turns
nearly white and the browser spends its time on boxes nobody can see. So, the way
trace viewers do it, per rank and in time order:

- an op at least MIN_PX pixels wide is its own box, as before (full detail);
- narrower ops fall into bins MIN_PX pixels wide; a bin is drawn as one box from its
  first op's start to its last op's end, in the colour (display kind and chunk) that
  covers most of its time (ties: the lower colour index), and consecutive bins of
  the same colour merge into one run;
- ops entirely outside the window, widened by CULL of its width on each side (so a
  short pan shows boxes at once), are left out;
- only single ops at least OUTLINE_PX wide get an outline, so outlines never cover
  the colours; the colours stay the palette's at every size;
- an idle gap narrower than BUBBLE_PX is not hatched (at P=32, m=128, V=8, 839 of
  its 940 gaps are under half a pixel, inside runs that cover them, and each hatched
  box cost the paint as much as a wide one); culled as ops are.

The in-flight lines over time get the same treatment (`thin`, M4: Jugel et al., VLDB
2014): a line's vertices fall into columns STEP_PX pixels wide and each column keeps
its first, lowest, highest and last vertex, in order, which draws the same column
(it spans the same values and enters and leaves at the same ones). At (32,128,8) the
32 lines held 82,000 vertices on ~800 pixels, and the browser's rasterising them was
half of its commit (about 24 ms of a keypress, traced); thinned, 23,800. Where a line is sparse (a jump's two vertices a column)
it is drawn as it is: at the defaults only a vertex repeating the one before is left out.

A box keeps the columns of a representative op (the first op of the box in its
colour) for hover, and `count`, the ops it stands for. When the window narrows
(zoom), the explorers level again and ops regain their own boxes. The page's
JavaScript twins `level` (static/columns.js, checked by tests/test_js_parity.py).
"""

from __future__ import annotations

import numba
import numpy as np

MIN_PX = 2.0
OUTLINE_PX = 4.0
CULL = 0.5
BUBBLE_PX = 1.0
STEP_PX = 2.0


def gaps(start: np.ndarray, end: np.ndarray, x0: float, x1: float, plot_px: float) -> np.ndarray:
    """Indices of the idle gaps hatched for the window [x0, x1] over plot_px pixels:
    those at least BUBBLE_PX wide there, within the window widened by CULL."""
    span = max(x1 - x0, 1e-300)
    px = max(float(plot_px), 1.0)
    lo, hi = x0 - CULL * span, x1 + CULL * span
    return np.flatnonzero(((end - start) * (px / span) >= BUBBLE_PX) & (end >= lo) & (start <= hi))


def thin(x: np.ndarray, y: np.ndarray, x0: float, x1: float, plot_px: float) -> np.ndarray:
    """Indices of the vertices of a path (x nondecreasing) drawn for the window
    [x0, x1] over plot_px pixels: per column STEP_PX pixels wide, the first, lowest,
    highest and last (the first of equal values), in order; outside the window widened
    by CULL, only the vertex next to it on either side, so the line reaches the edge."""
    span = max(x1 - x0, 1e-300)
    px = max(float(plot_px), 1.0)
    return _thin(x, y, x0 - CULL * span, x1 + CULL * span, span / px * STEP_PX)


def thin_lines(lines: dict, x0: float, x1: float, plot_px: float) -> dict:
    """A multi-line source's columns with each line's xs and ys thinned (`thin`)."""
    xs, ys = [], []
    for x, y in zip(lines["xs"], lines["ys"]):
        keep = thin(x, y, x0, x1, plot_px)
        xs.append(x[keep])
        ys.append(y[keep])
    return {**lines, "xs": xs, "ys": ys}


@numba.njit(cache=True, nogil=True)
def _thin(x, y, lo, hi, unit):  # pragma: no cover (compiled)
    n = x.size
    keep = np.empty(n, np.int64)
    k = 0
    i = 0
    while i < n and x[i] < lo:
        i += 1
    if i > 0:
        keep[0] = i - 1
        k = 1
    while i < n and x[i] <= hi:
        c = np.floor((x[i] - lo) / unit)
        low, high, j = i, i, i + 1
        while j < n and x[j] <= hi and np.floor((x[j] - lo) / unit) == c:
            if y[j] < y[low]:
                low = j
            if y[j] > y[high]:
                high = j
            j += 1
        for v in (i, min(low, high), max(low, high), j - 1):
            if k == 0 or keep[k - 1] != v:
                keep[k] = v
                k += 1
        i = j
    if i < n:
        keep[k] = i
        k += 1
    return keep[:k].copy()


def level(start: np.ndarray, end: np.ndarray, rank_ptr: np.ndarray, color: np.ndarray, n_colors: int,
          x0: float, x1: float, plot_px: float) -> dict[str, np.ndarray]:
    """The boxes for the window [x0, x1] drawn over plot_px pixels: `rep` (the op
    whose columns a box shows), `left`, `right`, `color`, `count` and `outline`."""
    span = max(x1 - x0, 1e-300)
    px = max(float(plot_px), 1.0)
    unit = span / px * MIN_PX  # the time MIN_PX pixels stand for
    lo, hi = x0 - CULL * span, x1 + CULL * span
    rep, left, right, col, count = _level(start, end, rank_ptr, color.astype(np.int64), n_colors, lo, hi, unit)
    outline = ((count == 1) & ((right - left) * (px / span) >= OUTLINE_PX)).astype(np.float64)
    return {"rep": rep, "left": left, "right": right, "color": col, "count": count, "outline": outline}


@numba.njit(cache=True, nogil=True)
def _level(start, end, rank_ptr, color, n_colors, lo, hi, unit):  # pragma: no cover (compiled)
    n = start.size
    rep = np.empty(n, np.int64)
    left = np.empty(n)
    right = np.empty(n)
    col = np.empty(n, np.int64)
    count = np.empty(n, np.int64)
    sums = np.zeros(n_colors)
    k = 0
    for r in range(rank_ptr.size - 1):
        in_bin = False  # a bin of narrow ops is being filled
        b_idx, b_first, b_last, b_count = 0, 0, 0, 0
        run_open = False  # the last box emitted is a run of bins that may grow
        run_bin = 0
        for i in range(rank_ptr[r], rank_ptr[r + 1] + 1):
            last = i == rank_ptr[r + 1]
            skip = last or end[i] < lo or start[i] > hi
            wide = not skip and end[i] - start[i] >= unit
            b = 0 if skip or wide else int(np.floor((start[i] - lo) / unit))
            if in_bin and (skip or wide or b != b_idx):  # close the bin
                best = 0
                for c in range(1, n_colors):
                    if sums[c] > sums[best]:
                        best = c
                first = b_first
                for j in range(b_first, b_last + 1):
                    if color[j] == best:
                        first = j
                        break
                if run_open and run_bin == b_idx - 1 and col[k - 1] == best:
                    right[k - 1] = end[b_last]
                    count[k - 1] += b_count
                else:
                    rep[k], left[k], right[k], col[k], count[k] = first, start[b_first], end[b_last], best, b_count
                    k += 1
                run_open, run_bin = True, b_idx
                for j in range(b_first, b_last + 1):
                    sums[color[j]] = 0.0
                in_bin = False
            if last:
                break
            if skip:
                run_open = False
                continue
            if wide:
                rep[k], left[k], right[k], col[k], count[k] = i, start[i], end[i], color[i], 1
                k += 1
                run_open = False
                continue
            if not in_bin:
                in_bin, b_idx, b_first, b_count = True, b, i, 0
            sums[color[i]] += end[i] - start[i]
            b_last = i
            b_count += 1
    return rep[:k].copy(), left[:k].copy(), right[:k].copy(), col[:k].copy(), count[:k].copy()
