"""The explorer as one self-contained HTML file: `python -m pipeviz page -o explorer.html`.

A pure Bokeh document saved with inline resources: no server, no CDN, no network.
The figures are the served app's (`pipeviz.render.figures.Figures`); Bokeh widgets
replace Panel's, and CustomJS callbacks run the engine in the page and apply its
figure view to the same named models.

What both explorers share is written once, in Python, and reaches the page as data
(`page_data`): the strings table (English and Chinese), the schedules' entries, the
fields and presets, the palette and the readouts' layouts. Only what the browser must
compute is twinned in JavaScript (`pipeviz/static/`, read with importlib.resources):
  text.js          fill a template from the strings table (text.py)
  engine.js        orders, the simulator, metrics, exact fractions (order.py,
                   simulate.py, metrics.py, closed_form.py, engine.py)
  schedules/*.js   one generator and closed form per schedule (schedules/*.py)
  fields.js        the URL (view/fields.py)
  state.js         the state rules (view/state.py)
  columns.js       each figure's columns and properties (view/columns.py)
  readouts.js      the readouts (view/readouts.py)
  explorer.js      widgets <-> state, drawing (app.py's role)
tests/test_js_parity.py holds each part to its Python original.
"""

from __future__ import annotations

import json
from importlib import resources

from bokeh.document import Document
from bokeh.embed import file_html
from bokeh.events import DocumentReady
from bokeh.layouts import column, row
from bokeh.models import (
    CustomJS,
    Div,
    InlineStyleSheet,
    RadioButtonGroup,
    RadioGroup,
    Select,
    Slider,
    Spinner,
    Toggle,
)
from bokeh.resources import Resources

from . import text
from .config import Config
from .errors import ConfigError
from .registry import NAMES, SCHEDULES
from .render.figures import Figures
from .render.style import PAGE_CSS, READOUT_CSS
from .text import template
from .view import palette
from .view.columns import LABEL_PX_PER_CHAR, ROW, ROW_PX
from .view.fields import FIELDS, PRESETS
from .view.readouts import LAYOUTS, TABLE_HEAD

# In the order the page loads them: each may use those before it.
SCRIPTS = ("text.js", "engine.js", "fields.js", "state.js", "columns.js", "readouts.js", "explorer.js")


def read_static(name: str) -> str:
    """A file of pipeviz/static/, as installed (a missing file is a read error)."""
    try:
        return resources.files("pipeviz").joinpath("static", *name.split("/")).read_text(encoding="utf-8")
    except OSError as e:
        raise OSError(f"cannot read pipeviz/static/{name}: {e.strerror or e}") from None


def schedule_scripts() -> list[str]:
    """The JavaScript twin of every registered schedule, in the registry's order."""
    return [f"schedules/{name.replace('-', '_')}.js" for name in SCHEDULES]


def page_data() -> dict:
    """Everything the page's JavaScript reads instead of repeating it."""
    return {
        "strings": text.table(),
        "schedules": [spec.as_data() for spec in SCHEDULES.values()],
        "fields": [f.as_data() for f in FIELDS.values()],
        "presets": {name: p.values for name, p in PRESETS.items()},
        "palette": palette.as_data(),
        "layouts": LAYOUTS,
        "tableHead": list(TABLE_HEAD),
        "consts": {"row": ROW, "rowPx": ROW_PX, "labelPxPerChar": LABEL_PX_PER_CHAR},
    }


def _inline(code: str, name: str) -> str:
    if "</script" in code.lower():  # it would end the inline <script> early
        raise ValueError(f"{name} contains '</script'; it cannot be inlined")
    return code


def scripts() -> str:
    """Every script of the page, in load order, as one string of <script> tags."""
    names = [*SCRIPTS[:2], *schedule_scripts(), *SCRIPTS[2:]]
    data = json.dumps(page_data(), ensure_ascii=False).replace("</", "<\\/")
    parts = [f"<script>window.PIPEVIZ_DATA = {data};</script>"]
    parts += [f"<script>{_inline(read_static(n), n)}</script>" for n in names]
    return "\n".join(parts)


