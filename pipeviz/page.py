"""The explorer as one self-contained HTML file: `python -m pipeviz page -o explorer.html`.

A pure Bokeh document saved with inline resources: no server, no CDN, no network.
The figures are the served app's (`pipeviz.render.figures.Figures`); Bokeh widgets
replace Panel's, and CustomJS callbacks run the engine in the page and apply its
figure view to the same named models.

What both explorers share is written once, in Python, and reaches the page as data
(`page_data`): the strings table (English and Chinese), the schedules' entries, the
fields and presets, the rules' names, the palette, the readouts' layouts, the
figures' fixed words and the widgets' words in each language. Only what the browser
must compute is twinned in JavaScript (`static/`, installed as `pipeviz.static`;
each file adds to one of the globals PipevizText, PipevizEngine, PipevizExplorer):
  text.js          fill a template from the strings table (text.py)
  engine.js        orders, the simulator, metrics, exact fractions, stage weights,
                   the bubble's parts (order.py, simulate.py, metrics.py,
                   closed_form.py, engine.py, stages.py, decompose.py)
  memory.js        model configs and bytes per rank (memory.py)
  custom.js        an order of one's own: read (text or JSON), time, deadlocks (custom.py)
  schedules/*.js   one generator and closed form per schedule (schedules/*.py)
  encoder.js       an encoder in the bubbles (encoder.py)
  balance.js       activation balancing, BPipe (balance.py)
  fields.js        the URL (view/fields.py)
  memory_view.js   the model's state rule, memory figure and readouts (view/memory_view.py)
  state.js         the state rules (view/state.py)
  columns.js       each figure's columns and properties (view/columns.py)
  readouts.js      the readouts (view/readouts.py)
  closing.js       the closing section's readouts: encoder, balancing (view/closing.py)
  paint.js         Bokeh's repaint without the work that changes nothing (both explorers)
  puzzle.js        a puzzle: the board the moves make, refusals, hint, score (puzzle.py)
  puzzle_view.js   the puzzle's rule, block and figures' part (view/puzzle.py), and its glue
  puzzle_board.js  the puzzle's block in the browser: clicks, keys, focus (both explorers)
  explorer.js      widgets <-> state, drawing (app.py's role)
tests/test_js_parity.py holds each part to its Python original.
"""

from __future__ import annotations

import json
import re
from html import escape

from bokeh.document import Document
from bokeh.embed import file_html
from bokeh.events import DocumentReady, RangesUpdate
from bokeh.layouts import column, row
from bokeh.models import (
    Button,
    CheckboxGroup,
    CustomJS,
    Div,
    InlineStyleSheet,
    RadioButtonGroup,
    RadioGroup,
    Select,
    Slider,
    Spinner,
    TextAreaInput,
    TextInput,
    Toggle,
)
from bokeh.resources import Resources

from . import custom, memory, stages, static, text
from .config import MAX_OPS, Config
from .costs import COST_MAX, COST_MIN, MAY_BE_ZERO
from .costs import NAMES as COST_NAMES
from .custom import MAX_TEXT
from .errors import ConfigError
from .registry import NAMES, SCHEDULES
from .render.figures import HIDE_EMPTY, Figures
from .render.puzzle import PUZZLE_CSS
from .render.style import PAGE_CSS, READOUT_CSS
from .text import template
from .view import columns, glance, lod, palette, puzzle, sweep
from .view.columns import CHUNKS, LABEL_PX_PER_CHAR, ROW, ROW_PX
from .view.features import FEATURES
from .view.fields import FIELDS, MAX_RAW, PRESETS, defaults
from .view.readouts import LAYOUTS, MEMORY_HEAD, TABLE_HEAD
from .view.state import ENGINE_FIELDS, LATER_MS

# The teaching toggles (view/teach.py's fields), shown as Bokeh toggles named after them.
TOGGLES = ("critical", "projector")
# In the order the page loads them: each may use those before it.
SCRIPTS = ("text.js", "engine.js", "memory.js", "custom.js", "encoder.js", "balance.js", "causes.js", "puzzle.js",
           "fields.js", "memory_view.js", "state.js", "columns.js", "readouts.js", "closing.js", "glance.js", "paint.js",
           "a11y.js", "teach.js", "sweep.js", "puzzle_view.js", "puzzle_board.js", "explorer.js")


