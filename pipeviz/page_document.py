"""The standalone page's template: one self-contained HTML file per language, the
explorer at the defaults (`python -m pipeviz page` opens it at the flags' view,
pipeviz/page.py).

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
  compat.js        every patch of Bokeh's browser code, for the pinned version (both explorers)
  puzzle.js        a puzzle: the board the moves make, refusals, hint, score (puzzle.py)
  puzzle_view.js   the puzzle's rule, block and figures' part (view/puzzle.py), and its glue
  puzzle_board.js  the puzzle's block in the browser: clicks, keys, focus (both explorers)
  tradeoff.js      every schedule and V as a point, time against memory (view/tradeoff.py)
  explorer.js      widgets <-> state, drawing (app.py's role)
tests/test_js_parity.py holds each part to its Python original.
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
from html import escape

import rjsmin
from bokeh.document import Document
from bokeh.embed import file_html
from bokeh.events import DocumentReady, RangesUpdate
from bokeh.layouts import column, row
from bokeh.models import (
    Button,
    CheckboxGroup,
    CustomJS,
    CustomJSHover,
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
    Widget,
)
from bokeh.resources import Resources
from bokeh.settings import settings

from . import compare, compat, custom, memory, stages, static, text, trace
from .closed_form import FILL_DRAIN_FORMULAS
from .config import MAX_OPS, Config
from .costs import COST_MAX, COST_MIN, MAY_BE_ZERO
from .costs import NAMES as COST_NAMES
from .custom import MAX_TEXT
from .registry import NAMES, SCHEDULES
from .render.figures import HIDE_EMPTY, SOURCES, Figures, plot_px
from .render.puzzle import PUZZLE_CSS
from .render.style import PAGE_CSS, READOUT_CSS, TOUCH_CSS
from .text import template
from .view import columns, glance, lod, palette, sweep
from .view.columns import CHUNKS, LABEL_PAD_PX, LABEL_PX_PER_CHAR, ROW, ROW_PX
from .view.features import FEATURES
from .view.fields import FIELDS, MAX_RAW, PRESETS
from .view.opening import PUZZLE, SUMMARY, widget_values
from .view.readouts import LAYOUTS, MEMORY_HEAD, TABLE_HEAD
from .view.state import ENGINE_FIELDS, LATER_MS

# The teaching toggles (view/teach.py's fields), shown as Bokeh toggles named after them.
TOGGLES = ("critical", "projector")
# In the order the page loads them: each may use those before it.
# The engine (text.js, engine.js and what schedules share, building_blocks.js) loads
# before the schedules' twins (schedule_scripts), the rest after them.
ENGINE_SCRIPTS = ("text.js", "engine.js", "building_blocks.js")
SCRIPTS = ("memory.js", "compare.js", "custom.js", "trace.js", "encoder.js", "balance.js", "causes.js", "puzzle.js",
           "fields.js", "memory_view.js", "state.js", "columns.js", "readouts.js", "closing.js", "run_view.js",
           "glance.js", "compat.js", "a11y.js", "teach_models.js", "teach.js", "sweep.js", "tradeoff.js", "puzzle_view.js",
           "puzzle_board.js", "explorer.js")


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
        "codes": codes(),
        "engine": {"maxOps": MAX_OPS, "rtol": RTOL, "costMin": COST_MIN, "costMax": COST_MAX,
                   "fillDrainFormulas": dict(FILL_DRAIN_FORMULAS),
                   "costNames": list(COST_NAMES), "mayBeZero": list(MAY_BE_ZERO),
                   "weights": {"min": stages.WEIGHT_MIN, "max": stages.WEIGHT_MAX, "maxShown": stages.MAX_SHOWN}},
        "memory": memory.as_data(),
        "compare": compare.as_data(),
        "schedules": [spec.as_data() for spec in SCHEDULES.values()],
        "fields": [f.as_data() for f in FIELDS.values()],
        "presets": {name: p.values for name, p in PRESETS.items()},
        "url": {"maxRaw": MAX_RAW},
        "rules": {"engineFields": list(ENGINE_FIELDS), "laterMs": LATER_MS},
        "custom": {"name": custom.CUSTOM, "maxDepth": custom.MAX_DEPTH, "maxNumber": custom.MAX_NUMBER,
                   "maxText": custom.MAX_TEXT},
        "trace": trace.as_data(),
        "palette": palette.as_data(),
        "layouts": layouts(),
        "tableHead": list(TABLE_HEAD),
        "tableMemoryHead": MEMORY_HEAD,
        "consts": {"row": ROW, "rowPx": ROW_PX, "labelPxPerChar": LABEL_PX_PER_CHAR, "labelPadPx": LABEL_PAD_PX,
                   "chunksUnit": CHUNKS,
                   "timelineHeight": {"basePx": columns.TIMELINE_BASE_PX, "minPx": columns.TIMELINE_MIN_PX,
                                      "maxPx": columns.TIMELINE_MAX_PX},
                   "sources": list(SOURCES), "lines": list(columns.LINES),
                   "plotPx": plot_px(), "hideEmpty": list(HIDE_EMPTY),
                   "lod": {"minPx": lod.MIN_PX, "outlinePx": lod.OUTLINE_PX, "cull": lod.CULL,
                           "bubblePx": lod.BUBBLE_PX, "stepPx": lod.STEP_PX}},
        "figureTexts": {lang: columns.texts(lang) for lang in text.LANGS},
        "balancedTexts": {lang: columns.balanced_texts(lang) for lang in text.LANGS},
        "widgetTexts": {lang: widget_texts(lang) for lang in text.LANGS},
        "glance": glance.as_data(),
        # Each feature's own (view/features.py), by its name.
        "features": {f.name: f.data() for f in FEATURES if f.data is not None},
        "sweep": sweep.as_data(),
        "compat": compat.browser(panel=False),  # static/compat.js: the page runs no Panel
    }


def codes() -> dict:
    """The numbers both engines must agree on, by their names in Python: each op kind's
    code (order.py) and its name in the action notation, the placements, an order's
    segments (encoder.py), what the in-flight events count (kernels.py), and the index
    that stands for no op (causes.py)."""
    from . import causes, encoder, kernels, order
    from .schedules import building_blocks
    from .trace import names as trace_names

    def named(module, *names: str) -> dict:
        return {name: getattr(module, name) for name in names}

    return {"kinds": named(order, "F", "B", "I", "W", "FB", "EF", "EB"), "kindNames": list(order.KIND_NAMES),
            "placements": list(order.PLACEMENTS), "segments": named(encoder, "PROLOGUE", "PIPELINE", "EPILOGUE"),
            "counted": named(kernels, "INFLIGHT", "AWAITING_B", "AWAITING_W"), "none": causes.NONE,
            "lanes": named(building_blocks, "F0", "F1", "B1", "B0", "W1", "W0", "WS", "PERIOD"),
            "traceKinds": list(trace_names.COMPUTE_KINDS)}


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
    """A script minified: comments, indentation, line breaks and spaces that mean
    nothing left out (rjsmin, a tokenizer that knows strings and regular expressions):
    they are for readers of static/, and the page must stay within its size budget.
    Names stay as written, so a stack trace from the page still reads. 305 -> 253 kB
    for every script of the page, where dropping comment lines and indentation alone
    left 305."""
    return rjsmin.jsmin(code)


def script_names() -> list[str]:
    """The page's scripts in load order: each may use those before it."""
    return [*ENGINE_SCRIPTS, *schedule_scripts(), *SCRIPTS]


