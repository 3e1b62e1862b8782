"""The teaching models on the explorer's figures, and the browser code that drives them.

`build(...)` makes them for a `Figures` (render/figures.py), which names them, so the
teaching view of view/teach.py and its twin static/teach.js update them by name:
  timeline   the critical path (outlined boxes and their links), a cursor line and a
             curtain over what has not happened yet, a tap tool (follow a
             micro-batch; why a rank idles), and the slide's legend and readout
             (shown only in an exported figure)
  bars       the in-flight count at the cursor, over the dimmed peaks
  over time  the cursor and its curtain
  controls   play/pause, the time slider, the speed, the clock, the note that says
             why a rank idles (or which micro-batch is followed), a download button
Everything they do in the browser is static/teach_models.js, run as CustomJS, so the served
app and the page share one implementation; its words come from the "teach_words"
source. Models the browser changes many times a second are not synced back to the
server (`syncable=False`).
"""

from __future__ import annotations

from dataclasses import dataclass

from bokeh.layouts import column, row
from bokeh.models import (
    BoxAnnotation,
    Button,
    ColumnDataSource,
    CustomJS,
    CustomJSHover,
    CustomJSTickFormatter,
    Div,
    Legend,
    LegendItem,
    RadioButtonGroup,
    Slider,
    Span,
    TapTool,
    Title,
    Toggle,
)
from bokeh.models.tools import PanTool, ResetTool, SaveTool, WheelZoomTool

from .. import static
from ..view import teach
from ..view.palette import BUBBLE_HATCH, KIND_COLORS, W_ONLY_COLOR
from ..view.teach import LABEL_GLYPHS
from . import sweep
from .style import FONT

SOURCES = {
    "waits": ["rank", "left", "right", "form", *(f"{p}_{c}" for p in ("next", "dep")
                                                  for c in ("kind", "mb", "stage", "mb2", "stage2", "rank", "end"))],
    "mb_ops": ["n"],
    "critical_path": ["left", "right", "top", "bottom", "rank", "op"],
    "critical_links": ["x0", "y0", "x1", "y1"],
    "cursor_steps": ["what", "rank", "time", "value"],
    "cursor_bars": ["rank", "zero", "held", "total"],
    "teach_words": ["key", "text"],
    "slide_texts": ["head", "summary", "extra"],  # the slide's readout (set into its titles for a figure) and its room
}
SPEED_LABELS = ["¼×", "½×", "1×", "2×", "4×"]  # teach.js's SPEEDS
CURSOR = "#222222"
# The clock: the time slider shows its value as "12.5 of 33" ("play.time" from the
# teach_words source; the makespan is the slider's end, and at most three decimals as
# static/teach_models.js writes times). Bokeh re-formats the slider's header when its value
# or title changes, a text write; a Div's new text would lay the whole document out
# again, every plot measured (13 ms of a 36 ms keypress-to-repaint at the defaults).
CLOCK_JS = """
var d = words.data, i = d.key.indexOf('play.time');
var num = function (x) { return String(Math.round(x * 1000) / 1000); };
return i < 0 ? '' : String(d.text[i]).replace('{t}', num(tick)).replace('{makespan}', num(time.end));
"""


# The teaching models' browser code, run as CustomJS by both explorers.
LIBRARY = "teach_models.js"


def library() -> str:
    """static/teach_models.js, as installed."""
    return static.read(LIBRARY)


def add_slide_legend(figs) -> None:
    """Put the slide's legend below the timeline, between its axis and the readout (a
    figure; static/teach_models.js's download does the same in the browser)."""
    tl, legend = figs.timeline, figs.models["slide_legend"]
    below = list(tl.below)
    i = below.index(figs.models["slide_readout"])
    tl.below = [*below[:i], legend, *below[i:]]
    for item in legend.items:
        for r in item.renderers:
            r.visible = True


def _renderer_of(fig, source):
    return next(r for r in fig.renderers if getattr(r, "data_source", None) is source)


@dataclass(frozen=True)
class Parts:
    """What the teaching tools add to the explorer's figures (render.figures.Figures)."""

    sources: dict  # the teaching columns, by name (the sweep's too)
    models: dict  # every named model they made, by name
    play_controls: object  # the play/pause, time slider, speed and PNG row
    sweep_m: object  # bubble against m, every schedule
    sweep_v: object  # bubble against V, interleaved