def read_static(name: str) -> str:
    """A file of static/ (installed as pipeviz.static; a missing file is a read error)."""
    return static.read(name)


def schedule_scripts() -> list[str]:
    """The JavaScript twin of every registered schedule, in the registry's order."""
    return [f"schedules/{name.replace('-', '_')}.js" for name in SCHEDULES]


def page_data() -> dict:
    """Everything the page's JavaScript reads instead of repeating it."""
    from .engine import RTOL

    return {
        "strings": text.table(),
        "engine": {"maxOps": MAX_OPS, "rtol": RTOL, "costMin": COST_MIN, "costMax": COST_MAX,
                   "costNames": list(COST_NAMES), "mayBeZero": list(MAY_BE_ZERO),
                   "weights": {"min": stages.WEIGHT_MIN, "max": stages.WEIGHT_MAX, "maxShown": stages.MAX_SHOWN}},
        "memory": memory.as_data(),
        "schedules": [spec.as_data() for spec in SCHEDULES.values()],
        "fields": [f.as_data() for f in FIELDS.values()],
        "presets": {name: p.values for name, p in PRESETS.items()},
        "url": {"maxRaw": MAX_RAW},
        "rules": {"engineFields": list(ENGINE_FIELDS), "laterMs": LATER_MS},
        "custom": {"name": custom.CUSTOM, "maxDepth": custom.MAX_DEPTH, "maxNumber": custom.MAX_NUMBER,
                   "maxText": custom.MAX_TEXT},
        "palette": palette.as_data(),
        "layouts": layouts(),
        "tableHead": list(TABLE_HEAD),
        "tableMemoryHead": MEMORY_HEAD,
        "consts": {"row": ROW, "rowPx": ROW_PX, "labelPxPerChar": LABEL_PX_PER_CHAR, "chunksUnit": CHUNKS,
                   "plotPx": Figures().plot_px, "hideEmpty": list(HIDE_EMPTY),
                   "lod": {"minPx": lod.MIN_PX, "outlinePx": lod.OUTLINE_PX, "cull": lod.CULL,
                           "bubblePx": lod.BUBBLE_PX, "stepPx": lod.STEP_PX}},
        "figureTexts": {lang: columns.texts(lang) for lang in text.LANGS},
        "balancedTexts": {lang: columns.balanced_texts(lang) for lang in text.LANGS},
        "widgetTexts": {lang: widget_texts(lang) for lang in text.LANGS},
        "glance": glance.as_data(),
        # Each feature's own (view/features.py), by its name.
        "features": {f.name: f.data() for f in FEATURES if f.data is not None},
        "sweep": sweep.as_data(),
    }


def layouts() -> dict:
    """The readouts' markup and every feature's, in one table (static/readouts.js
    composes from it); a name stands once."""
    out = dict(LAYOUTS)
    for f in FEATURES:
        clash = out.keys() & f.layouts.keys()
        if clash:
            raise ValueError(f"feature {f.name!r} redefines layouts {sorted(clash)}")
        out.update(f.layouts)
    return out


def _inline(code: str, name: str) -> str:
    if re.search(r"</script|<!--", code, flags=re.I):  # either would end or change the inline <script>
        raise ValueError(f"{name} contains '</script' or '<!--'; it cannot be inlined")
    return code


def lean(code: str) -> str:
    """A script without its comments that stand alone (its leading /* */ block and every
    line that is only a // comment) and without indentation: they are for readers of
    static/, and the page must stay within its size budget. (The scripts hold
    no template literals and no line continuations, so no line starts inside a string.)"""
    code = re.sub(r"\A\s*/\*.*?\*/\s*", "", code, count=1, flags=re.S)
    return "".join(line.lstrip(" ") for line in code.splitlines(True) if not line.lstrip().startswith("//"))


def script_names() -> list[str]:
    """The page's scripts in load order: each may use those before it."""
    return [*SCRIPTS[:2], *schedule_scripts(), *SCRIPTS[2:]]


