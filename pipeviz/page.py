"""The explorer as one self-contained HTML file: `python -m pipeviz page -o explorer.html`.

A pure Bokeh document saved with inline resources: no server, no CDN, no network.
The figures are the served app's (`pipeviz.render.figures.Figures`); Bokeh widgets
replace Panel's, and CustomJS callbacks run the engine in the page
(static/engine.js) and fill the same columns (static/explorer.js). The URL's
fragment or query sets the state: `explorer.html#schedule=interleaved&P=8&m=16&V=2`.
"""

from __future__ import annotations

import json
from pathlib import Path

from bokeh.document import Document
from bokeh.embed import file_html
from bokeh.events import DocumentReady
from bokeh.layouts import column, row
from bokeh.models import (
    Button,
    CustomJS,
    Div,
    InlineStyleSheet,
    RadioButtonGroup,
    RadioGroup,
    Slider,
    Spinner,
    Toggle,
)
from bokeh.resources import Resources

from .config import Config
from .engine import run
from .errors import ConfigError
from .registry import NAMES, SCHEDULES
from .render import data
from .render.data import KIND_COLORS, W_ONLY_COLOR
from .render.figures import ROW_PX, Figures
from .render.readouts import CSS
from .urlstate import FIELDS, KEYS, PRESETS

STATIC = Path(__file__).resolve().parent.parent / "static"

