"""The teaching view: why a rank idles, the critical path, the data the time cursor
reads, the projector's sizes, and the slide's legend and readout.

`figure_view(res, state, lang)` returns {"sources", "props"} by model name, as
`columns.figure_view` does, for the models `render.teach` adds to the figures; both
explorers apply it after the main figure view (static/teach.js is the twin). What
only the browser does (hover text, following a micro-batch, playing the cursor) is
written once, in static/teach_models.js, and reads its words from the "teach_words" source.

Fields: `critical` (highlight one critical path) and `projector` (larger text and
boxes), both in the URL.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from html import unescape

import numpy as np

from ..causes import NONE, critical_path, gap_waits
from ..engine import Result
from ..order import FB, KIND_NAMES, I
from ..text import fill, template
from . import columns, readouts
from .feature import Feature
from .field import Field

FIELDS = (
    Field(name="critical", kind="bool", default=False),
    Field(name="projector", kind="bool", default=False),
)

# How a gap ends (the waits source's "form" column).
WAITS_OTHER, WAITS_OWN, WAITS_END = 0, 1, 2
# The projector: text and rows this much larger.
PROJECTOR_SCALE = 1.6
# Font sizes in px, normal and with the projector on (Bokeh's own defaults when off).
FONTS = {
    "title": (13, 22),
    "axis_label": (13, 20),
    "tick": (11, 18),
    "label": (10, 16),
    "legend": (13, 20),
}
# A figure's legend, and each line of its readout (the projector's wraps to three), in px.
SLIDE_LEGEND_PX, SLIDE_LINE_PX = 30, 26
# The models whose text the projector enlarges.
# The micro-batch labels' two glyphs, black and white (render/figures.py draws one of each).
LABEL_GLYPHS = ("labels_glyph_dark", "labels_glyph_light")
TITLES = ("timeline_title", "inflight_title", "over_time_title", "sweep_m_title", "sweep_v_title")
AXES = ("timeline_xaxis", "rank_axis", "bars_xaxis", "over_time_xaxis", "over_time_yaxis", "sweep_m_xaxis",
        "sweep_m_yaxis", "sweep_v_xaxis", "sweep_v_yaxis")
# The op kinds as the browser names them: docs/model.md's letters (an input-gradient
# backward is the split schedules' B).
KIND_LETTERS = [("B" if k == I else name) for k, name in enumerate(KIND_NAMES)]
LAYOUT_SEP = readouts.LAYOUTS["sep"]
# Where a figure's readout line may wrap when it is wider than the plot, best first:
# between the summary's parts (the separator goes), after a clause, at any space. A
# piece wider than the plot by itself is left whole.
SLIDE_BREAKS = ((LAYOUT_SEP,), (": ", "\uff1a", ", ", "\uff0c"), (" ",))
# Room kept free at a figure's right edge when its readout wraps, in px.
SLIDE_MARGIN_PX = 8
# Each line a readout title gains past its first, as a multiple of its font size
# (as Bokeh spaces a title's lines, measured in its PNG: 15 px at 13 px, 12 at 11).
SLIDE_LINE_HEIGHT = 1.15
# Playing the iteration: one plays in PLAY_SECONDS at 1x, and the speed buttons
# multiply that pace (static/teach_models.js gets both through its refs).
PLAY_SECONDS = 12
PLAY_SPEEDS = (0.25, 0.5, 1, 2, 4)
# Words the browser code (static/teach_models.js) reads, by key.
WORD_KEYS = ("why.other", "why.own", "why.end", "why.hint", "op.desc", "op.pair", "op.encoder", "follow.on",
             "follow.merged",
             "play.play", "play.pause", "play.time", "play.speed", "critical.note", "page.title")


def label_scale(state: dict) -> float:
    """The micro-batch labels' font grows with the projector: fit them to a plot this
    many times narrower."""
    return PROJECTOR_SCALE if state.get("projector") else 1.0


def next_ops(res: Result, rank: np.ndarray, end: np.ndarray) -> np.ndarray:
    """For each idle gap, its rank's next op (the one that starts when the gap ends),
    or NONE for a trailing gap."""
    tl, ptr = res.timeline, res.order.rank_ptr
    tol = 1e-9 * max(1.0, tl.makespan)
    out = np.full(rank.size, NONE, dtype=np.int64)
    for r in np.unique(rank).tolist():
        sel = np.flatnonzero(rank == r)
        lo, hi = int(ptr[r]), int(ptr[r + 1])
        i = np.searchsorted(tl.start[lo:hi], end[sel] - tol) + lo
        out[sel] = np.where(i < hi, i, NONE)
    return out


def _op_columns(res: Result, idx: np.ndarray, prefix: str) -> dict[str, np.ndarray]:
    """kind, mb, stage, mb2, stage2, rank and end of the ops `idx` (-1 where NONE)."""
    order, tl = res.order, res.timeline
    some = idx >= 0
    at = np.where(some, idx, 0)

    def pick(values: np.ndarray, dtype=np.int64) -> np.ndarray:
        if values.size == 0:
            return np.full(idx.size, -1, dtype=dtype)
        return np.where(some, values[at], -1).astype(dtype)

    return {
        f"{prefix}_kind": pick(order.kind.astype(np.int64)), f"{prefix}_mb": pick(order.mb),
        f"{prefix}_stage": pick(order.stage), f"{prefix}_mb2": pick(order.mb2), f"{prefix}_stage2": pick(order.stage2),
        f"{prefix}_rank": pick(order.rank), f"{prefix}_end": pick(tl.end, np.float64),
    }


def waits(res: Result) -> dict[str, np.ndarray]:
    """One row per idle gap, in the bubbles' order: where it is, the rank's next op,
    and the op the gap waits for (a dependency on another rank, else the next op
    itself; nothing for the wait at the end of the iteration)."""
    rank, start, end = res.metrics.bubbles
    dep = gap_waits(res.timeline, rank, end)
    nxt = next_ops(res, rank, end)
    order = res.order
    form = np.where(dep == NONE, WAITS_END, np.where(order.rank[np.maximum(dep, 0)] != rank, WAITS_OTHER, WAITS_OWN))
    if order.n_ops == 0:
        form = np.full(rank.size, WAITS_END)
    return {"rank": rank.astype(np.int64), "left": start, "right": end, "form": form.astype(np.int64),
            **_op_columns(res, nxt, "next"), **_op_columns(res, dep, "dep")}


def critical(res: Result, on: bool) -> tuple[dict, dict]:
    """The critical path's ops (boxes) and its links between consecutive ops (from
    one's end to the next one's start, across ranks), or nothing when off."""
    tl, order = res.timeline, res.order
    path = critical_path(tl) if on else np.zeros(0, dtype=np.int64)
    r = order.rank[path].astype(np.float64)
    boxes = {"left": tl.start[path], "right": tl.end[path], "top": r - columns.ROW, "bottom": r + columns.ROW,
             "rank": r, "op": path.astype(np.int64)}
    a, b = path[:-1], path[1:]
    links = {"x0": tl.end[a], "y0": order.rank[a].astype(np.float64), "x1": tl.start[b],
             "y1": order.rank[b].astype(np.float64)}
    return boxes, links


def cursor_steps(res: Result, unit: str) -> dict[str, np.ndarray]:
    """What the in-flight bars show at the cursor: each rank's in-flight count (what
    0) and, where the backward is split, the part awaiting B (what 1), as step
    functions (from `time`, the rank holds `value`), in the bars' unit."""
    mt = res.metrics
    scale = 1.0 if unit == columns.CHUNKS else 1.0 / res.order.chunks_per_rank
    parts = [(0, mt.inflight)] + ([(1, mt.awaiting_b)] if mt.awaiting_b is not None else [])
    what = np.concatenate([np.full(s.rank.size, k, dtype=np.int64) for k, s in parts])
    return {
        "what": what,
        "rank": np.concatenate([s.rank for _, s in parts]).astype(np.int64),
        "time": np.concatenate([s.time for _, s in parts]).astype(np.float64),
        "value": np.concatenate([s.value * scale for _, s in parts]).astype(np.float64),
    }