def scripts() -> str:
    """Every script of the page, in load order, as one string of <script> tags."""
    data = json.dumps(page_data(), ensure_ascii=False).replace("<", "\\u003c")  # no markup inside <script>
    parts = [f"<script>window.PIPEVIZ_DATA = {data};</script>"]
    parts += [f"<script>{_inline(lean(read_static(n)), n)}</script>" for n in script_names()]
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
    <div id="pv-puzzle" class="pv-puzzle-box">{{ puzzle_block }}</div>
    <div id="pv-closing" class="pv-readout-box" role="status" aria-live="polite"></div>
    <div id="pv-legend" class="pv-legend-box"></div>
    <div class="pv-charts-row">
      <div class="pv-charts">{{ embed(roots.layout_charts) }}<div id="pv-lines-key" class="pv-lines-box"></div></div>
      <div class="pv-bars">{{ embed(roots.layout_bars) }}<div id="pv-bars-key" class="pv-bars-key"></div></div>
    </div>
    <div id="pv-places" class="pv-readout-box"></div>
    <details id="pv-ops" class="pv-ops-details"><summary id="pv-ops-summary">{{ ops_title }}</summary>
      <label class="pv-ops-rank"><span id="pv-ops-rank-label">{{ ops_rank }}</span>
        <select id="pv-ops-rank" aria-labelledby="pv-ops-rank-label"><option value="0">0</option></select></label>
      <div id="pv-ops-table"></div>
    </details>
    <div id="pv-memory-readout" class="pv-readout-box" role="status" aria-live="polite" hidden></div>
    <div class="pv-charts-row">
      <div class="pv-charts">{{ embed(roots.layout_memory) }}</div>
      <div class="pv-bars"><div id="pv-memory-key" class="pv-bars-key" hidden></div></div>
    </div>
    <h3 id="pv-table-title" style="margin:8px 5px 4px">{{ table_title }}</h3>
    <div id="pv-table" class="pv-table-root"></div>
    <div class="pv-sweep"><div class="pv-sweep-m">{{ embed(roots.layout_sweep_m) }}</div>
      <div class="pv-sweep-v">{{ embed(roots.layout_sweep_v) }}</div></div>
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


# Markup around words on the page's Divs (the words are escaped into {text}).
DIV_LAYOUTS = {
    "tagline": "<h2 style='margin:4px 0'>pipeviz</h2>{text}",
    "unit_label": "<b>{text}</b>",
    "over_time_label": "<b>{text}</b>",
    "costs_note": "{text}",
    "encoder_label": "<b>{text}</b>",
    "model_note": "{text}",
    "own_note": "{text}",
    "placement_label": "<b>{text}</b>",
}
# The model card's widgets (view/memory_view.py's fields), in the order shown.
MODEL_SELECTS = ("model", "act", "bpp", "stages")
MODEL_SPINNERS = ("hbm", "t", "s", "b", "L", "h", "a", "vocab", "embed", "head")