def build(sources: dict, tl, bars, over) -> Parts:
    """The teaching models on the timeline `tl`, the in-flight bars and the lines over
    time, reading the figures' `sources`."""
    lib = library()
    own = {name: ColumnDataSource(name=name, data={c: [] for c in cols}) for name, cols in SOURCES.items()}
    src = {**sources, **own}

    # Tools with names (their descriptions are the toolbar's tooltips, in the reader's language).
    for tool in tl.tools:
        for cls, name in ((PanTool, "tool_pan"), (WheelZoomTool, "tool_zoom"), (ResetTool, "tool_reset"),
                          (SaveTool, "tool_save")):
            if isinstance(tool, cls):
                tool.name = name
        if isinstance(tool, SaveTool):
            tool.filename = "pipeviz-timeline"  # else the browser asks for a name, in English
    tl.toolbar.logo = None
    tl.toolbar.group = False  # grouped, the two hover tools share one button titled "Hover", in English

    ops = _renderer_of(tl, src["ops"])
    bubbles = _renderer_of(tl, src["bubbles"])
    # Following a micro-batch selects its ops; Bokeh's own non-selection glyph dims the
    # rest. (Explicit selection glyphs do not inherit the main glyph's arrays, and meet a
    # renderer's old indices when the page replaces the data: "Size mismatch".)
    tl.add_tools(TapTool(renderers=[ops, bubbles], name="tool_tap"))
    for r in tl.renderers:  # the micro-batch labels: their size follows the projector
        if getattr(r, "data_source", None) is src["labels"]:
            r.glyph.name = LABEL_GLYPHS[0] if r.glyph.text_color == "black" else LABEL_GLYPHS[1]

    # The critical path: its ops outlined, and each link from one op's end to the next one's start.
    tl.quad(left="left", right="right", top="top", bottom="bottom", source=src["critical_path"], fill_alpha=0,
            line_color="black", line_width=3, level="overlay", name="critical_boxes")
    tl.segment(x0="x0", y0="y0", x1="x1", y1="y1", source=src["critical_links"], line_color="black", line_width=3,
               level="overlay", name="critical_lines")

    # The cursor, and a curtain over what has not happened yet. Everything that moves
    # while playing is on Bokeh's overlay level: a frame then repaints only the overlay
    # canvas, not the boxes and hatched bubbles below (benchmarks/play.py).
    cursors, curtains = [], []
    for fig, tag in ((tl, "timeline"), (over, "over_time")):
        span = Span(location=0, dimension="height", line_color=CURSOR, line_width=2, visible=False, level="overlay",
                    editable=fig is tl, name=f"{tag}_cursor", syncable=False)
        curtain = BoxAnnotation(left=0, fill_color="white", fill_alpha=0.88, line_alpha=0, visible=False,
                                level="overlay", name=f"{tag}_curtain", syncable=False)
        fig.add_layout(curtain)
        fig.add_layout(span)
        cursors.append(span)
        curtains.append(curtain)

    # The in-flight count at the cursor, over the dimmed peaks.
    bars_dim = BoxAnnotation(fill_color="white", fill_alpha=0.7, line_alpha=0, visible=False, name="bars_dim",
                             level="overlay", syncable=False)
    bars.add_layout(bars_dim)
    src["cursor_bars"].syncable = False
    # Hidden while the cursor rests (static/teach_models.js shows them), as every empty renderer is.
    cursor_glyphs = [
        bars.hbar(y="rank", left="zero", right="held", height=0.6, source=src["cursor_bars"], fill_color=KIND_COLORS[0],
                  line_color="black", line_width=1, level="overlay", name="cursor_held", visible=False),
        bars.hbar(y="rank", left="held", right="total", height=0.6, source=src["cursor_bars"], fill_color=W_ONLY_COLOR,
                  line_color="black", line_width=1, level="overlay", name="cursor_w_only", visible=False),
    ]

    # The slide: a legend and the readout, shown in exported figures only.
    # A legend draws nothing for an empty renderer: each key has one box, above rank 0
    # and left of time 0, where the timeline never shows it (it pans in time only).
    away = dict(left=[-2.0], right=[-1.0], top=[-5.0], bottom=[-4.0])
    keys = []
    # Their boxes are hidden but for a figure (add_slide_legend): painted, they cost each repaint.
    for kind, color in (("F", KIND_COLORS[0]), ("B", KIND_COLORS[1]), ("W", KIND_COLORS[2])):
        r = tl.quad(**away, fill_color=color, line_color="white", name=f"key_{kind}", visible=False)
        keys.append(LegendItem(label=kind, renderers=[r], name=f"legend_{kind}"))
    idle = tl.quad(**away, fill_color="white", line_color="#bbbbbb", visible=False,
                   hatch_pattern="/", hatch_color=BUBBLE_HATCH, hatch_alpha=0.55, hatch_scale=7, name="key_idle")
    keys.append(LegendItem(label="idle", renderers=[idle], name="legend_idle"))
    legend = Legend(items=keys, orientation="horizontal", location="center", name="slide_legend", visible=False,
                    border_line_alpha=0)
    # Not on the timeline until a figure is made (add_slide_legend): a legend measures
    # its place in the page at every paint of its plot, hidden or not (1 ms a keypress).

    # The readout's titles get their text only when a figure is made (static/teach_models.js's
    # download, figure.py): a title's new text lays the timeline out again.
    readout = Title(text="", name="slide_readout", visible=False, text_font_style="bold")
    summary = Title(text="", name="slide_summary", visible=False, text_font_style="normal")
    tl.add_layout(readout, "below")
    tl.add_layout(summary, "below")

    # Controls.
    play = Toggle(label="▶", active=False, name="play_toggle", width=110, syncable=False)
    # The right margin keeps its handle, at the end when the cursor rests, inside a phone's screen.
    time = Slider(start=0, end=1, value=1, step=0.001, show_value=True, title="time", name="play_time", tooltips=False,
                  sizing_mode="stretch_width", syncable=False, styles={"font-variant-numeric": "tabular-nums"},
                  margin=(5, 14, 5, 5))
    time.format = CustomJSTickFormatter(args=dict(words=src["teach_words"], time=time), code=CLOCK_JS,
                                        name="play_clock")
    # Widths that fit a phone (a 360 px screen leaves the charts about 340 px).
    speed = RadioButtonGroup(labels=SPEED_LABELS, active=2, name="play_speed", width=195, syncable=False)
    download = Button(label="PNG", name="download", sizing_mode="stretch_width", max_width=220)
    why = Div(text="", name="why", sizing_mode="stretch_width", syncable=False,
              styles={"font-size": "13px", "min-height": "1.5em"}, html_attributes={"role": "status"})
    refs = dict(
        ops=src["ops"], bubbles=src["bubbles"], waits=src["waits"], mb_ops=src["mb_ops"], words=src["teach_words"],
        critical=src["critical_path"], steps=src["cursor_steps"], bars=src["bars"], cursor_bars=src["cursor_bars"],
        why=why, play=play, time=time, speed=speed, cursors=cursors, curtains=curtains, bars_dim=bars_dim,
        download=download, timeline=tl, inflight=bars, slide=[legend, readout, summary], slide_texts=src["slide_texts"],
        cursor_glyphs=cursor_glyphs,
        # How a figure's readout wraps (view/teach.py: slide_lines, slide_extra).
        slide_wrap=dict(breaks=[list(b) for b in teach.SLIDE_BREAKS], line_height=teach.SLIDE_LINE_HEIGHT,
                        margin=teach.SLIDE_MARGIN_PX),
    )
    handler = CustomJS(args=dict(refs=refs), code=lib + "\nPipevizTeach.on(refs, cb_obj);")
    src["ops"].selected.js_on_change("indices", handler)
    src["bubbles"].selected.js_on_change("indices", handler)
    src["ops"].js_on_change("data", handler)
    src["critical_path"].js_on_change("data", handler)
    src["cursor_steps"].js_on_change("data", handler)
    src["bars"].js_on_change("data", handler)
    src["teach_words"].js_on_change("data", handler)
    play.js_on_change("active", handler)
    time.js_on_change("value", handler)
    time.js_on_change("end", handler)
    cursors[0].js_on_change("location", handler)
    download.js_on_event("button_click", handler)

    # Why a rank idles, in the bubbles' tooltip: the formatter of their "@rank{why}".
    why_format = CustomJSHover(args=dict(refs=refs), code=lib + "\nreturn PipevizTeach.why(refs, special_vars.index);",
                               name="why_format")
    hover = next(t for t in tl.tools if t.name == "bubbles_hover")
    hover.formatters = {**hover.formatters, "@rank": why_format}

    sweep_m, sweep_v, sweep_sources = sweep.build(FONT)
    play_controls = column(row(play, time, sizing_mode="stretch_width"), row(speed, download, sizing_mode="stretch_width"),
                           why, name="play_controls", sizing_mode="stretch_width")
    models: dict = {}
    for model in [*own.values(), *sweep_sources.values(), why, play, time, time.format, speed, download, legend, readout,
                  summary, why_format, bars_dim, *cursors, *curtains, *keys, *tl.tools]:
        if model.name:
            models.setdefault(model.name, model)
    for r in (*tl.renderers, *bars.renderers):
        if r.name:
            models.setdefault(r.name, r)
    for r in tl.renderers:
        if r.glyph.name:
            models.setdefault(r.glyph.name, r.glyph)
    for fig in (sweep_m, sweep_v):
        for model in fig.references():
            if model.name:
                models.setdefault(model.name, model)
    return Parts(sources={**own, **sweep_sources}, models=models, play_controls=play_controls, sweep_m=sweep_m,
                 sweep_v=sweep_v)
