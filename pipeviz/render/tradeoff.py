"""The trade-off figure (view/tradeoff.py gives its sources and properties, by name):
every schedule and V as a point, peak memory across and makespan up.

Each schedule has its colour and its marker (view/palette.schedule_style), so the
points stay apart for colour-blind readers and in grey print; the key below the plot
names them from the points' own `name` column, so it follows the language and shows
only the schedules present. A tap selects a point of "tradeoff_points": each explorer
reads the selection and shows that schedule at that V through its own change path
(served/view.py, static/tradeoff.js), then clears it.
"""

from __future__ import annotations

from bokeh.models import ColumnDataSource, HoverTool, Label, Legend, LegendItem, Range1d, Span, TapTool
from bokeh.plotting import figure

from ..view.tradeoff import POINT_COLUMNS
from .style import FONT

HEIGHT = 440
SOURCES = {
    "tradeoff_points": list(POINT_COLUMNS),
    "tradeoff_front": ["x", "y"],
    "tradeoff_now": ["x", "y"],
}


def build() -> tuple:
    """(the figure, {name: source}, {name: model}) for the explorers to lay out."""
    src = {name: ColumnDataSource(name=name, data={c: [] for c in cols}) for name, cols in SOURCES.items()}
    fig = figure(height=HEIGHT, width=600, x_range=Range1d(0, 1, name="tradeoff_x_range"),
                 y_range=Range1d(0, 1, name="tradeoff_y_range"), tools="", toolbar_location=None,
                 sizing_mode="stretch_width", name="tradeoff", min_border_left=56)
    fig.title.name = "tradeoff_title"
    fig.xaxis[0].name = "tradeoff_xaxis"
    fig.yaxis[0].name = "tradeoff_yaxis"
    for axis in (*fig.xaxis, *fig.yaxis):
        axis.axis_label_text_font = axis.major_label_text_font = FONT
    fig.title.text_font = FONT
    fig.toolbar.logo = None
    fig.line("x", "y", source=src["tradeoff_front"], line_color="black", line_width=1.5, line_dash="dashed")
    pts = fig.scatter("x", "y", source=src["tradeoff_points"], marker="marker", size=13, fill_color="color",
                      fill_alpha="fill_alpha", line_color="line_color", line_width="line_width",
                      # a tap marks nothing: the explorer shows the point's schedule and clears the selection
                      selection_fill_alpha="fill_alpha", nonselection_fill_alpha="fill_alpha",
                      nonselection_line_alpha=1.0)
    # The schedule shown: a ring around its point, drawn over the others.
    fig.scatter("x", "y", source=src["tradeoff_now"], marker="circle", size=26, fill_alpha=0, line_color="black",
                line_width=2.5)
    fig.add_layout(Span(location=80, dimension="height", line_dash="dashed", line_color="black", line_width=1.5,
                        name="tradeoff_hbm", visible=False))
    fig.add_layout(Label(x=80, y=2, y_units="screen", text="", x_offset=-4, text_align="right",
                         text_font_size="11px", text_font=FONT, text_baseline="bottom", background_fill_color="white",
                         background_fill_alpha=0.8, name="tradeoff_hbm_label", visible=False))
    # The key: one entry per schedule present, labelled and drawn from its first point.
    key = Legend(items=[LegendItem(label={"field": "name"}, renderers=[pts])], location="top_left",
                 name="tradeoff_legend", ncols=2, label_text_font_size="11px", glyph_width=16, label_standoff=3,
                 label_text_font=FONT, spacing=0, padding=4, margin=0, border_line_alpha=0)
    fig.add_layout(key, "below")
    fig.add_tools(HoverTool(renderers=[pts], tooltips=[("", "@label")], name="tradeoff_hover"))
    tap = TapTool(renderers=[pts], name="tradeoff_tap")
    fig.add_tools(tap)
    fig.toolbar.active_tap = tap
    models = {m.name: m for m in fig.references() if m.name}
    return fig, src, models
