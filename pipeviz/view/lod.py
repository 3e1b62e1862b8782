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

import numpy as np

from ..compiled import K

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
    # The kernel reads contiguous float64 (the lines' values are float32): widening
    # keeps every comparison it makes as it was.
    x, y = np.ascontiguousarray(x, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64)
    return K.thin(x, y, x0 - CULL * span, x1 + CULL * span, span / px * STEP_PX)


def thin_lines(lines: dict, x0: float, x1: float, plot_px: float) -> dict:
    """A multi-line source's columns with each line's xs and ys thinned (`thin`)."""
    xs, ys = [], []
    for x, y in zip(lines["xs"], lines["ys"]):
        keep = thin(x, y, x0, x1, plot_px)
        xs.append(x[keep])
        ys.append(y[keep])
    return {**lines, "xs": xs, "ys": ys}


def level(start: np.ndarray, end: np.ndarray, rank_ptr: np.ndarray, color: np.ndarray, n_colors: int,
          x0: float, x1: float, plot_px: float) -> dict[str, np.ndarray]:
    """The boxes for the window [x0, x1] drawn over plot_px pixels: `rep` (the op
    whose columns a box shows), `left`, `right`, `color`, `count` and `outline`."""
    span = max(x1 - x0, 1e-300)
    px = max(float(plot_px), 1.0)
    unit = span / px * MIN_PX  # the time MIN_PX pixels stand for
    lo, hi = x0 - CULL * span, x1 + CULL * span
    start, end = np.ascontiguousarray(start, dtype=np.float64), np.ascontiguousarray(end, dtype=np.float64)
    rep, left, right, col, count = K.level(start, end, np.ascontiguousarray(rank_ptr, dtype=np.int64),
                                           np.ascontiguousarray(color, dtype=np.int64), n_colors, lo, hi, unit)
    outline = ((count == 1) & ((right - left) * (px / span) >= OUTLINE_PX)).astype(np.float64)
    return {"rep": rep, "left": left, "right": right, "color": col, "count": count, "outline": outline}