def words(lang: str) -> dict[str, list]:
    """The browser code's words and the op letters, as a source (key, text)."""
    keys = list(WORD_KEYS) + [f"kind.{k}" for k in range(len(KIND_LETTERS))]
    texts = [template(k, lang) for k in WORD_KEYS] + KIND_LETTERS
    return {"key": keys, "text": texts}


_TAG = re.compile(r"<[^>]*>")


def plain(html: str) -> str:
    """An HTML readout as the text a reader sees (our markup only: tags, entities)."""
    return unescape(_TAG.sub("", html))


def slide_texts(res: Result, lang: str) -> tuple[str, str]:
    """The readout as two lines of plain text for a figure: what is shown and its
    bubble, then the verdict and the summary."""
    v = readouts.readout_values(res)
    cfg = res.config
    bubble = plain(fill("ro.bubble", lang, html=True, sim=v["sim"], closed=v["closed"]))
    head = fill("slide.head", lang, title=template(f"sched.{cfg.schedule}.title", lang), P=cfg.P, m=cfg.m, V=cfg.V,
                bubble=bubble)
    html = readouts.readout_html(v, lang)
    verdict = plain(re.search(r'<div class="pv-verdict">(.*?)</div>', html).group(1))
    summary = plain(re.search(r'<div class="pv-summary">(.*?)</div>', html).group(1))
    return head, verdict + LAYOUT_SEP + summary