def widget_texts(lang: str) -> dict:
    """Every word on the page's widgets and Divs in `lang`, by model name: the page is
    built with them, and its JavaScript relabels the models with them when the reader
    switches language."""
    t = lambda key: template(key, lang)  # noqa: E731
    out: dict = {key: {"title": t(FIELDS[key].label_key)} for key in ("P", "m", "V", "tf", "tb", "tw", "comm", "tfb", "ef", "eb")}
    out["schedule"] = {"labels": [f"{t(f'sched.{n}.title')}: {t(f'sched.{n}.summary')}" for n in NAMES]}
    for key in ("unit", "lang", "placement", "encoder"):
        out[key] = {"labels": [t(f"choice.{key}.{c}") for c in FIELDS[key].choices]}
    for key in ("frozen", "balance", "untied"):  # a one-box CheckboxGroup: its label names the box (Checkbox's does not)
        out[key] = {"labels": [t(FIELDS[key].label_key)]}
    # Your own order (view/own_order.py): the box, its switch, "Edit this schedule".
    out["order"] = {"title": t("field.order"), "placeholder": t("own.placeholder")}
    out["custom"] = {"label": t("field.custom")}
    out["edit"] = {"label": t("own.edit")}
    out["own-toggle"] = {"label": t("own.title")}
    # The menu names the preset the view is, or shows its prompt (view/glance.matching_preset).
    out["preset"] = {"title": t("field.preset"),
                     "options": [["", t("preset.prompt")], *([p, t(f"preset.{p}")] for p in PRESETS)]}
    out["costs-toggle"] = {"label": t("costs.title")}
    out.update({key: {"label": t(FIELDS[key].label_key)} for key in TOGGLES})
    for key in MODEL_SELECTS:
        out[key] = {"title": t(f"field.{key}"), "options": [[c, t(f"choice.{key}.{c}")] for c in FIELDS[key].choices]}
    for key in (*MODEL_SPINNERS, "weights"):
        out[key] = {"title": t(f"field.{key}")}
    out["over_time_unit"] = {"labels": [t(f"choice.over_time_unit.{c}") for c in FIELDS["over_time_unit"].choices]}
    out["model-toggle"] = {"label": t("model.title")}
    for name, key in (("tagline", "app.tagline"), ("unit_label", "field.unit"), ("costs_note", "costs.note"),
                      ("over_time_label", "field.over_time_unit"), ("model_note", "model.note"),
                      ("own_note", "own.note"), ("placement_label", "field.placement"),
                      ("encoder_label", "field.encoder")):
        out[name] = {"text": DIV_LAYOUTS[name].replace("{text}", escape(t(key)))}
    return out


def widgets(cfg: Config, lang: str) -> dict:
    """One Bokeh widget per field the page shows, named after the field (and the
    preset menu), labelled in `lang`."""
    texts = widget_texts(lang)
    c = cfg.costs

    def slider(key: str, value: int) -> Slider:
        f = FIELDS[key]
        # No bubble over the handle while dragging: it covered the title, which shows the value.
        return Slider(start=f.low, end=f.high, step=1, value=value, sizing_mode="stretch_width", name=key,
                      tooltips=False, **texts[key])

    def spinner(key: str, value: float) -> Spinner:
        f = FIELDS[key]
        return Spinner(low=f.low, high=f.high, step=f.step, value=value, sizing_mode="stretch_width", name=key,
                       **texts[key])

    def choice(key: str, value: str, **kw) -> RadioGroup | RadioButtonGroup:
        return kw.pop("cls", RadioButtonGroup)(active=FIELDS[key].choices.index(value), name=key, **texts[key], **kw)

    def float_slider(key: str, value: float) -> Slider:
        f = FIELDS[key]
        return Slider(start=f.low, end=f.high, step=f.step, value=value, sizing_mode="stretch_width", name=key,
                      **texts[key])

    enc = cfg.encoder

    return dict(
        schedule=choice(
            "schedule", cfg.schedule, cls=RadioGroup, sizing_mode="stretch_width",
            stylesheets=[InlineStyleSheet(css="label { white-space: normal !important; line-height: 1.25; }")],
        ),
        P=slider("P", cfg.P), m=slider("m", cfg.m), V=slider("V", cfg.V),
        tf=spinner("tf", c.tf), tb=spinner("tb", c.tb), tw=spinner("tw", c.tw), comm=spinner("comm", c.comm),
        tfb=spinner("tfb", c.tfb or 0.0),
        unit=choice("unit", FIELDS["unit"].default), lang=choice("lang", lang),
        balance=CheckboxGroup(active=[0] if cfg.balance is not None else [], name="balance", **texts["balance"]),
        encoder=choice("encoder", enc.place if enc else FIELDS["encoder"].default, cls=RadioGroup),
        ef=float_slider("ef", enc.ef if enc else FIELDS["ef"].default),
        eb=float_slider("eb", enc.eb if enc else FIELDS["eb"].default),
        frozen=CheckboxGroup(active=[0] if enc and enc.frozen else [], name="frozen", **texts["frozen"]),
        order=TextAreaInput(value="", rows=8, max_length=MAX_TEXT, sizing_mode="stretch_width", name="order",
                            stylesheets=[InlineStyleSheet(css="textarea { font-family: monospace; }")], **texts["order"]),
        placement=choice("placement", FIELDS["placement"].default, orientation="vertical", sizing_mode="stretch_width"),
        custom=Toggle(active=False, button_type="primary", sizing_mode="stretch_width", name="custom", **texts["custom"]),
        preset=Select(value=glance.matching_preset({**defaults(), **state_of(cfg), "lang": lang}) or "",
                      name="preset", **texts["preset"]),
        **{key: Toggle(active=bool(FIELDS[key].default), name=key, **texts[key]) for key in TOGGLES},
        **model_widgets(texts),
    )


