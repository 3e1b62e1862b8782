"""The explorer's Bokeh figures, bound to ColumnDataSources that updates replace.

One `Figures` holds every source and model, each with a `name`. `apply(view)`
assigns a figure view (`pipeviz.view.columns.figure_view`): new numpy columns for
the sources and new properties for the named models; no figure is ever rebuilt.
The same figures serve the Panel app and the standalone page, where the page's
JavaScript applies its twin of the view to the same names.
"""

from __future__ import annotations

import numpy as np
from bokeh.core.properties import value
from bokeh.core.property.descriptors import UnsetValueError
from bokeh.models import (
    CDSView,
    ColumnDataSource,
    CustomJSFilter,
    CustomJSHover,
    FixedTicker,
    HoverTool,
    Label,
    LinearColorMapper,
    Range1d,
    Span,
)
from bokeh.plotting import figure

from ..view.palette import (
    BEFORE_OUTLINE,
    BUBBLE_HATCH,
    KIND_COLORS,
    MAX_CHUNKS,
    OVER_COLOR,
    OVER_TEXT,
    PARAMS_COLOR,
    RANK_PALETTE,
    W_ONLY_COLOR,
    chunk_palette,
)
from ..view.run_view import COMM_COLORS, MODEL_LINE
from . import teach, tradeoff
from .style import FONT

# The stacked time figures' smallest left border: room for the rank axis and one- or
# two-digit ticks, so that a phone's timeline keeps 300 px (360 px wide screen). Both
# explorers lay the two figures out in one Bokeh column, which gives them the same
# border when an axis needs more (three-digit in-flight counts).
BORDER_LEFT = 48

SOURCES = {
    "ops": ["left", "right", "top", "bottom", "rank", "kind", "mb", "stage", "mb2", "stage2", "chunk", "color", "count",
            "outline"],
    "fb_halves": ["left", "right", "top", "bottom", "color"],  # the backward half of each F&B box
    "stuck_ops": ["left", "right", "top", "bottom", "rank", "color", "x", "y", "op", "waits", "label"],  # a deadlock's stuck ops
    "labels": ["x", "y", "text", "dark"],
    "bubbles": ["left", "right", "top", "bottom", "rank", "length"],
    "bars": ["rank", "zero", "b", "peak", "w_only", "theory", "before"],
    "steps": ["xs", "ys", "rank", "width", "alpha"],
    "steps_before": ["xs", "ys", "rank"],  # in flight before balancing (BPipe), dashed
    "memory_bars": ["rank", "zero", "params", "act_b", "total"],
    "memory_over": ["rank", "left", "right", "text"],
}
# A real run's own (view/run_view.py): the model's ops outlined under the real ones, and
# each rank's communication on a thin lane under both. Only a run fills them.
RUN_SOURCES = {
    "run_model": ["left", "right", "top", "bottom"],
    "run_comm": ["left", "right", "top", "bottom", "color", "token"],
}


# Sources that are often empty (no F&B ops, no deadlock, no critical path shown, no
# balancing, no GiB over budget, no box wide enough for a number): their renderers are
# hidden while they have no rows. An empty renderer still cost its plot's paint its
# clip and setup: hiding them took the defaults' timeline repaint from 3.7 to 2.8 ms.
HIDE_EMPTY = ("fb_halves", "stuck_ops", "labels", "steps_before", "memory_over", "critical_path", "critical_links",
              *RUN_SOURCES)


def _same_value(x, y) -> bool:
    """x == y, where NaN (a closed form the sweep has none for) equals NaN: otherwise a
    column holding one is sent again, and its plot repainted, at every update."""
    return x == y or (isinstance(x, float) and isinstance(y, float) and x != x and y != y)


def _same_column(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return False
        if any(isinstance(x, np.ndarray) for x in a[:1]) or any(isinstance(y, np.ndarray) for y in b[:1]):
            return all(_same_column(x, y) for x, y in zip(a, b))  # a multi-line's arrays
        return all(_same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return set(a) == set(b) and all(_same_column(a[k], b[k]) for k in a)
    if isinstance(a, (bool, np.bool_)) or isinstance(b, (bool, np.bool_)):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float, np.number)) and isinstance(b, (int, float, np.number)):
        return a == b
    return type(a) is type(b) and a == b


def _same_prop(model, attr: str, new) -> bool:
    """Whether a model's property holds `new` already (checking a value costs Bokeh
    more than comparing it)."""
    try:
        return _same_column(getattr(model, attr), new)
    except Exception:
        return False


