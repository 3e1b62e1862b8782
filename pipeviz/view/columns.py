"""What each figure receives for one engine Result: numpy columns for its data
sources, and the properties of its models (ranges, heights, palette, texts).

`figure_view(res, unit, lang, plot_px)` returns {"sources": {name: columns},
"props": {model name: {attribute: value}}, "lines": the over-time lines unthinned};
`render.figures.Figures.apply` assigns the first two to the Bokeh models by name, and
the standalone page does the same with the output of its JavaScript twin
(static/columns.js).

Bokeh sends numeric numpy columns as binary (about 1 ms at any size); lists and
strings cost far more, so every column here is numeric except the few labels drawn
inside boxes wide enough to hold them. Colours are indices into a colour mapper.
"""

from __future__ import annotations

import numpy as np

from ..custom import Stuck
from ..engine import Result
from ..order import EB, EF, FB, B
from ..text import fill, template
from . import lod, memory_figure
from .palette import DISPLAY_KIND, KIND_COLORS, MAX_CHUNKS, chunk_palette, label_palette, line_style

ROW = 0.38  # half the height of a rank's row of boxes, in rank units
ROW_PX = 26  # timeline height per rank
# A micro-batch number is drawn when its box has room for it: its digits (10 px text,
# a digit about 5.7 px wide) and a little margin, so a one-digit box of 10 px is
# numbered (a forward box at V=2 in an 800 px frame, a 1F1B forward on a phone is not).
LABEL_PX_PER_CHAR = 6.0
LABEL_PAD_PX = 4.0
# The timeline's height: its axes' and title's room plus ROW_PX a rank, within these bounds.
TIMELINE_BASE_PX, TIMELINE_MIN_PX, TIMELINE_MAX_PX = 90, 160, 620
CHUNKS = "chunks"  # the unit field's choice that counts chunks; the other counts micro-batch equivalents


def chunk_of_stage(res: Result, stage: np.ndarray) -> np.ndarray:
    """Index within its rank of each stage's chunk, 0 .. chunks per rank - 1."""
    order = res.order
    if res.schedule.placement == "v":  # chunk 0 on the way down, chunk 1 on the way back
        nth = (np.arange(order.S) >= order.P).astype(np.int64)
    else:  # stage cP + r is chunk c of rank r
        nth = np.arange(order.S) // order.P
    return nth[np.maximum(stage, 0)]


def chunk_of(res: Result) -> np.ndarray:
    """(N,) index of each op's chunk within its rank (an F&B's: its forward part's)."""
    order = res.order
    encoder = (order.kind == EF) | (order.kind == EB)
    return np.where(encoder, 0, chunk_of_stage(res, order.stage))


def full_window(res: Result) -> tuple[float, float]:
    """The time range the timeline shows before any zoom (the x_range's reset values)."""
    makespan = res.metrics.makespan
    stuck = getattr(res, "stuck", None)
    if stuck is not None:  # a deadlocked order: room for its stuck ops and what they wait for
        makespan = max(makespan, float(stuck.right.max())) * 1.4
    makespan = makespan or 1.0  # nothing ran
    pad = makespan * 0.01
    return -pad, makespan + pad


def ops(res: Result, plot_px: float = 816.0, window: tuple[float, float] | None = None) -> dict[str, np.ndarray]:
    """The timeline's boxes for the visible window (default: the full view), at the
    level of detail its pixels allow (view/lod.py): one box per op where ops are wide
    enough, runs of one colour where they are not."""
    order, tl = res.order, res.timeline
    chunk = chunk_of(res)
    kind = order.kind.astype(np.int32)
    color = DISPLAY_KIND[kind] * MAX_CHUNKS + chunk
    x0, x1 = window if window is not None else full_window(res)
    boxes = lod.level(tl.start, tl.end, order.rank_ptr, color, len(KIND_COLORS) * MAX_CHUNKS, x0, x1, plot_px)
    rep = boxes["rep"]
    rank = order.rank[rep]
    r = rank.astype(np.float64)
    return {
        "left": boxes["left"],
        "right": boxes["right"],
        "top": r - ROW,
        "bottom": r + ROW,
        "rank": rank,
        "kind": kind[rep],
        "mb": order.mb[rep],
        "stage": order.stage[rep],
        "mb2": order.mb2[rep],
        "stage2": order.stage2[rep],
        "chunk": chunk[rep],
        "color": boxes["color"].astype(np.float64),
        "count": boxes["count"],
        "outline": boxes["outline"],
    }