def state_of(cfg: Config) -> dict:
    """The fields a configuration sets."""
    c = cfg.costs
    return {"schedule": cfg.schedule, "P": cfg.P, "m": cfg.m, "V": cfg.V, "tf": c.tf, "tb": c.tb, "tw": c.tw,
            "comm": c.comm}


def model_widgets(texts: dict) -> dict:
    """The model card's widgets, at the fields' defaults (a URL sets them)."""
    out = {}
    for key in MODEL_SELECTS:
        out[key] = Select(value=FIELDS[key].default, name=key, sizing_mode="stretch_width", **texts[key])
    for key in MODEL_SPINNERS:
        f = FIELDS[key]
        out[key] = Spinner(low=f.low, high=f.high, step=f.step, value=f.default, width=140, name=key, **texts[key])
    out["weights"] = TextInput(value=FIELDS["weights"].default, name="weights", sizing_mode="stretch_width",
                               **texts["weights"])
    out["untied"] = CheckboxGroup(active=[0] if FIELDS["untied"].default else [], name="untied", **texts["untied"])
    f = FIELDS["over_time_unit"]
    out["over_time_unit"] = RadioButtonGroup(active=f.choices.index(f.default), name="over_time_unit",
                                             **texts["over_time_unit"])
    return out


def puzzle_block(cfg: Config, lang: str) -> str:
    """The puzzle's block (view/puzzle.py) as the page opens, its puzzle put away: its
    own menus and buttons, which static/puzzle_board.js runs, each action going through
    PipevizExplorer.handle (static/puzzle_view.js draws it again at every change)."""
    state = {**defaults(), **state_of(cfg), "lang": lang}
    return puzzle.block_html(puzzle.block_values(state), lang)


