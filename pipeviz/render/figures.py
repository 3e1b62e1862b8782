"""The explorer's Bokeh figures, bound to ColumnDataSources that updates replace.

One `Figures` holds every source and model. `update(result)` assigns new numpy
columns and ranges; no figure is ever rebuilt. The same figures serve the Panel app
and the standalone page (where a CustomJS callback fills the same columns).
"""

from __future__ import annotations

from bokeh.core.property.descriptors import UnsetValueError
from bokeh.models import (
    ColumnDataSource,
    CustomJSHover,
    FixedTicker,
    HoverTool,
    LinearColorMapper,
    Range1d,
)
from bokeh.plotting import figure

from ..engine import Result
from . import data
from .data import BUBBLE_HATCH, KIND_COLORS, RANK_PALETTE, W_ONLY_COLOR

BORDER_LEFT = 64  # same left border on stacked figures so their time axes line up
ROW_PX = 26


def empty(columns) -> dict:
    return {c: [] for c in columns}


class Figures:
    def __init__(self, width: int = 900):
        self.plot_px = width - BORDER_LEFT - 20
        self.ops = ColumnDataSource(name="ops", data=empty(["left", "right", "top", "bottom", "rank", "kind", "mb", "stage", "chunk", "color"]))
        self.labels = ColumnDataSource(name="labels", data=empty(["x", "y", "text"]))
        self.bubbles = ColumnDataSource(name="bubbles", data=empty(["left", "right", "top", "bottom", "rank", "length"]))
        self.bars = ColumnDataSource(name="bars", data=empty(["rank", "zero", "b", "peak", "w_only", "theory"]))
        self.steps = ColumnDataSource(name="steps", data=empty(["xs", "ys", "rank"]))

        self.x_range = Range1d(0, 1)
        self.y_range = Range1d(3.6, -0.6)  # rank 0 at the top
        self.op_colors = LinearColorMapper(
            palette=data.chunk_palette(KIND_COLORS, 1), low=-0.5, high=3 * data.MAX_CHUNKS - 0.5
        )
        self.rank_colors = LinearColorMapper(palette=list(RANK_PALETTE), low=0, high=1)
        self.timeline = self._timeline(width)
        self._rank_axis(4)
        self.inflight = self._bars()
        self.over_time = self._over_time(width)

    # -- figures -----------------------------------------------------------------

    def _timeline(self, width: int):
        fig = figure(
            height=200, width=width, x_range=self.x_range, y_range=self.y_range,
            tools="xpan,xwheel_zoom,reset,save", active_scroll=None, toolbar_location="above",
            sizing_mode="stretch_width", min_border_left=BORDER_LEFT, x_axis_label="time",
            name="timeline", output_backend="canvas",
        )
        fig.title.text = "Timeline (hatched: idle)"
        ops = fig.quad(
            left="left", right="right", top="top", bottom="bottom", source=self.ops,
            fill_color={"field": "color", "transform": self.op_colors}, line_color="white", line_width=0.6,
        )
        fig.text(
            x="x", y="y", text="text", source=self.labels, text_align="center", text_baseline="middle",
            text_font_size="10px", text_color="white",
        )
        bubbles = fig.quad(
            left="left", right="right", top="top", bottom="bottom", source=self.bubbles,
            fill_alpha=0, line_alpha=0, hatch_pattern="/", hatch_color=BUBBLE_HATCH, hatch_alpha=0.55,
            hatch_scale=7, hatch_weight=1,
        )
        kind_name = CustomJSHover(code="return ['F', 'B', 'W'][value]")
        fig.add_tools(HoverTool(
            renderers=[ops],
            tooltips=[("op", "@kind{custom} of micro-batch @mb"), ("rank", "@rank"),
                      ("stage", "@stage (chunk @chunk)"), ("time", "@left{0.[000]} → @right{0.[000]}")],
            formatters={"@kind": kind_name},
        ))
        fig.add_tools(HoverTool(
            renderers=[bubbles],
            tooltips=[("idle", "@length{0.[000]}"), ("rank", "@rank"), ("time", "@left{0.[000]} → @right{0.[000]}")],
        ))
        fig.yaxis.ticker = FixedTicker(ticks=[])  # one per rank: see _rank_axis
        fig.xgrid.grid_line_color = None
        fig.ygrid.grid_line_color = None
        return fig

    def _bars(self):
        fig = figure(
            height=200, width=230, y_range=self.y_range, x_range=Range1d(0, 1), tools="", toolbar_location=None,
            x_axis_label="peak in flight", name="inflight", min_border_left=10,
        )
        fig.title.text = "Peak in-flight activations"
        held = fig.hbar(y="rank", left="zero", right="b", height=0.6, source=self.bars,
                        fill_color=KIND_COLORS[0], line_color=None)
        w_only = fig.hbar(y="rank", left="b", right="peak", height=0.6, source=self.bars,
                          fill_color=W_ONLY_COLOR, line_color=None)
        fig.scatter(x="theory", y="rank", source=self.bars, marker="diamond", size=11,
                             fill_color="white", line_color="black", line_width=1.5)
        fig.add_tools(HoverTool(renderers=[held, w_only], tooltips=[
            ("rank", "@rank"), ("peak", "@peak{0.[00]}"), ("awaiting B", "@b{0.[00]}"),
            ("awaiting W only", "@w_only{0.[00]}"), ("closed form", "@theory{0.[00]}"),
        ]))
        self.w_only_renderer = w_only
        fig.yaxis.visible = False
        fig.ygrid.grid_line_color = None
        return fig

    def _over_time(self, width: int):
        fig = figure(
            height=180, width=width, x_range=self.x_range, y_range=Range1d(0, 1),
            tools="xpan,xwheel_zoom,reset", toolbar_location=None,
            sizing_mode="stretch_width", min_border_left=BORDER_LEFT, x_axis_label="time",
            y_axis_label="in flight", name="over_time",
        )
        fig.title.text = "In-flight activations over time (one line per rank, dark = rank 0)"
        fig.multi_line(xs="xs", ys="ys", source=self.steps, line_width=1.8,
                       line_color={"field": "rank", "transform": self.rank_colors})
        fig.xgrid.grid_line_color = None
        return fig

    def _rank_axis(self, P: int) -> None:
        """One tick per rank on the timeline, labelled 'rank r'."""
        axis = self.timeline.yaxis
        axis.ticker.ticks = list(range(P))
        axis.major_label_overrides = {r: f"rank {r}" for r in range(P)}

    # -- updates -----------------------------------------------------------------

    def label_px(self) -> float:
        """The timeline's plot width in pixels, as the browser last reported it."""
        try:
            width = self.timeline.inner_width
        except UnsetValueError:
            width = None
        return float(width) if width else float(self.plot_px)

    def relabel(self, res: Result) -> None:
        """Micro-batch numbers for the boxes that are wide enough at this width."""
        self.labels.data = data.labels(res, self.label_px())

    def update(self, res: Result, unit: str = "micro-batches") -> None:
        """Replace every column and range for a new result (call inside pn.io.hold())."""
        P = res.config.P
        makespan = res.metrics.makespan
        chunks = res.order.chunks_per_rank
        self.op_colors.palette = data.chunk_palette(KIND_COLORS, chunks)
        self.ops.data = data.ops(res)
        self.relabel(res)
        self.bubbles.data = data.bubbles(res)
        self.bars.data = data.inflight_bars(res, unit)
        self.steps.data = data.inflight_steps(res)

        pad = makespan * 0.01
        self.x_range.update(start=-pad, end=makespan + pad, reset_start=-pad, reset_end=makespan + pad)
        self.y_range.update(start=P - 0.5, end=-0.5, reset_start=P - 0.5, reset_end=-0.5)
        self._rank_axis(P)
        height = max(160, min(620, 90 + ROW_PX * P))
        self.timeline.height = height
        self.inflight.height = height
        split = res.order.split_backward
        self.w_only_renderer.visible = split
        top = float(max(res.metrics.peak_chunks.max(), res.theory.peak_chunks.max()))
        if unit != "chunks":
            top /= chunks
        self.inflight.x_range.update(start=0, end=top * 1.15)
        self.inflight.xaxis.axis_label = f"peak in flight ({unit})"
        self.over_time.y_range.update(start=0, end=float(res.metrics.peak_chunks.max()) * 1.08 + 0.5)
        self.over_time.yaxis.axis_label = "in flight (chunks)" if chunks > 1 else "in flight"
        self.rank_colors.high = max(P - 1, 1)