def fb_halves(res: Result, boxes: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The lower (backward) half of every overlapped F&B box the timeline draws as
    its own (`boxes` from `ops`: a run of narrow ops keeps its one colour), coloured
    as a backward of the chunk its backward part runs on."""
    pair = np.flatnonzero((boxes["kind"] == FB) & (boxes["count"] == 1))
    rank = boxes["rank"][pair].astype(np.float64)
    return {
        "left": boxes["left"][pair],
        "right": boxes["right"][pair],
        "top": rank,
        "bottom": rank + ROW,
        "color": backward_half_color(res, boxes["stage2"][pair]).astype(np.float64),
    }


def backward_half_color(res: Result, stage2: np.ndarray) -> np.ndarray:
    """The palette index of an F&B box's lower half: a backward of the chunk its
    backward part (`stage2`) runs on."""
    return DISPLAY_KIND[B] * MAX_CHUNKS + chunk_of_stage(res, stage2)


def labels(res: Result, plot_px: float, window: tuple[float, float] | None = None) -> dict:
    """Micro-batch numbers, centred in the boxes that are wide enough in the visible
    window (default: the full view). An overlapped F&B has two: its forward's
    micro-batch in the upper half of its box, its backward's in the lower half
    (fb_halves), each inked for the half it is on."""
    order, tl = res.order, res.timeline
    x0, x1 = window if window is not None else (0.0, tl.makespan)
    px_per_unit = plot_px / max(x1 - x0, 1e-12)
    if (tl.end - tl.start).max(initial=0.0) * px_per_unit < LABEL_PX_PER_CHAR + LABEL_PAD_PX:  # no room for one digit
        return {"x": np.zeros(0), "y": np.zeros(0), "text": [], "dark": np.zeros(0)}
    fb = order.kind == FB
    digits = np.where(fb, np.maximum(_digits(order.mb), _digits(order.mb2)), _digits(order.mb))
    room = (tl.end - tl.start) * px_per_unit >= digits * LABEL_PX_PER_CHAR + LABEL_PAD_PX
    room &= (tl.end > x0) & (tl.start < x1)
    keep = np.flatnonzero(room)
    halves = fb[keep]
    # One label per op kept, and a second after each F&B's: rows `first` and `second`.
    n = len(keep) + int(halves.sum())
    first = np.arange(len(keep)) + np.cumsum(halves) - halves  # shifted by the F&Bs before
    second = first[halves] + 1
    x, y, dark = np.zeros(n), np.zeros(n), np.zeros(n)
    x[first] = (tl.start[keep] + tl.end[keep]) / 2
    x[second] = x[first[halves]]
    rank = order.rank[keep].astype(np.float64)
    y[first] = rank - np.where(halves, ROW / 2, 0.0)
    y[second] = rank[halves] + ROW / 2
    dark[first] = dark_labels(res, keep)
    dark[second] = _dark(res, backward_half_color(res, order.stage2[keep[halves]]))
    text = [""] * n
    for j, b in zip(first.tolist(), order.mb[keep].tolist()):
        text[j] = str(b)
    for j, b in zip(second.tolist(), order.mb2[keep[halves]].tolist()):
        text[j] = str(b)
    return {"x": x, "y": y, "text": text, "dark": dark}


def _digits(mb: np.ndarray) -> np.ndarray:
    return 1 + sum((mb >= 10**k).astype(np.int64) for k in range(1, 7))  # exact, unlike log10


def _dark(res: Result, color: np.ndarray) -> np.ndarray:
    dark = np.array(label_palette(res.order.chunks_per_rank)) == "#000000"
    return dark[color].astype(np.float64)


def dark_labels(res: Result, keep: np.ndarray) -> np.ndarray:
    """1.0 where the label on op `keep[i]` is drawn black, 0.0 where white: whichever
    contrasts more with its box (palette.label_color)."""
    return _dark(res, DISPLAY_KIND[res.order.kind[keep]] * MAX_CHUNKS + chunk_of(res)[keep])


def bubbles(res: Result, plot_px: float = 816.0, window: tuple[float, float] | None = None) -> dict[str, np.ndarray]:
    """The idle gaps hatched in the visible window (default: the full view): those a
    pixel wide or more there (view/lod.py)."""
    rank, start, end = res.metrics.bubbles
    x0, x1 = window if window is not None else full_window(res)
    keep = lod.gaps(start, end, x0, x1, plot_px)
    rank, start, end = rank[keep], start[keep], end[keep]
    r = rank.astype(np.float64)
    return {"left": start, "right": end, "top": r - ROW, "bottom": r + ROW, "rank": rank, "length": end - start}


def inflight_bars(res: Result, unit: str) -> dict[str, np.ndarray]:
    """Peak in-flight per rank, stacked (awaiting B, then awaiting W only) where the
    backward is split, with the closed-form value; in chunks or micro-batches. After
    balancing (BPipe) the bar is the peak resident and `before` the peak in flight
    (drawn only then; otherwise it is the bar itself)."""
    mt, th = res.metrics, res.theory
    scale = 1.0 if unit == CHUNKS else 1.0 / res.order.chunks_per_rank
    peak = mt.peak_chunks * scale
    held_b = (mt.peak_awaiting_b if mt.peak_awaiting_b is not None else mt.peak_chunks) * scale
    P = res.config.P
    before = peak.astype(np.float64)
    if res.balance is not None:
        peak = held_b = res.balance.peak_chunks * scale
    return {
        "rank": np.arange(P, dtype=np.float64),
        "zero": np.zeros(P),
        "b": held_b.astype(np.float64),
        "peak": peak.astype(np.float64),
        "w_only": (peak - held_b).astype(np.float64),
        # An order of one's own has no closed form: no diamonds.
        "theory": (th.peak_chunks * scale).astype(np.float64) if th is not None else np.full(P, np.nan),
        "before": before,
    }


def inflight_steps(res: Result, before: bool = False) -> dict:
    """Each rank's in-flight count over time as one step line (a multi_line path per
    rank, which draws far faster than a segment per step): from (0, 0), hold each
    value until the next change, then jump. After balancing, the resident count, and
    with before=True the in-flight count it came from (no lines without balancing).
    Values are float32: they are only drawn (no number is read off them), and at the
    sliders' ends the lines were half of what a keypress sent. Times stay float64: two
    events a rounding error apart are two steps to the engine, and float32 would put
    them at one instant, a drop and a climb at once."""
    P = res.config.P
    if res.balance is None:
        if before:
            return {"xs": [], "ys": [], "rank": np.zeros(0)}
        steps = res.metrics.inflight
    else:
        steps = res.metrics.inflight if before else res.balance.resident
    bounds = np.searchsorted(steps.rank, np.arange(1, P))  # steps are rank-major
    xs, ys = [], []
    for t, v in zip(np.split(steps.time, bounds), np.split(steps.value, bounds)):
        t = np.concatenate([[0.0], t])
        v = np.concatenate([[0.0], v.astype(np.float64)])
        xs.append(np.repeat(t, 2)[1:])  # t0, t1, t1, t2, t2, ..., tk, tk
        ys.append(np.repeat(v, 2)[:-1].astype(np.float32))  # v0, v0, v1, v1, ..., v(k-1), vk
    out = {"xs": xs, "ys": ys, "rank": np.arange(P, dtype=np.float64)}
    return out if before else {**out, **line_style(P)}  # the dashed lines before balancing: one style


def stuck_columns(res: Result, row: float, lang: str = "en") -> dict:
    """Where a deadlocked order stuck: each stuck rank's next op, drawn after its last
    op that ran in the op's colour, and what it waits for written beside it."""
    s: Stuck | None = getattr(res, "stuck", None)
    if s is None:
        empty = np.zeros(0)
        return {"left": empty, "right": empty, "top": empty, "bottom": empty, "rank": empty, "color": empty,
                "x": empty, "y": empty, "op": [], "waits": [], "label": []}
    r = s.rank.astype(np.float64)
    color = DISPLAY_KIND[s.kind] * MAX_CHUNKS + chunk_of_stage(res, s.stage)
    waits = [fill("own.waits", lang, op=w, rank=wr) for w, wr in zip(s.waits, s.waits_rank.tolist())]
    label = [fill("own.waits_label", lang, op=t, dep=d, rank=wr)
             for t, d, wr in zip(s.token, s.waits_token, s.waits_rank.tolist())]
    return {"left": s.left, "right": s.right, "top": r - row, "bottom": r + row, "rank": r,
            "color": color.astype(np.float64), "x": s.right, "y": r, "op": list(s.op), "waits": waits,
            "label": label}