def sizes(state: dict) -> dict:
    """Fonts and rows for the projector, on or off, by model name."""
    on = 1 if state.get("projector") else 0
    px = {k: f"{v[on]}px" for k, v in FONTS.items()}
    axis = {"axis_label_text_font_size": px["axis_label"], "major_label_text_font_size": px["tick"]}
    out = {name: {"text_font_size": px["title"]} for name in TITLES}
    out.update({name: dict(axis) for name in AXES})
    out.update({name: {"text_font_size": {"value": px["label"]}} for name in LABEL_GLYPHS})
    out["slide_legend"] = {"label_text_font_size": px["legend"]}
    out["slide_readout"] = {"text_font_size": px["title"]}
    out["slide_summary"] = {"text_font_size": px["tick"]}
    out["sweep_legend"] = out["sweep_v_legend"] = {"label_text_font_size": px["tick"]}
    return out


def slide_extra(projector: bool, head_lines: int = 1, summary_lines: int = 1) -> int:
    """The room a figure's legend and readout lines take below the timeline, in px:
    the head and the summary wrapped to `head_lines` and `summary_lines` lines."""
    on = 1 if projector else 0
    more = (head_lines - 1) * math.ceil(FONTS["title"][on] * SLIDE_LINE_HEIGHT)
    more += (summary_lines - 1) * math.ceil(FONTS["tick"][on] * SLIDE_LINE_HEIGHT)
    return SLIDE_LEGEND_PX + SLIDE_LINE_PX * (3 if projector else 2) + more


def slide_lines(text: str, fits: Callable[[str], bool], level: int = 0) -> list[str]:
    """`text` cut into lines that each `fits` the plot, at the best breaks that do
    (SLIDE_BREAKS). static/teach_models.js's slideLines is the twin, measuring in the browser."""
    if fits(text) or level == len(SLIDE_BREAKS):
        return [text]
    lines, line = [], ""
    for piece in _pieces(text, SLIDE_BREAKS[level]):
        if line and not fits(_trim(line + piece)):
            lines.append(_trim(line))
            line = piece
        else:
            line += piece
    lines.append(_trim(line))
    return [out for ln in lines for out in slide_lines(ln, fits, level + 1)]


def _pieces(text: str, breaks: tuple[str, ...]) -> list[str]:
    """`text` cut after each break (the earliest first; on a tie, the first listed)."""
    out, start = [], 0
    while True:
        hits = [(i, k) for k, b in enumerate(breaks) if (i := text.find(b, start)) >= 0]
        if not hits:
            break
        i, k = min(hits)
        out.append(text[start : i + len(breaks[k])])
        start = i + len(breaks[k])
    return [*out, text[start:]] if start < len(text) else out


def _trim(line: str) -> str:
    """A line's end without its separator or spaces."""
    return (line[: -len(LAYOUT_SEP)] if line.endswith(LAYOUT_SEP) else line).rstrip(" ")


