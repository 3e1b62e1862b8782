"""The sweep figures (view/sweep.py gives their sources and properties, by name):
bubble against m on a log axis, one closed-form line and one set of simulated points
per schedule, the current m marked; and interleaved 1F1B's bubble against V.

Each schedule has its own colour (Okabe-Ito), marker and dash, so the lines stay apart
for colour-blind readers and in grey print."""

from __future__ import annotations

from bokeh.core.properties import value
from bokeh.models import (
    BasicTickFormatter,
    ColumnDataSource,
    FixedTicker,
    HoverTool,
    Legend,
    LegendItem,
    NumeralTickFormatter,
    Range1d,
    Span,
)
from bokeh.plotting import figure

from ..registry import NAMES
from ..view.palette import schedule_style as style
from ..view.sweep import M_POINTS

HEIGHT = 320
# The m chart's key, below it in two columns (inside, it covered the curves on a
# phone): a title line and a line per two schedules.
KEY_HEIGHT = 22 * (1 + -(-len(NAMES) // 2))
V_WIDTH = 290  # the V chart: eight points need no more


def _style(fig, font: str, name: str) -> None:
    fig.title.name = f"{name}_title"
    fig.xaxis[0].name = f"{name}_xaxis"
    fig.yaxis[0].name = f"{name}_yaxis"
    fig.yaxis[0].formatter = NumeralTickFormatter(format="0%")
    for axis in (*fig.xaxis, *fig.yaxis):
        axis.axis_label_text_font = axis.major_label_text_font = font
    fig.title.text_font = font
    fig.toolbar.logo = None


def build(font: str) -> tuple:
    """The sweep figures and their sources: (bubble against m, bubble against V,
    {name: source}). The explorers lay the two out side by side where there is room,
    the V chart below where there is not."""
    src: dict = {}
    m_fig = figure(height=HEIGHT + KEY_HEIGHT, width=600, x_axis_type="log", x_range=Range1d(0.8, 170), y_range=Range1d(0, 1.02),
                   tools="", toolbar_location=None, sizing_mode="stretch_width", name="sweep_m", min_border_left=50)
    _style(m_fig, font, "sweep_m")
    items, points = [], []
    for i, _name in enumerate(NAMES):
        line = src[f"sweep_line_{i}"] = ColumnDataSource(name=f"sweep_line_{i}", data={"x": [], "y": []})
        sim = src[f"sweep_sim_{i}"] = ColumnDataSource(name=f"sweep_sim_{i}", data={"x": [], "y": []})
        color, marker, dash = style(i)
        r_line = m_fig.line("x", "y", source=line, line_color=color, line_width=2, line_dash=dash)
        r_pts = m_fig.scatter("x", "y", source=sim, marker=marker, size=9, fill_color=color, line_color="black")
        points.append(r_pts)
        items.append(LegendItem(label=value(""), renderers=[r_line, r_pts], name=f"sweep_key_{i}"))
    # The legend's title says what a line and a point are.
    # Two columns of names, small enough to fit a 320 px phone beside the plot's left border.
    legend = Legend(items=items, location="top_left", click_policy="hide", name="sweep_legend", ncols=2,
                    label_text_font_size="11px", glyph_width=16, label_standoff=3, title_text_font_size="11px",
                    label_text_font=font, title_text_font=font, spacing=0, padding=4, margin=0, border_line_alpha=0,
                    title_text_font_style="normal")
    m_fig.add_layout(legend, "below")
    # The current m's mark is drawn on the overlay layer, so that moving it repaints that
    # layer alone, not the lines and points under it (12 ms a keypress for m on the page).
    m_fig.add_layout(Span(location=8, dimension="height", line_dash="dashed", line_color="#444444", line_width=1.5,
                          name="sweep_m_now", level="overlay"))
    m_fig.xaxis.ticker = FixedTicker(ticks=list(M_POINTS))
    m_fig.xaxis.formatter = BasicTickFormatter()
    m_fig.add_tools(HoverTool(renderers=points, tooltips=[("m", "@x"), ("", "@y{0.00%}")], name="sweep_hover"))

    v_fig = figure(height=HEIGHT, width=V_WIDTH, x_range=Range1d(0.5, 8.5), y_range=m_fig.y_range, tools="",
                   toolbar_location=None, name="sweep_v", min_border_left=60)
    _style(v_fig, font, "sweep_v")
    line = src["sweep_v_line"] = ColumnDataSource(name="sweep_v_line", data={"x": [], "y": []})
    sim = src["sweep_v_sim"] = ColumnDataSource(name="sweep_v_sim", data={"x": [], "y": []})
    i = NAMES.index("interleaved") if "interleaved" in NAMES else 0
    color, marker, dash = style(i)
    r_line = v_fig.line("x", "y", source=line, line_color=color, line_width=2, line_dash=dash)
    r_pts = v_fig.scatter("x", "y", source=sim, marker=marker, size=9, fill_color=color, line_color="black")
    v_fig.add_layout(Legend(items=[LegendItem(label=value(""), renderers=[r_line, r_pts], name="sweep_v_key")],
                            location="top_right", name="sweep_v_legend", label_text_font=font,
                            background_fill_alpha=0.85))
    v_fig.add_layout(Span(location=2, dimension="height", line_dash="dashed", line_color="#444444", line_width=1.5,
                          name="sweep_v_now", level="overlay"))
    v_fig.add_tools(HoverTool(renderers=[r_pts], tooltips=[("V", "@x"), ("", "@y{0.00%}")], name="sweep_v_hover"))
    v_fig.xaxis.ticker = list(range(1, 9))

    return m_fig, v_fig, src