def timeline_height(P: int) -> int:
    return max(TIMELINE_MIN_PX, min(TIMELINE_MAX_PX, TIMELINE_BASE_PX + ROW_PX * P))


def props(res: Result, unit: str, lang: str) -> dict:
    """The models' properties for `res`, by model name (see render.figures)."""
    P = res.config.P
    chunks = res.order.chunks_per_rank
    x0, x1 = full_window(res)
    height = timeline_height(P)
    theory_top = res.theory.peak_chunks.max() if res.theory is not None else 0
    top = float(max(res.metrics.peak_chunks.max(initial=0), theory_top, 1))
    if unit != CHUNKS:
        top /= chunks
    in_flight = "axis.inflight_chunks" if chunks > 1 else "axis.inflight"
    balanced = res.balance is not None
    return {
        "x_range": {"start": x0, "end": x1, "reset_start": x0, "reset_end": x1},
        "y_range": {"start": P - 0.5, "end": -0.5, "reset_start": P - 0.5, "reset_end": -0.5},
        "rank_ticker": {"ticks": list(range(P))},
        "op_colors": {"palette": chunk_palette(chunks)},
        "timeline": {"height": height},
        "inflight": {"height": height},
        "w_only": {"visible": res.order.has_w},
        "before_bars": {"visible": balanced},
        "bars_x_range": {"start": 0, "end": top * 1.15},
        "bars_xaxis": {"axis_label": fill("axis.peak_resident" if balanced else "axis.peak", lang,
                                          unit=template(f"choice.unit.{unit}", lang))},
        "over_time_y_range": {"start": 0, "end": float(res.metrics.peak_chunks.max(initial=0)) * 1.08 + 0.5},
        "over_time_yaxis": {"axis_label": template(in_flight, lang)},
        "rank_colors": {"high": max(P - 1, 1)},
        **texts(lang),
        **(balanced_texts(lang) if balanced else {}),
    }