TEMPLATE = """
{% block preamble %}
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>{{ page_css }}</style>
{{ scripts }}
{% endblock %}
{% block contents %}
<div class="pv-page" lang="{{ lang }}">
  <div class="pv-controls">{{ embed(roots.layout_controls) }}</div>
  <div class="pv-main">
    <div id="pv-notice" class="pv-notice" role="status" hidden></div>
    <div id="pv-readout" class="pv-readout-box" role="status" aria-live="polite"></div>
    <div class="pv-charts-row">
      <div class="pv-charts">{{ embed(roots.layout_charts) }}</div>
      <div class="pv-bars">{{ embed(roots.layout_bars) }}<div id="pv-bars-key" class="pv-bars-key"></div></div>
    </div>
    <h3 id="pv-table-title" style="margin:8px 5px 4px">{{ table_title }}</h3>
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

    def clone(self, *, components=None) -> InlineOnly:  # Bokeh clones into a plain Resources
        return InlineOnly(components=components if components is not None else list(self.components))

    def _collect_external_resources(self, resource_attr):
        return []


def widgets(cfg: Config, lang: str) -> dict:
    """One Bokeh widget per field the page shows, named after the field; the page's
    JavaScript gives them their labels in the chosen language."""
    t = lambda key: template(key, lang)  # noqa: E731
    c = cfg.costs

    def slider(key: str, value: int) -> Slider:
        f = FIELDS[key]
        return Slider(start=f.low, end=f.high, step=1, value=value, title=t(f.label_key), sizing_mode="stretch_width",
                      name=key)

    def spinner(key: str, value: float) -> Spinner:
        f = FIELDS[key]
        return Spinner(low=f.low, high=f.high, step=f.step, value=value, title=t(f.label_key), width=140, name=key)

    return dict(
        schedule=RadioGroup(
            labels=[f"{t(f'sched.{n}.title')}: {t(f'sched.{n}.summary')}" for n in NAMES],
            active=NAMES.index(cfg.schedule), sizing_mode="stretch_width", name="schedule",
            stylesheets=[InlineStyleSheet(css="label { white-space: normal !important; line-height: 1.25; }")],
        ),
        P=slider("P", cfg.P), m=slider("m", cfg.m), V=slider("V", cfg.V),
        tf=spinner("tf", c.tf), tb=spinner("tb", c.tb), tw=spinner("tw", c.tw), comm=spinner("comm", c.comm),
        unit=RadioButtonGroup(labels=[t(f"choice.unit.{u}") for u in FIELDS["unit"].choices], active=0, name="unit"),
        lang=RadioButtonGroup(labels=[t(f"choice.lang.{x}") for x in FIELDS["lang"].choices],
                              active=FIELDS["lang"].choices.index(lang), name="lang"),
        preset=Select(title=t("field.preset"), options=[(p, t(f"preset.{p}")) for p in PRESETS], value="article",
                      name="preset"),
    )


def document_html(cfg: Config, lang: str, script_tags: str) -> str:
    figs = Figures()
    ui = widgets(cfg, lang)

    def callback(what: str, key: str = "") -> CustomJS:
        return CustomJS(args=dict(ui=ui, what=what, key=key), code="PipevizExplorer.handle(ui, what, key)")

    for key, widget in ui.items():
        prop = "active" if key in ("schedule", "unit", "lang") else "value"
        widget.js_on_change(prop, callback("change", key))
    costs_box = column(
        Div(text=template("costs.note", lang), styles={"font-size": "12px"}, sizing_mode="stretch_width",
            name="costs_note"),
        row(ui["tf"], ui["tb"]), row(ui["tw"], ui["comm"]), visible=False, sizing_mode="stretch_width",
    )
    costs_toggle = Toggle(label=template("costs.title", lang), active=False, name="costs-toggle")
    costs_toggle.js_link("active", costs_box, "visible")
    controls = column(
        Div(text=f"<h2 style='margin:4px 0'>pipeviz</h2>{template('app.tagline', lang)}", sizing_mode="stretch_width",
            name="tagline"),
        ui["lang"], ui["preset"], ui["schedule"], ui["P"], ui["m"], ui["V"], costs_toggle, costs_box,
        Div(text=f"<b>{template('field.unit', lang)}</b>", name="unit_label"), ui["unit"],
        name="layout_controls", sizing_mode="stretch_width",
    )
    doc = Document(title="pipeviz explorer")
    doc.add_root(controls)
    doc.add_root(column(figs.timeline, figs.over_time, name="layout_charts", sizing_mode="stretch_width"))
    doc.add_root(column(figs.inflight, name="layout_bars"))
    doc.js_on_event(DocumentReady, callback("ready"))
    figs.timeline.js_on_change("inner_width", callback("resize"))
    return file_html(
        doc, resources=InlineOnly(), title="pipeviz explorer", template=TEMPLATE,
        template_variables=dict(page_css=PAGE_CSS + READOUT_CSS, scripts=script_tags, lang=lang,
                                table_title=template("table.title", lang)),
    )


def build(cfg: Config, lang: str = "en") -> str:
    """The page's HTML, opening at `cfg` (a ConfigError if the explorer cannot show it)."""
    for key, value in (("P", cfg.P), ("m", cfg.m), ("V", cfg.V), ("tf", cfg.costs.tf), ("tb", cfg.costs.tb),
                       ("tw", cfg.costs.tw), ("comm", cfg.costs.comm)):
        f = FIELDS[key]
        if not f.low <= value <= f.high:
            raise ConfigError("page.range", key=key, value=value, valid=f.range_text)
    from .engine import run

    run(cfg)  # the same checks and messages as everywhere else
    return document_html(cfg, lang, scripts())


text.strings({
    "page.range": ("{key}={value} is outside the explorer's range {valid}", "{key}={value} 超出了浏览器界面的范围 {valid}"),
})