def _same_columns(shown, data: dict) -> bool:
    """Whether a source already holds these columns (same names, dtypes and values)."""
    return set(shown) == set(data) and all(_same_column(shown[k], data[k]) for k in data)


def plot_px(width: int = 900) -> int:
    """The timeline's plot area in pixels for a figure `width` wide (its left border and margin off)."""
    return width - BORDER_LEFT - 20


class Figures:
    def __init__(self, width: int = 900):
        self.plot_px = plot_px(width)
        self.sources = {name: ColumnDataSource(name=name, data={c: [] for c in cols})
                        for name, cols in {**SOURCES, **RUN_SOURCES}.items()}
        self.x_range = Range1d(0, 1, name="x_range")
        self.y_range = Range1d(3.6, -0.6, name="y_range")  # rank 0 at the top
        self.op_colors = LinearColorMapper(
            palette=chunk_palette(1), low=-0.5, high=len(KIND_COLORS) * MAX_CHUNKS - 0.5, name="op_colors"
        )
        self.rank_colors = LinearColorMapper(palette=list(RANK_PALETTE), low=0, high=1, name="rank_colors")
        self.timeline = self._timeline(width)
        self.inflight = self._bars()
        self.over_time = self._over_time(width)
        self.memory = self._memory(width)
        for fig in (self.timeline, self.inflight, self.over_time, self.memory):
            for axis in (*fig.xaxis, *fig.yaxis):
                axis.axis_label_text_font = axis.major_label_text_font = FONT
            fig.title.text_font = FONT
            fig.toolbar.logo = None  # one tab stop and a link fewer; Bokeh is credited in the README
        self.models = self._named()
        self._renderers: dict | None = None  # source name -> its renderers (renderers_of)
        # The teaching models (render/teach.py): cursor, critical path, slide, play controls, sweep.
        parts = teach.build(self.sources, self.timeline, self.inflight, self.over_time)
        self.sources.update(parts.sources)
        self.play_controls, self.sweep_m, self.sweep_v = parts.play_controls, parts.sweep_m, parts.sweep_v
        for name, model in parts.models.items():
            self.models.setdefault(name, model)
        # The trade-off view (render/tradeoff.py): every schedule and V, time against memory.
        self.tradeoff, sources, models = tradeoff.build()
        self.sources.update(sources)
        for name, model in models.items():
            self.models.setdefault(name, model)
        for name in HIDE_EMPTY:  # every source starts empty
            for r in self.renderers_of(name):
                r.visible = False

    # -- figures -----------------------------------------------------------------

    def _timeline(self, width: int):
        fig = figure(
            height=200, width=width, x_range=self.x_range, y_range=self.y_range,
            tools="xpan,xwheel_zoom,reset,save", active_scroll=None, toolbar_location="above",
            sizing_mode="stretch_width", min_border_left=BORDER_LEFT, name="timeline", output_backend="canvas",
        )
        fig.title.name = "timeline_title"
        fig.xaxis[0].name = "timeline_xaxis"
        fig.yaxis[0].name = "rank_axis"
        ops = fig.quad(
            left="left", right="right", top="top", bottom="bottom", source=self.sources["ops"],
            fill_color={"field": "color", "transform": self.op_colors}, line_color="white", line_width=0.6,
            line_alpha="outline",  # outlines only where a box is wide enough to show one (view/lod.py)
        )
        # An overlapped F&B is one box: its forward half (the op's own quad) above, its
        # backward half below, drawn over it; the hover is the op's.
        fig.quad(
            left="left", right="right", top="top", bottom="bottom", source=self.sources["fb_halves"],
            fill_color={"field": "color", "transform": self.op_colors}, line_color="white", line_width=0.6,
        )
        # Labels inside boxes, black or white, whichever reads on the box (the `dark`
        # column, palette.label_color): one renderer per colour, each with a constant
        # text colour (a per-label colour column races Bokeh's asynchronous text layout
        # when the data are replaced twice in a row, and throws).
        for dark, color in ((1, "black"), (0, "white")):
            fig.text(
                x="x", y="y", text="text", source=self.sources["labels"], text_align="center",
                text_baseline="middle", text_font_size="10px", text_color=color, text_font=value(FONT),
                view=CDSView(filter=CustomJSFilter(code=f"return Array.from(source.data.dark, (d) => d == {dark})")),
            )
        bubbles = fig.quad(
            left="left", right="right", top="top", bottom="bottom", source=self.sources["bubbles"],
            fill_alpha=0, line_alpha=0, hatch_pattern="/", hatch_color=BUBBLE_HATCH, hatch_alpha=0.55,
            hatch_scale=7, hatch_weight=1,
        )
        # A deadlocked order: each stuck op outlined after its rank's last op that ran,
        # and what it waits for written beside it.
        stuck = fig.quad(
            left="left", right="right", top="top", bottom="bottom", source=self.sources["stuck_ops"],
            fill_color={"field": "color", "transform": self.op_colors}, fill_alpha=0.35, line_color="black",
            line_width=2.5, line_dash="dashed",
        )
        fig.text(
            x="x", y="y", text="label", source=self.sources["stuck_ops"], text_align="left", text_baseline="middle",
            text_font_size="11px", text_color="black", text_font=value(FONT), x_offset=4,
        )
        fig.add_tools(HoverTool(name="stuck_hover", renderers=[stuck]))
        # A real run: the model's ops as dashed outlines in the lower row of each rank's
        # band (view/run_view.py), and the communication lane (receive, send, bookkeeping).
        fig.quad(left="left", right="right", top="top", bottom="bottom", source=self.sources["run_model"],
                 fill_alpha=0, line_color=MODEL_LINE, line_width=1.4, line_dash="dashed")
        comm = fig.quad(left="left", right="right", top="top", bottom="bottom", source=self.sources["run_comm"],
                        fill_color={"field": "color", "transform": LinearColorMapper(
                            palette=list(COMM_COLORS), low=-0.5, high=len(COMM_COLORS) - 0.5)}, line_color=None)
        fig.add_tools(HoverTool(name="comm_hover", renderers=[comm], tooltips=[["", "@token"]]))
        kind_name = CustomJSHover(name="kind_names", args={"names": []}, code="return names[value]")
        # An F&B's backward half: " & 3" after the forward's micro-batch and stage; nothing for other ops.
        pair_part = CustomJSHover(name="pair_part", code="return value < 0 ? '' : ' & ' + value")
        fig.add_tools(HoverTool(name="ops_hover", renderers=[ops],
                                formatters={"@kind": kind_name, "@mb2": pair_part, "@stage2": pair_part}))
        fig.add_tools(HoverTool(name="bubbles_hover", renderers=[bubbles]))
        fig.yaxis.ticker = FixedTicker(ticks=[], name="rank_ticker")
        fig.xgrid.visible = False  # no lines (a hidden grid is not painted at all: each paint counts)
        fig.ygrid.visible = False
        return fig

    def _bars(self):
        fig = figure(
            height=200, width=230, y_range=self.y_range, x_range=Range1d(0, 1, name="bars_x_range"), tools="",
            toolbar_location=None, name="inflight", min_border_left=10,
        )
        fig.title.name = "inflight_title"
        fig.xaxis[0].name = "bars_xaxis"
        source = self.sources["bars"]
        held = fig.hbar(y="rank", left="zero", right="b", height=0.6, source=source,
                        fill_color=KIND_COLORS[0], line_color=None)
        w_only = fig.hbar(y="rank", left="b", right="peak", height=0.6, source=source,
                          fill_color=W_ONLY_COLOR, line_color=None, name="w_only")
        # After balancing: the bar as it stood before, as a dashed outline (shown only
        # then): the old staircase behind the flattened one.
        fig.hbar(y="rank", left="zero", right="before", height=0.6, source=source, fill_alpha=0,
                 line_color=BEFORE_OUTLINE, line_dash="dashed", line_width=1.3, name="before_bars")
        fig.scatter(x="theory", y="rank", source=source, marker="diamond", size=11,
                    fill_color="white", line_color="black", line_width=1.5)
        fig.add_tools(HoverTool(name="bars_hover", renderers=[held, w_only]))
        fig.yaxis.visible = False
        fig.ygrid.visible = False
        return fig

    def _over_time(self, width: int):
        fig = figure(
            height=180, width=width, x_range=self.x_range, y_range=Range1d(0, 1, name="over_time_y_range"),
            tools="xpan,xwheel_zoom,reset", toolbar_location=None,
            sizing_mode="stretch_width", min_border_left=BORDER_LEFT, name="over_time",
        )
        fig.title.name = "over_time_title"
        fig.xaxis[0].name = "over_time_xaxis"
        fig.yaxis[0].name = "over_time_yaxis"
        fig.multi_line(xs="xs", ys="ys", source=self.sources["steps_before"], line_width=1.2, line_dash="dashed",
                       line_alpha=0.55, line_color={"field": "rank", "transform": self.rank_colors})
        fig.multi_line(xs="xs", ys="ys", source=self.sources["steps"], line_width="width", line_alpha="alpha",
                       line_color={"field": "rank", "transform": self.rank_colors})
        fig.add_layout(Span(location=0, dimension="width", line_dash="dashed", line_color="black", line_width=1.5,
                            name="over_time_hbm", visible=False))
        fig.xgrid.visible = False  # no lines (a hidden grid is not painted at all: each paint counts)
        return fig

    def _memory(self, width: int):
        """Peak GiB per rank: parameters, activations awaiting B, awaiting W only; the
        HBM line; the part over it hatched, outlined and labelled."""
        fig = figure(
            height=200, width=width, y_range=self.y_range, x_range=Range1d(0, 1, name="memory_x_range"), tools="",
            toolbar_location=None, name="memory", min_border_left=BORDER_LEFT, sizing_mode="stretch_width",
            visible=False,
        )
        fig.title.name = "memory_title"
        fig.xaxis[0].name = "memory_xaxis"
        source = self.sources["memory_bars"]
        parts = [
            fig.hbar(y="rank", left=left, right=right, height=0.6, source=source, fill_color=color, line_color=None)
            for left, right, color in (("zero", "params", PARAMS_COLOR), ("params", "act_b", KIND_COLORS[0]),
                                       ("act_b", "total", W_ONLY_COLOR))
        ]
        over = self.sources["memory_over"]
        fig.hbar(y="rank", left="left", right="right", height=0.74, source=over, fill_alpha=0, hatch_pattern="x",
                 hatch_color="black", hatch_alpha=0.8, hatch_scale=8, line_color=OVER_COLOR, line_width=2.5)
        fig.text(x="right", y="rank", text="text", source=over, x_offset=5, text_baseline="middle",
                 text_font_size="11px", text_color=OVER_TEXT, text_font=value(FONT))  # a bare string names a column
        fig.add_layout(Span(location=80, dimension="height", line_dash="dashed", line_color="black", line_width=1.5,
                            name="hbm_line"))
        # Beside the line, just above the axis (screen units: whatever P is).
        fig.add_layout(Label(x=80, y=2, y_units="screen", text="", x_offset=4, text_font_size="11px", text_font=FONT,
                             text_baseline="bottom", background_fill_color="white", background_fill_alpha=0.8,
                             name="hbm_label"))
        fig.add_tools(HoverTool(name="memory_hover", renderers=parts))
        fig.yaxis.ticker = FixedTicker(ticks=[], name="memory_rank_ticker")
        fig.yaxis[0].name = "memory_rank_axis"
        fig.ygrid.visible = False
        return fig

    def _named(self) -> dict:
        """Every model with a name, by name: what a figure view's props address."""
        found = {}
        for fig in (self.timeline, self.inflight, self.over_time, self.memory):
            for model in fig.references():
                if model.name:
                    found.setdefault(model.name, model)
        return found

    # -- updates -----------------------------------------------------------------

    def label_px(self) -> float:
        """The timeline's plot width in pixels, as the browser last reported it."""
        try:
            width = self.timeline.inner_width
        except UnsetValueError:
            width = None
        return float(width) if width else float(self.plot_px)

    def set_source(self, name: str, data: dict) -> None:
        """New columns for a source, if they differ (each assignment is sent and
        repainted); the renderers of a HIDE_EMPTY source show only while it has rows."""
        source = self.sources[name]
        if not _same_columns(source.data, data):
            source.data = data
        if name in HIDE_EMPTY:
            rows = len(next(iter(data.values()), ()))
            for r in self.renderers_of(name):
                if r.visible != (rows > 0):
                    r.visible = rows > 0

    def holds(self, name: str, data: dict) -> bool:
        """Whether source `name` holds these columns already."""
        return _same_columns(self.sources[name].data, data)

    def renderers_of(self, name: str) -> list:
        """The glyph renderers drawing source `name`, on any of the figures."""
        if self._renderers is None:
            found: dict = {}
            for fig in (self.timeline, self.inflight, self.over_time, self.memory):
                for r in fig.renderers:
                    src = getattr(r, "data_source", None)
                    if src is not None and src.name:
                        found.setdefault(src.name, []).append(r)
            self._renderers = found
        return self._renderers.get(name, [])

    def apply(self, view: dict, sources: bool = True) -> None:
        """Assign a figure view (call inside pn.io.hold() in the app)."""
        if sources:
            for name, data in view["sources"].items():
                self.set_source(name, data)
        for name, attrs in view["props"].items():
            model = self.models[name]
            changed = {attr: v for attr, v in attrs.items() if not _same_prop(model, attr, v)}
            if changed:
                model.update(**changed)

    def relabel(self, labels: dict) -> None:
        self.set_source("labels", labels)