def timeline_height(P: int, projector: bool) -> int:
    if not projector:
        return columns.timeline_height(P)
    return int(max(220, min(900, 130 + columns.ROW_PX * PROJECTOR_SCALE * P)))


def props(res: Result, state: dict, lang: str) -> dict:
    height = timeline_height(res.config.P, bool(state.get("projector")))
    end = max(res.metrics.makespan, 1e-9)
    out = {
        # The cursor starts at the end (the whole iteration drawn); the browser keeps it
        # there. Its header is the clock (render/teach.CLOCK_JS).
        "play_time": {"end": end, "value": end, "step": end / 1000},
        "timeline": {"height": height},
        "inflight": {"height": height},
        "legend_W": {"visible": res.order.has_w},
    }
    for name, attrs in [*texts(lang).items(), *sizes(state).items()]:
        out[name] = {**out.get(name, {}), **attrs}
    return out


def texts(lang: str) -> dict:
    """The teaching models' fixed words in `lang`."""
    t = lambda key: template(key, lang)  # noqa: E731
    return {
        "legend_F": {"label": {"value": t("kind.F")}},
        "legend_B": {"label": {"value": t("kind.B")}},
        "legend_W": {"label": {"value": t("kind.W")}},
        "legend_idle": {"label": {"value": t("legend.idle")}},
        "download": {"label": t("teach.download")},
        "play_toggle": {"label": t("play.play")},
        "play_time": {"title": t("play.clock")},
        "why": {"text": t("why.hint")},
        "tool_pan": {"description": t("tool.pan")},
        "tool_zoom": {"description": t("tool.zoom")},
        "tool_reset": {"description": t("tool.reset")},
        "tool_save": {"description": t("tool.save")},
        "tool_tap": {"description": t("tool.tap")},
        "ops_hover": {"description": t("tool.hover_ops")},
        "bubbles_hover": {"description": t("tool.hover_idle")},
        "stuck_hover": {"description": t("tool.hover_stuck")},
        "comm_hover": {"description": t("tool.hover_comm")},
    }


def mb_ops(res: Result) -> dict[str, np.ndarray]:
    """Row mb: how many ops micro-batch mb has (an F&B pair counts for both of its
    micro-batches). A followed micro-batch names this number: the timeline may draw
    fewer of its boxes (off-screen ones culled, narrow ones merged into runs)."""
    order = res.order
    pair = (order.kind == FB) & (order.mb2 != order.mb)
    n = np.bincount(order.mb, minlength=order.m) + np.bincount(order.mb2[pair], minlength=order.m)
    return {"n": n.astype(np.int64)}


def figure_view(res: Result, state: dict, lang: str = "en") -> dict:
    boxes, links = critical(res, bool(state.get("critical")))
    head, summary = slide_texts(res, lang)
    return {
        "sources": {
            "waits": waits(res),
            "mb_ops": mb_ops(res),
            "critical_path": boxes,
            "critical_links": links,
            "cursor_steps": cursor_steps(res, state.get("unit", "micro-batches")),
            "teach_words": words(lang),
            "slide_texts": {"head": [head], "summary": [summary], "extra": [slide_extra(bool(state.get("projector")))]},
        },
        "props": props(res, state, lang),
    }


def as_data() -> dict:
    """What static/teach.js reads instead of repeating it."""
    from ..text import LANGS

    return {
        "projectorScale": PROJECTOR_SCALE, "waitsOther": WAITS_OTHER, "waitsOwn": WAITS_OWN, "waitsEnd": WAITS_END,
        "wordKeys": list(WORD_KEYS), "kindLetters": KIND_LETTERS, "layoutSep": LAYOUT_SEP,
        "fonts": {k: list(v) for k, v in FONTS.items()}, "titles": list(TITLES), "axes": list(AXES),
        "labelGlyphs": list(LABEL_GLYPHS), "slideLegendPx": SLIDE_LEGEND_PX, "slideLinePx": SLIDE_LINE_PX,
        "texts": {lang: texts(lang) for lang in LANGS},
    }


FEATURE = Feature(name="teach", fields=FIELDS, data=as_data)