def document_html(cfg: Config, lang: str, script_tags: str) -> str:
    """The Bokeh document: the served app's figures, Bokeh widgets, and callbacks that
    hand every event to static/explorer.js (PipevizExplorer.handle), which finds the
    models by name."""
    figs = Figures()
    ui = widgets(cfg, lang)
    texts = widget_texts(lang)

    def callback(what: str, key: str = "") -> CustomJS:
        # The explorer is looked up at each call, so a benchmark can wrap it.
        return CustomJS(args=dict(what=what, key=key, anchor=figs.timeline),
                        code="PipevizExplorer.handle(anchor.document, what, key)")

    for key, widget in ui.items():
        widget.js_on_change("active" if isinstance(widget, (RadioGroup, RadioButtonGroup, CheckboxGroup, Toggle))
                            else "value",
                            callback("change", key))
    edit = Button(sizing_mode="stretch_width", name="edit", **texts["edit"])
    edit.js_on_event("button_click", callback("edit"))
    own_box = column(
        Div(styles={"font-size": "12px"}, sizing_mode="stretch_width", name="own_note", **texts["own_note"]),
        edit, ui["order"], Div(name="placement_label", **texts["placement_label"]), ui["placement"], ui["custom"],
        visible=False, sizing_mode="stretch_width",
    )
    own_toggle = Toggle(active=False, name="own-toggle", **texts["own-toggle"])
    own_toggle.js_link("active", own_box, "visible")
    costs_box = column(
        Div(styles={"font-size": "12px"}, sizing_mode="stretch_width", name="costs_note", **texts["costs_note"]),
        # One cost a line: side by side, the longer labels ran into each other.
        ui["tf"], ui["tb"], ui["tw"], ui["comm"], ui["tfb"], visible=False, sizing_mode="stretch_width",
    )
    costs_toggle = Toggle(active=False, name="costs-toggle", **texts["costs-toggle"])
    costs_toggle.js_link("active", costs_box, "visible")
    model_box = column(
        ui["model"], row(ui["hbm"], ui["t"]), ui["act"], row(ui["s"], ui["b"]), row(ui["L"], ui["h"]),
        row(ui["a"], ui["vocab"]), ui["untied"], ui["bpp"], ui["stages"], ui["weights"], ui["embed"], ui["head"],
        Div(styles={"font-size": "12px"}, sizing_mode="stretch_width", name="model_note", **texts["model_note"]),
        visible=False, sizing_mode="stretch_width",
    )
    model_toggle = Toggle(active=False, name="model-toggle", **texts["model-toggle"])
    model_toggle.js_link("active", model_box, "visible")
    controls = column(
        Div(sizing_mode="stretch_width", name="tagline", **texts["tagline"]),
        ui["lang"], ui["preset"], ui["schedule"], ui["P"], ui["m"], ui["V"], costs_toggle, costs_box,
        model_toggle, model_box, own_toggle, own_box,
        Div(name="unit_label", **texts["unit_label"]), ui["unit"], ui["balance"],
        Div(name="over_time_label", **texts["over_time_label"]), ui["over_time_unit"],
        Div(name="encoder_label", **texts["encoder_label"]), ui["encoder"], ui["ef"], ui["eb"], ui["frozen"],
        row(*(ui[key] for key in TOGGLES)),
        name="layout_controls", sizing_mode="stretch_width",
    )
    doc = Document(title=template("page.title", lang))
    doc.add_root(controls)
    doc.add_root(column(figs.timeline, figs.play_controls, figs.over_time, name="layout_charts",
                        sizing_mode="stretch_width"))
    doc.add_root(column(figs.inflight, name="layout_bars"))
    doc.add_root(column(figs.sweep_m, name="layout_sweep_m", sizing_mode="stretch_width"))
    doc.add_root(column(figs.sweep_v, name="layout_sweep_v"))
    doc.add_root(column(figs.memory, name="layout_memory", sizing_mode="stretch_width"))
    doc.js_on_event(DocumentReady, callback("ready"))
    figs.timeline.js_on_change("inner_width", callback("resize"))
    for fig in (figs.timeline, figs.over_time):  # a pan or zoom ended: level the timeline again (view/lod.py)
        fig.js_on_event(RangesUpdate, CustomJS(args=dict(anchor=figs.timeline),
                                               code="PipevizExplorer.handle(anchor.document, 'zoom', [cb_obj.x0, cb_obj.x1])"))
    return file_html(
        doc, resources=InlineOnly(), title=template("page.title", lang), template=TEMPLATE,
        template_variables=dict(page_css=PAGE_CSS + READOUT_CSS + PUZZLE_CSS, scripts=script_tags, lang=lang,
                                puzzle_block=puzzle_block(cfg, lang),
                                table_title=escape(template("table.title", lang)),
                                ops_title=escape(template("ops.title", lang)),
                                ops_rank=escape(template("field.ops_rank", lang))),
    )


def build(cfg: Config, lang: str = "en") -> str:
    """The page's HTML, opening at `cfg` (a ConfigError if the explorer cannot show it)."""
    if cfg.G is not None:  # the explorers have no G field: they show Megatron's smallest valid group
        raise ConfigError("page.G", G=cfg.G)
    checked = [("P", cfg.P), ("m", cfg.m), ("V", cfg.V), ("tf", cfg.costs.tf), ("tb", cfg.costs.tb),
               ("tw", cfg.costs.tw), ("comm", cfg.costs.comm), ("tfb", cfg.costs.tfb or 0.0)]
    if cfg.encoder is not None:
        checked += [("ef", cfg.encoder.ef), ("eb", cfg.encoder.eb)]
    for key, value in checked:
        f = FIELDS[key]
        if not f.low <= value <= f.high:
            raise ConfigError("page.range", key=key, value=value, valid=f.range_text)
    from .engine import run

    run(cfg)  # the same checks and messages as everywhere else
    return document_html(cfg, lang, scripts())