def scripts() -> str:
    """Every script of the page, in load order, as one string of <script> tags."""
    data = json.dumps(page_data(), ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")  # no markup in <script>
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
  <header class="pv-head">
    <div class="pv-title">{{ embed(roots.tagline) }}</div>
    <a class="pv-more-link" href="#pv-more" id="pv-more-link">{{ more }}</a>
    <div class="pv-lang">{{ embed(roots.lang) }}</div>
    <div class="pv-preset">{{ embed(roots.preset) }}</div>
  </header>
  <div class="pv-bar" role="group" aria-label="{{ bar_label }}">
    <div class="pv-bar-schedule">{{ embed(roots.schedule) }}</div>
    <div class="pv-bar-slider">{{ embed(roots.P) }}</div>
    <div class="pv-bar-slider">{{ embed(roots.m) }}</div>
    <div class="pv-bar-slider">{{ embed(roots.V) }}</div>
  </div>
  <div class="pv-body">
    <main class="pv-main">
      <div class="pv-slot"><div id="pv-notice" class="pv-notice" role="status" hidden></div>
        <div id="pv-summary" class="pv-summary">{{ summary }}</div></div>
      <div id="pv-readout" class="pv-readout-box" role="status" aria-live="polite"></div>
      <div id="pv-closing" class="pv-readout-box" role="status" aria-live="polite"></div>
      <div id="pv-legend" class="pv-legend-box"></div>
      <div class="pv-charts-grid">
        <div class="pv-tl">{{ embed(roots.layout_timeline) }}</div>
        <div class="pv-bars">{{ embed(roots.layout_bars) }}<div id="pv-bars-key" class="pv-bars-key"></div></div>
        <div class="pv-ot">{{ embed(roots.layout_over_time) }}<div id="pv-lines-key" class="pv-lines-box"></div></div>
      </div>
      <div id="pv-puzzle" class="pv-puzzle-box">{{ puzzle_block }}</div>
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
      <div class="pv-tradeoff">{{ embed(roots.layout_tradeoff) }}
        <div id="pv-tradeoff-note" class="pv-tradeoff-note"></div></div>
      <div class="pv-sweep"><div class="pv-sweep-m">{{ embed(roots.layout_sweep_m) }}</div>
        <div class="pv-sweep-v">{{ embed(roots.layout_sweep_v) }}</div></div>
    </main>
    <aside class="pv-more" id="pv-more" aria-label="{{ more }}">{{ embed(roots.layout_controls) }}
      <section id="pv-run" class="pv-run-box" aria-labelledby="pv-run-title">
        <h3 id="pv-run-title">{{ run.title }}</h3>
        <p id="pv-run-note">{{ run.note }}</p>
        <label><span id="pv-run-files-label">{{ run.files }}</span>
          <input type="file" id="pv-run-files" multiple accept=".json,.gz" aria-label="{{ run.files }}"></label>
        <p id="pv-run-drop">{{ run.drop }}</p>
        <button type="button" id="pv-run-ask" disabled>{{ run.whatif }}</button>
        <button type="button" id="pv-run-back" disabled>{{ run.back }}</button>
      </section></aside>
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
    "tagline": "<b style='font-size:19px'>pipeviz</b> <span style='font-size:13px;color:#444'>{text}</span>",
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
    # A menu of the schedules' names; the chosen one's summary is the line under the bar (#pv-summary).
    out["schedule"] = {"title": t("field.schedule"), "options": [[n, t(f"sched.{n}.title")] for n in NAMES]}
    for key in ("unit", "lang", "placement", "encoder"):
        out[key] = {"labels": [t(f"choice.{key}.{c}") for c in FIELDS[key].choices]}
    for key in ("frozen", "balance", "untied"):  # a one-box CheckboxGroup: its label names the box (Checkbox's does not)
        out[key] = {"labels": [t(FIELDS[key].label_key)]}
    # Your own order (view/own_order.py): the box, its switch, "Edit this schedule".
    out["order"] = {"title": t("field.order"), "placeholder": t("own.placeholder")}
    out["own-show"] = {"label": t("field.custom")}
    out["own-back"] = {"label": t("own.back")}
    out["edit"] = {"label": t("own.edit")}
    out["own-toggle"] = {"label": t("own.title")}
    # The menu names the preset the view is, or shows its prompt (view/glance.matching_preset).
    out["preset"] = {"title": t("field.preset"),
                     "options": [["", t("preset.prompt")], *([p, t(f"preset.{p}")] for p in PRESETS)]}
    out["costs-toggle"] = {"label": t("costs.title")}
    out["closing-toggle"] = {"label": t("group.closing")}
    out["display-toggle"] = {"label": t("group.display")}
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


def widgets(lang: str, touch: InlineStyleSheet) -> dict:
    """One Bokeh widget per field the page shows, named after the field (and the
    preset menu), labelled in `lang`, at the defaults (view/opening.widget_values
    gives the values a configuration sets; pipeviz/page.py sets them in the page);
    `touch` gives the bar's widgets their touch targets."""
    texts = widget_texts(lang)
    values = widget_values(Config(), lang)

    def slider(key: str) -> Slider:
        f = FIELDS[key]
        # No bubble over the handle while dragging: it covered the title, which shows the value.
        return Slider(start=f.low, end=f.high, step=1, sizing_mode="stretch_width", name=key,
                      tooltips=False, stylesheets=[touch], **values[key], **texts[key])

    def spinner(key: str) -> Spinner:
        f = FIELDS[key]
        return Spinner(low=f.low, high=f.high, step=f.step, sizing_mode="stretch_width", name=key,
                       **values[key], **texts[key])

    def choice(key: str, **kw) -> RadioGroup | RadioButtonGroup:
        active = values[key] if key in values else {"active": FIELDS[key].choices.index(FIELDS[key].default)}
        return kw.pop("cls", RadioButtonGroup)(name=key, **active, **texts[key], **kw)

    def float_slider(key: str) -> Slider:
        f = FIELDS[key]
        return Slider(start=f.low, end=f.high, step=f.step, sizing_mode="stretch_width", name=key,
                      **values[key], **texts[key])

    def checkbox(key: str) -> CheckboxGroup:
        return CheckboxGroup(name=key, **values[key], **texts[key])

    return dict(
        schedule=Select(name="schedule", sizing_mode="stretch_width", stylesheets=[touch], **values["schedule"],
                        **texts["schedule"]),
        P=slider("P"), m=slider("m"), V=slider("V"),
        tf=spinner("tf"), tb=spinner("tb"), tw=spinner("tw"), comm=spinner("comm"), tfb=spinner("tfb"),
        unit=choice("unit"), lang=choice("lang"),
        balance=checkbox("balance"),
        encoder=choice("encoder", cls=RadioGroup),
        ef=float_slider("ef"), eb=float_slider("eb"),
        frozen=checkbox("frozen"),
        order=TextAreaInput(value="", rows=8, max_length=MAX_TEXT, sizing_mode="stretch_width", name="order",
                            stylesheets=[InlineStyleSheet(css="textarea { font-family: monospace; }")], **texts["order"]),
        placement=choice("placement", orientation="vertical", sizing_mode="stretch_width"),
        preset=Select(name="preset", sizing_mode="stretch_width", stylesheets=[touch], **values["preset"],
                      **texts["preset"]),
        **{key: Toggle(active=bool(FIELDS[key].default), name=key, **texts[key]) for key in TOGGLES},
        **model_widgets(texts),
    )


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


def template_html(lang: str) -> str:
    """The page in `lang` at the defaults, with a mark where the line under the bar
    (SUMMARY) and the puzzle's block (PUZZLE) go: the Bokeh document (the served app's
    figures, Bokeh widgets, and callbacks that hand every event to static/explorer.js's
    PipevizExplorer.handle, which finds the models by name) and every script.
    pipeviz/page.py opens it at a configuration."""
    script_tags = scripts()
    compat.cached_defaults()  # Bokeh's walks of the document read every default again
    compat.bundle_from_models()  # and file_html walks it once more to choose its bundles
    figs = Figures()
    touch = InlineStyleSheet(css=TOUCH_CSS)  # one sheet for every widget that needs it
    ui = widgets(lang, touch)
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
    # "Show my order" shows what the box holds now, however often it is pressed; "Back to
    # the schedules" leaves it (a toggle took a second press after an edit).
    show_own = Button(button_type="primary", sizing_mode="stretch_width", name="own-show", **texts["own-show"])
    show_own.js_on_event("button_click", callback("own", "show"))
    back_own = Button(sizing_mode="stretch_width", name="own-back", **texts["own-back"])
    back_own.js_on_event("button_click", callback("own", "back"))

    def group(name: str, *children, note: str | None = None):
        """A folded group of settings: its toggle, and its box shown while the toggle is on."""
        toggle = Toggle(active=False, name=f"{name}-toggle", sizing_mode="stretch_width", stylesheets=[touch],
                        **texts[f"{name}-toggle"])
        head = [Div(styles={"font-size": "12px"}, sizing_mode="stretch_width", name=note, **texts[note])] if note else []
        box = column(*head, *children, visible=False, sizing_mode="stretch_width", name=f"{name}-box")
        toggle.js_link("active", box, "visible")
        return [toggle, box]

    controls = column(
        # One cost a line: side by side, the longer labels ran into each other.
        *group("costs", ui["tf"], ui["tb"], ui["tw"], ui["comm"], ui["tfb"], note="costs_note"),
        *group("model", ui["model"], row(ui["hbm"], ui["t"], sizing_mode="stretch_width"), ui["act"],
               row(ui["s"], ui["b"], sizing_mode="stretch_width"), row(ui["L"], ui["h"], sizing_mode="stretch_width"),
               row(ui["a"], ui["vocab"], sizing_mode="stretch_width"), ui["untied"], ui["bpp"], ui["stages"],
               ui["weights"], ui["embed"], ui["head"],
               Div(styles={"font-size": "12px"}, sizing_mode="stretch_width", name="model_note", **texts["model_note"])),
        *group("own", edit, ui["order"], Div(name="placement_label", **texts["placement_label"]), ui["placement"],
               show_own, back_own, note="own_note"),
        *group("closing", Div(name="encoder_label", **texts["encoder_label"]), ui["encoder"], ui["ef"], ui["eb"],
               ui["frozen"], ui["balance"]),
        *group("display", Div(name="unit_label", **texts["unit_label"]), ui["unit"],
               Div(name="over_time_label", **texts["over_time_label"]), ui["over_time_unit"],
               row(*(ui[key] for key in TOGGLES))),
        name="layout_controls", sizing_mode="stretch_width",
    )
    doc = Document(title=template("page.title", lang))
    # Bokeh walks every model of the document again after each change to it; frozen,
    # it walks them once, when the document is whole (a few seconds of `page` else).
    with doc.models.freeze():
        # The head and the article's bar: each widget a root of its own, laid out by the page's CSS.
        doc.add_root(Div(sizing_mode="stretch_width", name="tagline", **texts["tagline"]))
        for key in ("lang", "preset", "schedule", "P", "m", "V"):
            doc.add_root(ui[key])
        doc.add_root(controls)
        doc.add_root(column(figs.timeline, name="layout_timeline", sizing_mode="stretch_width"))
        doc.add_root(column(figs.play_controls, figs.over_time, name="layout_over_time", sizing_mode="stretch_width"))
        doc.add_root(column(figs.inflight, name="layout_bars"))
        doc.add_root(column(figs.sweep_m, name="layout_sweep_m", sizing_mode="stretch_width"))
        doc.add_root(column(figs.sweep_v, name="layout_sweep_v"))
        doc.add_root(column(figs.memory, name="layout_memory", sizing_mode="stretch_width"))
        for root in doc.roots:  # every widget's touch target (TOUCH_CSS), the play controls' too
            for model in _widgets_in(root):
                if touch not in model.stylesheets:
                    model.stylesheets = [*model.stylesheets, touch]
        doc.add_root(column(figs.tradeoff, name="layout_tradeoff", sizing_mode="stretch_width"))
        # A tap on a point of the trade-off view shows its schedule (static/tradeoff.js).
        figs.sources["tradeoff_points"].selected.js_on_change("indices", callback("tradeoff"))
        doc.js_on_event(DocumentReady, callback("ready"))
        figs.timeline.js_on_change("inner_width", callback("resize"))
        zoom = "PipevizExplorer.handle(anchor.document, 'zoom', [cb_obj.x0, cb_obj.x1])"
        for fig in (figs.timeline, figs.over_time):  # a pan or zoom ended: level the timeline again (view/lod.py)
            fig.js_on_event(RangesUpdate, CustomJS(args=dict(anchor=figs.timeline), code=zoom))
    _teach_once(doc)
    with _unvalidated():
        html = file_html(
            doc, resources=InlineOnly(), title=template("page.title", lang), template=TEMPLATE,
            template_variables=dict(page_css=PAGE_CSS + READOUT_CSS + PUZZLE_CSS, scripts=script_tags, lang=lang,
                                    puzzle_block=PUZZLE,
                                    table_title=escape(template("table.title", lang)),
                                    more=escape(template("group.more", lang)), bar_label=escape(template("bar.label", lang)),
                                    summary=SUMMARY,
                                    ops_title=escape(template("ops.title", lang)),
                                    ops_rank=escape(template("field.ops_rank", lang)),
                                    run={k: escape(template(f"run.{k}", lang)) for k in ("title", "note", "files",
                                                                                          "drop", "whatif", "back")}),
        )
    return compat.packed_bundle(html)  # Bokeh's widgets bundle, gzipped: the page within 2 MB


@contextmanager
def _unvalidated():
    """Bokeh's file_html without its validation of the whole document (a walk of every
    model and a dir() of each: about a third of `page`'s build); the tests validate the
    page's document instead (tests/test_page.py)."""
    validation = settings.perform_document_validation
    was_set, previous = validation.is_set, validation()
    validation.set_value(False)
    try:
        yield
    finally:
        validation.set_value(previous) if was_set else validation.unset_value()


def _widgets_in(layout) -> list[Widget]:
    """The widgets in a layout of rows and columns, found through their children (a walk
    of every model a root references reads each of their properties: seconds, in `page`)."""
    if isinstance(layout, Widget):
        return [layout]
    return [w for child in getattr(layout, "children", ()) for w in _widgets_in(child)]


def _teach_once(doc: Document) -> None:
    """The teaching models' browser code (static/teach_models.js) runs as the code of
    two callbacks, each carrying the whole library, as the served app needs it; the
    page loads it once, lean, among its scripts (SCRIPTS), and the callbacks keep only
    their call (the library inlined twice was 41 kB of the page)."""
    from .render.teach import library

    lib = library()
    for model in doc.models:
        if isinstance(model, (CustomJS, CustomJSHover)) and model.code.startswith(lib):
            model.code = model.code[len(lib):].lstrip("\n")