def balanced_texts(lang: str) -> dict:
    """The in-flight views' titles after balancing (they replace `texts`' own)."""
    return {
        "inflight_title": {"text": template("title.resident", lang)},
        "over_time_title": {"text": template("title.resident_over_time", lang)},
    }


def texts(lang: str) -> dict:
    """The figures' fixed words in `lang`."""
    t = lambda key: template(key, lang)  # noqa: E731
    kind_names = [t(f"kind.{k}") for k in ("F", "B", "I", "W", "FB", "EF", "EB")]
    return {
        "timeline_title": {"text": t("title.timeline")},
        "inflight_title": {"text": t("title.inflight")},
        "over_time_title": {"text": t("title.over_time")},
        "timeline_xaxis": {"axis_label": t("axis.time")},
        "over_time_xaxis": {"axis_label": t("axis.time")},
        "rank_axis": {"axis_label": t("axis.rank")},
        "kind_names": {"args": {"names": kind_names}},
        "ops_hover": {"tooltips": [[t("hover.op"), "@kind{custom} · " + t("hover.mb") + " @mb@mb2{custom}"],
                                   [t("axis.rank"), "@rank"],
                                   [t("hover.stage"), "@stage (" + t("hover.chunk") + " @chunk)@stage2{custom}"],
                                   [t("axis.time"), "@left{0.[000]} → @right{0.[000]}"],
                                   [t("hover.count"), "@count"]]},
        "stuck_hover": {"tooltips": [[t("hover.stuck"), "@op"], [t("hover.waits"), "@waits"]]},
        # "@rank{why}": the sentence static/teach_models.js makes of the gap's rank, next op and what it waits for.
        "bubbles_hover": {"tooltips": [[t("hover.why"), "@rank{why}"], [t("hover.idle"), "@length{0.[000]}"],
                                       [t("axis.time"), "@left{0.[000]} → @right{0.[000]}"]]},
        "bars_hover": {"tooltips": [[t("axis.rank"), "@rank"], [t("hover.peak"), "@peak{0.[00]}"],
                                    [t("key.awaiting_b"), "@b{0.[00]}"], [t("key.awaiting_w"), "@w_only{0.[00]}"],
                                    [t("key.closed_form"), "@theory{0.[00]}"], [t("key.before"), "@before{0.[00]}"]]},
    }


def figure_view(res: Result, unit: str = "micro-batches", lang: str = "en", plot_px: float = 816.0,
                mem=None, over_time: str = "count") -> dict:
    """`mem`: the run's `memory.Memory` with a model (None without); `over_time`:
    "count" or "GiB" (the over-time view in bytes, with a model)."""
    boxes = ops(res, plot_px)
    sources = {
        "ops": boxes,
        "fb_halves": fb_halves(res, boxes),
        "stuck_ops": stuck_columns(res, ROW, lang),
        "labels": labels(res, plot_px),
        "bubbles": bubbles(res, plot_px),
        "bars": inflight_bars(res, unit),
        "steps": inflight_steps(res),
        "steps_before": inflight_steps(res, before=True),
    }
    more_sources, more_props = memory_figure.figure_parts(res, mem, over_time, lang, timeline_height(res.config.P))
    sources.update(more_sources)
    # The over-time lines at every vertex, which a zoom thins again (`over_time_lines`).
    lines = {name: sources[name] for name in LINES}
    sources.update(over_time_lines(lines, plot_px, full_window(res)))
    return {"sources": sources, "props": {**props(res, unit, lang), **more_props}, "lines": lines}


LINES = ("steps", "steps_before")  # the multi-line sources thinned to the pixels (lod.thin)


def over_time_lines(lines: dict, plot_px: float, window: tuple[float, float]) -> dict:
    """The over-time lines drawn for the visible window (view/lod.py's `thin`): the
    `lines` of `figure_view`, each line's vertices kept where they show."""
    return {name: lod.thin_lines(lines[name], window[0], window[1], plot_px) for name in LINES}