PAGE_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; }
.pv-page { display: flex; flex-wrap: wrap; gap: 8px 16px; padding: 8px; box-sizing: border-box; }
.pv-controls { flex: 0 1 320px; min-width: 240px; }
.pv-main { flex: 1 1 560px; min-width: 0; }
.pv-charts-row { display: flex; flex-wrap: wrap; gap: 0 8px; }
.pv-charts { flex: 1 1 420px; min-width: 0; }
.pv-bars { flex: 0 0 240px; }
.pv-table-root { max-width: 100%; overflow-x: auto; }
"""

# The readouts are plain HTML outside Bokeh: replacing a Bokeh Div's text costs a
# layout pass (measured 2.5 ms per Div per update), setting innerHTML does not.
NOTICE_CSS = """
.pv-notice { border-radius: 4px; padding: 2px 10px; margin: 4px 0; font-size: 13px; }
.pv-notice.pv-info { background: #e8f4fb; border: 1px solid #b6dcf0; }
.pv-notice.pv-warning { background: #fff4e0; border: 1px solid #f0c987; }
.pv-notice p { margin: 4px 0; }
.pv-readout-box { padding: 0 5px; }
.pv-bars-key { padding: 0 5px; }
"""

TEMPLATE = """
{% block preamble %}
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>{{ page_css }}</style>
<style>{{ readout_css }}</style>
<script>window.PIPEVIZ_CONSTANTS = {{ constants }};</script>
<script>{{ engine_js }}</script>
<script>{{ explorer_js }}</script>
{% endblock %}
{% block contents %}
<div class="pv-page">
  <div class="pv-controls">{{ embed(roots.layout_controls) }}</div>
  <div class="pv-main">
    <div id="pv-notice" class="pv-notice" hidden></div>
    <div id="pv-readout" class="pv-readout-box"></div>
    <div class="pv-charts-row">
      <div class="pv-charts">{{ embed(roots.layout_charts) }}</div>
      <div class="pv-bars">{{ embed(roots.layout_bars) }}<div id="pv-bars-key" class="pv-bars-key"></div></div>
    </div>
    <h3 style="margin:8px 5px 4px">All schedules at this P, m and V</h3>
    <div id="pv-table" class="pv-table-root"></div>
  </div>
</div>
{% endblock %}
"""


class InlineOnly(Resources):
    """Bokeh's own JS, inline, and nothing else. Bokeh adds the `__javascript__` URLs
    of every model class ever imported (Panel's, once panel is imported in the same
    process), which would make the page fetch them; this page uses none."""

    def __init__(self, components=None):
        super().__init__(mode="inline", components=components)

    def clone(self, *, components=None) -> "InlineOnly":  # Bokeh clones into a plain Resources
        return InlineOnly(components=components if components is not None else list(self.components))

    def _collect_external_resources(self, resource_attr):
        return []


def constants(figs: Figures) -> dict:
    """What static/explorer.js needs from Python, so each lives in one place."""
    fields = {
        k: {"isInt": f.kind is int, "low": f.low, "high": f.high, "rangeText": f.range_text}
        for k, f in FIELDS.items()
    }
    return {
        "keys": list(KEYS), "fields": fields, "presets": PRESETS,
        "kindColors": list(KIND_COLORS), "wOnlyColor": W_ONLY_COLOR,
        "row": data.ROW, "maxChunks": data.MAX_CHUNKS, "labelPxPerChar": data.LABEL_PX_PER_CHAR,
        "plotPx": figs.plot_px, "rowPx": ROW_PX,
    }


def _check_ranges(cfg: Config) -> None:
    """The page's sliders have the served app's ranges; refuse what they cannot show."""
    values = dict(P=cfg.P, m=cfg.m, V=cfg.V, tf=cfg.costs.tf, tb=cfg.costs.tb, tw=cfg.costs.tw, comm=cfg.costs.comm)
    for key, value in values.items():
        f = FIELDS[key]
        if not f.low <= value <= f.high:
            raise ConfigError(f"{key}={value:g} is outside the explorer's range {f.range_text}")


def build(cfg: Config) -> str:
    """The page's HTML, opening at `cfg` (a ConfigError if the explorer cannot show it)."""
    _check_ranges(cfg)
    run(cfg)  # the same checks and messages as everywhere else
    figs = Figures()
    c = cfg.costs

    schedule = RadioGroup(
        labels=[f"{SCHEDULES[n].title}: {SCHEDULES[n].summary}" for n in NAMES],
        active=NAMES.index(cfg.schedule), sizing_mode="stretch_width", name="schedule",
        stylesheets=[InlineStyleSheet(css="label { white-space: normal !important; line-height: 1.25; }")],
    )

    def slider(key: str, title: str, value: int) -> Slider:
        f = FIELDS[key]
        return Slider(start=f.low, end=f.high, step=1, value=value, title=title, sizing_mode="stretch_width", name=key)

    def spinner(key: str, title: str, value: float) -> Spinner:
        f = FIELDS[key]
        return Spinner(low=f.low, high=f.high, step=0.1, value=value, title=title, width=140, name=key)

    P = slider("P", "P (ranks)", cfg.P)
    m = slider("m", "m (micro-batches)", cfg.m)
    V = slider("V", "V (chunks per rank)", cfg.V)
    tf = spinner("tf", "t_f (forward)", c.tf)
    tb = spinner("tb", "t_b (backward, input grad)", c.tb)
    tw = spinner("tw", "t_w (backward, weight grad)", c.tw)
    comm = spinner("comm", "comm (per hop)", c.comm)
    article = Button(label="Article defaults", name="preset-article")
    gpt = Button(label="Profiled GPT (ZB paper)", name="preset-gpt")
    costs_note = Div(
        text="Per rank's whole share of the model. Presets: the article's units (t_f = t_b = t_w = 1), "
        "or the Zero Bubble paper's measured GPT stage (F 18.5, B 18.1, W 9.3, comm 0.6 ms; sets P=8, m=24).",
        styles={"font-size": "12px"}, sizing_mode="stretch_width",
    )
    costs_box = column(costs_note, row(article, gpt), row(tf, tb), row(tw, comm), visible=False,
                       sizing_mode="stretch_width")
    costs_toggle = Toggle(label="Costs", active=False, name="costs-toggle")
    costs_toggle.js_link("active", costs_box, "visible")
    unit = RadioButtonGroup(labels=["micro-batches", "chunks"], active=0, name="unit")

    ui = dict(
        schedule=schedule, P=P, m=m, V=V, tf=tf, tb=tb, tw=tw, comm=comm, unit=unit,
        ops=figs.ops, labels=figs.labels, bubbles=figs.bubbles, bars=figs.bars, steps=figs.steps,
        x_range=figs.x_range, y_range=figs.y_range, op_colors=figs.op_colors, rank_colors=figs.rank_colors,
        timeline=figs.timeline, inflight=figs.inflight, over_time=figs.over_time, w_only=figs.w_only_renderer,
        rank_axis=figs.timeline.yaxis[0], bars_axis=figs.inflight.xaxis[0], over_time_axis=figs.over_time.yaxis[0],
    )

    def callback(what: str, key: str = "") -> CustomJS:
        return CustomJS(args=dict(ui=ui, what=what, key=key), code="PipevizExplorer.handle(ui, what, key)")

    schedule.js_on_change("active", callback("change", "schedule"))
    for key, widget in (("P", P), ("m", m), ("V", V), ("tf", tf), ("tb", tb), ("tw", tw), ("comm", comm)):
        widget.js_on_change("value", callback("change", key))
    unit.js_on_change("active", callback("change", "unit"))
    article.js_on_click(callback("preset", "article"))
    gpt.js_on_click(callback("preset", "gpt"))

    controls = column(
        Div(text="<h2 style='margin:4px 0'>pipeviz</h2>How pipeline-parallel training spends its time.",
            sizing_mode="stretch_width"),
        Div(text="<b>Schedule</b>"), schedule, P, m, V, costs_toggle, costs_box,
        Div(text="<b>In-flight bars in</b>"), unit,
        name="layout_controls", sizing_mode="stretch_width",
    )
    doc = Document(title="pipeviz explorer")
    doc.add_root(controls)
    doc.add_root(column(figs.timeline, figs.over_time, name="layout_charts", sizing_mode="stretch_width"))
    doc.add_root(column(figs.inflight, name="layout_bars"))
    doc.js_on_event(DocumentReady, callback("ready"))
    figs.timeline.js_on_change("inner_width", callback("resize"))

    def script(path: Path) -> str:
        text = path.read_text(encoding="utf-8")
        if "</script" in text.lower():  # it would end the inline <script> early
            raise ValueError(f"{path} contains '</script'; it cannot be inlined")
        return text

    return file_html(
        doc, resources=InlineOnly(), title="pipeviz explorer", template=TEMPLATE,
        template_variables=dict(
            page_css=PAGE_CSS,
            readout_css=CSS + NOTICE_CSS,
            constants=json.dumps(constants(figs)).replace("</", "<\\/"),
            engine_js=script(STATIC / "engine.js"),
            explorer_js=script(STATIC / "explorer.js"),
        ),
    )


def write(cfg: Config, path: str) -> int:
    html = build(cfg)
    Path(path).write_text(html, encoding="utf-8")
    return len(html.encode("utf-8"))
