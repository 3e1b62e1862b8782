"""Level of detail for the timeline (pipeviz/view/lod.py): every op is accounted
for, wide ops are their own boxes, narrow ones merge into runs of their dominant
colour, and zooming in brings full detail back; the in-flight lines over time keep,
per column of pixels, the vertices that draw it (M4)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeviz import Config, run
from pipeviz.view import lod
from pipeviz.view.columns import bubbles, chunk_of, figure_view, full_window, inflight_steps, ops, over_time_lines
from pipeviz.view.palette import DISPLAY_KIND, MAX_CHUNKS

PX = 816.0


def colors(res) -> np.ndarray:
    return DISPLAY_KIND[res.order.kind] * MAX_CHUNKS + chunk_of(res)


def check_gaps(res, window, px=PX):
    """The hatched gaps for any window: exactly the engine's idle gaps at least
    BUBBLE_PX wide there and within the culled window, each as it is."""
    rank, start, end = res.metrics.bubbles
    x0, x1 = window
    span = x1 - x0
    lo, hi = x0 - lod.CULL * span, x1 + lod.CULL * span
    want = ((end - start) * px / span >= lod.BUBBLE_PX) & (end >= lo) & (start <= hi)
    got = bubbles(res, px, window)
    assert np.array_equal(got["left"], start[want]) and np.array_equal(got["right"], end[want])
    assert np.array_equal(got["rank"], rank[want]) and np.array_equal(got["length"], (end - start)[want])
    return got


def check_boxes(res, window, px=PX):
    """Invariants of the boxes for any window."""
    tl, order = res.timeline, res.order
    x0, x1 = window
    span = x1 - x0
    unit = span / px * lod.MIN_PX
    box = ops(res, px, window)
    color = colors(res)
    lo, hi = x0 - lod.CULL * span, x1 + lod.CULL * span
    shown = (tl.end >= lo) & (tl.start <= hi)
    assert int(box["count"].sum()) == int(shown.sum())  # every op in reach, once
    for r in range(order.P):
        on = np.flatnonzero(box["rank"] == r)
        left, right = box["left"][on], box["right"][on]
        assert np.all(left[1:] >= right[:-1])  # in time order, never overlapping
        ops_r = np.arange(order.rank_ptr[r], order.rank_ptr[r + 1])
        ops_r = ops_r[shown[ops_r]]
        wide = ops_r[tl.end[ops_r] - tl.start[ops_r] >= unit]
        singles = on[box["count"][on] == 1]
        # Full detail: an op at least MIN_PX wide is a box of its own, exactly.
        assert set(zip(tl.start[wide].tolist(), tl.end[wide].tolist())) <= set(
            zip(box["left"][singles].tolist(), box["right"][singles].tolist()))
        for j in on[box["count"][on] > 1]:  # a run: narrow ops only, its colour dominant
            inside = ops_r[(tl.start[ops_r] >= box["left"][j]) & (tl.end[ops_r] <= box["right"][j])]
            assert len(inside) == box["count"][j]
            assert np.all(tl.end[inside] - tl.start[inside] < unit)
            time_by_color = np.bincount(color[inside], weights=tl.end[inside] - tl.start[inside])
            assert time_by_color[int(box["color"][j])] == time_by_color.max()
    width_px = (box["right"] - box["left"]) * px / span
    assert np.array_equal(box["outline"] == 1, (box["count"] == 1) & (width_px >= lod.OUTLINE_PX))
    check_gaps(res, window, px)
    return box


def test_sliders_ends_draw_far_fewer_boxes_without_outlines():
    res = run(Config("interleaved", 32, 128, 8))
    assert res.order.n_ops == 65536
    box = check_boxes(res, full_window(res))
    # At most one box per MIN_PX pixels per rank, plus the ops wide enough to be their own.
    assert len(box["left"]) <= 32 * PX / lod.MIN_PX
    assert box["outline"].sum() == 0  # nothing is wide enough for an outline: the colours show
    assert set(np.unique(box["color"]).tolist()) >= {0, MAX_CHUNKS, 7, MAX_CHUNKS + 7}  # F and B, chunks 0 and 7
    # Of its 940 idle gaps, those under a pixel lie inside runs of narrow ops: not hatched.
    assert len(res.metrics.bubbles[0]) == 940 and len(bubbles(res, PX)["left"]) < 120


def test_the_defaults_are_one_box_per_op_with_outlines():
    res = run(Config("1f1b", 4, 8))
    box = check_boxes(res, full_window(res))
    assert np.array_equal(box["left"], res.timeline.start) and np.array_equal(box["right"], res.timeline.end)
    assert box["count"].tolist() == [1] * 64 and box["outline"].tolist() == [1.0] * 64
    assert len(bubbles(res, PX)["left"]) == len(res.metrics.bubbles[0]) == 15  # every gap is hatched


def test_zooming_in_brings_every_op_back():
    res = run(Config("zb-v", 32, 128, 2))
    full = check_boxes(res, full_window(res))
    assert full["count"].max() > 1
    makespan = res.metrics.makespan
    window = (0.4 * makespan, 0.4 * makespan + 8.0)  # 8 time units over 816 px: every op tens of px wide
    zoomed = check_boxes(res, window)
    assert zoomed["count"].max() == 1 and zoomed["outline"].min() == 1
    inside = (res.timeline.end >= window[0] - 4) & (res.timeline.start <= window[1] + 4)
    assert len(zoomed["left"]) == int(inside.sum())


def test_zooming_in_hatches_the_narrow_gaps():
    res = run(Config("interleaved", 32, 128, 8))
    rank, start, end = res.metrics.bubbles
    narrow = int(np.argmin(end - start))
    gap = (int(rank[narrow]), float(start[narrow]))
    full = bubbles(res, PX)
    assert gap not in set(zip(full["rank"].tolist(), full["left"].tolist()))
    zoomed = check_gaps(res, (start[narrow] - 1.0, end[narrow] + 1.0))
    assert gap in set(zip(zoomed["rank"].tolist(), zoomed["left"].tolist()))


CONFIGS = st.sampled_from([
    Config("1f1b", 8, 32), Config("interleaved", 16, 64, 4), Config("interleaved", 32, 128, 8),
    Config("zb-v", 16, 64, 2), Config("zb-h2", 12, 48), Config("gpipe", 32, 128),
])


@given(CONFIGS, st.floats(0, 1), st.floats(1e-3, 1), st.sampled_from([120.0, 400.0, 816.0, 1900.0]))
def test_any_window_accounts_for_every_op(cfg, a, width, px):
    res = run(cfg)
    x0, x1 = full_window(res)
    span = (x1 - x0) * width
    start = x0 + (x1 - x0 - span) * a
    check_boxes(res, (start, start + span), px)


@pytest.mark.parametrize("window", [(0.0, 1e-9), (-5.0, -1.0), (1e9, 1e9 + 1)])
def test_degenerate_windows(window):
    res = run(Config("interleaved", 8, 16, 2))
    check_boxes(res, window)


def test_the_app_levels_again_when_the_timeline_is_zoomed():
    from bokeh.events import RangesUpdate

    from pipeviz.served import Explorer

    app = Explorer(schedule="interleaved", P=32, m=128, V=8)
    source = app.figures.sources["ops"]
    assert source.data["count"].max() > 1
    gaps = app.figures.sources["bubbles"]
    assert len(gaps.data["left"]) < len(app.session.result.metrics.bubbles[0])
    app.figures.timeline._trigger_event(RangesUpdate(app.figures.timeline, x0=10.0, x1=14.0, y0=31.5, y1=-0.5))
    assert source.data["count"].max() == 1 and source.data["outline"].min() == 1
    assert np.array_equal(gaps.data["left"], bubbles(app.session.result, app.label_px(), (10.0, 14.0))["left"])
    assert len(app.figures.sources["labels"].data["text"]) > 0  # micro-batch numbers where boxes have room
    # The over-time lines too: at every vertex there, the vertices in the window.
    full = inflight_steps(app.session.result)
    steps = app.figures.sources["steps"].data
    want = over_time_lines({"steps": full, "steps_before": app.figures.sources["steps_before"].data}, app.label_px(),
                           (10.0, 14.0))["steps"]
    assert all(np.array_equal(a, b) for a, b in zip(steps["xs"], want["xs"]))
    inside = lambda xs: sum(int(((x >= 10.0) & (x <= 14.0)).sum()) for x in xs)  # noqa: E731
    assert inside(steps["xs"]) == inside(full["xs"])  # four time units over the plot: nothing to thin
    app.session.P = 31  # a new view opens at the full view again
    assert source.data["count"].max() > 1
    assert sum(map(len, app.figures.sources["steps"].data["xs"])) < sum(map(len, inflight_steps(app.session.result)["xs"])) / 2


# -- the in-flight lines over time (lod.thin) ---------------------------------------------


def columns_of(x, lo, unit):
    return np.floor((x - lo) / unit)


def check_thin(x, y, x0, x1, px):
    """`thin` keeps a subsequence that, in every column of the culled window, starts and
    ends at the column's first and last vertex and reaches its lowest and highest
    value, with at most four vertices (M4); outside the culled window only the vertex
    next to it on either side."""
    keep = lod.thin(x, y, x0, x1, px)
    assert np.all(np.diff(keep) > 0)
    span = max(x1 - x0, 1e-300)
    lo, hi = x0 - lod.CULL * span, x1 + lod.CULL * span
    unit = span / max(px, 1.0) * lod.STEP_PX
    inside = np.flatnonzero((x >= lo) & (x <= hi))
    outside = np.setdiff1d(keep, inside)
    assert set(outside.tolist()) <= {int(np.searchsorted(x, lo)) - 1, int(inside[-1]) + 1 if inside.size else -2,
                                     int(np.searchsorted(x, lo))}
    assert len(outside) <= 2
    kept = set(keep.tolist())
    col = columns_of(x[inside], lo, unit)
    for c in np.unique(col):
        members = inside[col == c]
        mine = [i for i in members.tolist() if i in kept]
        assert mine[0] == members[0] and mine[-1] == members[-1]
        assert y[mine].min() == y[members].min() and y[mine].max() == y[members].max()
        assert len(mine) <= 4
        if len(members) <= 2:
            assert mine == members.tolist()  # a jump's two vertices, drawn as they are
    return keep


PATHS = st.lists(st.tuples(st.integers(0, 60), st.integers(-3, 3)), min_size=1, max_size=300)


@given(PATHS, st.floats(-20, 80), st.floats(0.01, 100), st.sampled_from([1.0, 7.0, 120.0, 816.0]))
def test_thin_keeps_what_every_column_draws(steps, x0, width, px):
    gaps, values = np.array(steps, dtype=np.float64).T
    x = np.cumsum(gaps) / 4.0  # nondecreasing, with repeated times (a step's jump)
    y = values.astype(np.float32)
    check_thin(x, y, x0, x0 + width, px)


@pytest.mark.parametrize(("cfg", "most"), [(Config("interleaved", 32, 128, 8), 1 / 3),  # 82,000 vertices on 816 px
                                           (Config("zb-v", 32, 128, 2), 0.9),  # 20,500
                                           (Config("1f1b", 4, 8), 1.0)])  # the defaults: drawn as they are
def test_the_lines_drawn_are_thinned_where_they_are_dense(cfg, most):
    res = run(cfg)
    view = figure_view(res, plot_px=PX)
    x0, x1 = full_window(res)
    full, drawn = view["lines"]["steps"], view["sources"]["steps"]
    for x, y, dx, dy in zip(full["xs"], full["ys"], drawn["xs"], drawn["ys"]):
        keep = check_thin(x, y, x0, x1, PX)
        assert np.array_equal(dx, x[keep]) and np.array_equal(dy, y[keep]) and dy.dtype == np.float32
        if most == 1.0:  # only a vertex repeating the one before it (a change at time 0) is left out
            left_out = np.setdiff1d(np.arange(x.size), keep)
            assert np.all((x[left_out] == x[left_out - 1]) & (y[left_out] == y[left_out - 1])), left_out
    before, after = sum(map(len, full["xs"])), sum(map(len, drawn["xs"]))
    if most < 1.0:
        assert after < before * most
