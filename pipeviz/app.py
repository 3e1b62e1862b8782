"""The served explorer: a Panel app whose state is the fields of `pipeviz.view.fields`,
declared once as `param` parameters.

Widgets are made from the parameters. One watcher takes every change: the shared
rules (`pipeviz.view.state.normalize`) make the state valid, correcting a parameter
if they must (which comes back through the same watcher), then one refresh runs the
engine, assigns the figures' columns and the readout in one message
(`pn.io.hold()`), and schedules the comparison table and the URL for the session's
next tick, so a slider's repaint never waits for them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import contextmanager
from functools import lru_cache, partial
from html import escape
from urllib.parse import parse_qsl, urlencode

import panel as pn
import panel.io.location as panel_location
import param
from bokeh.events import RangesUpdate
from bokeh.layouts import column as bk_column

from .config import Config
from .custom import CUSTOM, MAX_TEXT
from .engine import Result, run
from .errors import ConfigError, OrderError
from .memory import Memory
from .registry import NAMES
from .render.figures import Figures
from .render.glance_panel import GlancePanes, marked
from .render.sweep import V_WIDTH as SWEEP_V_WIDTH
from .serving import has_viewer
from .slicing import Sliced, SlicedRun
from .text import Msg, fill, template
from .view import closing, columns, glance, memory_view, own_order, readouts, sweep, teach
from .view.fields import FIELDS, PRESETS, encode
from .view.fields import parse as parse_url
from .view.state import ENGINE_FIELDS, LATER_MS, config, m_start, normalize, row_config


def _raw_query(query: str) -> dict[str, str]:
    """The query as strings, nothing converted or evaluated."""
    return dict(parse_qsl(query[1:], keep_blank_values=True))


# Panel turns every query value into a Python value whenever the URL changes
# (panel.util.parse_query, for parameters synced with the URL, which pipeviz does not
# use): it raises on a value like '²' ('²'.isdigit(), yet int('²') fails), which
# breaks the page, and it runs ast.literal_eval on values starting with '[' or '{'.
# pipeviz reads the raw URL itself (view/fields.parse), so Panel's copy keeps strings.
# tests/test_app.py pins that Panel still reads the query through this name.
panel_location.parse_query = _raw_query


@lru_cache(maxsize=int(os.environ.get("PIPEVIZ_CACHE", "64")))
def run_cached(cfg: Config) -> Result:
    """Engine results shared by every session: a result depends only on its Config.
    PIPEVIZ_CACHE=0 turns the cache off (benchmarks/app.py measures cold updates)."""
    return run(cfg)


class LiveSlider(pn.widgets.IntSlider):
    """An IntSlider whose moves reach the server at once. Panel holds a widget's
    change for 50 ms (`_debounce`) to merge bursts unless the property is listed in
    the private `_priority_changes`; measured here that wait was a third of a
    keypress-to-repaint, and an update costs a few ms, so the explorer takes every
    event as it comes. tests/test_app.py pins that Panel still honours the list."""

    _priority_changes = ["value"]


class LiveFloatSlider(pn.widgets.FloatSlider):
    """A FloatSlider whose moves reach the server at once (see LiveSlider)."""

    _priority_changes = ["value"]


def _parameter(f):
    # No `doc`: Panel shows a parameter's doc as its widget's tooltip, and a field's
    # name ("lang", "tf") is no word for a reader in any language.
    if f.kind == "int":
        return param.Integer(default=f.default, bounds=(f.low, f.high))
    if f.kind == "float":
        return param.Number(default=f.default, bounds=(f.low, f.high))
    if f.kind == "bool":
        return param.Boolean(default=f.default)
    if f.kind == "text":
        return param.String(default=f.default)
    return param.Selector(default=f.default, objects=list(f.choices))


def url_lang() -> str | None:
    """The language the session's URL asks for (`?lang=zh`), read when the session
    starts, so that the first view is already in it: the rest of the URL is applied
    once the browser has rendered (Explorer._on_load), and a reader of `lang=zh`
    should not see the English page first. None when there is no session or no
    valid `lang` in the query."""
    args = pn.state.session_args or {}
    raw = [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in args.get("lang", [])]
    if not raw:
        return None
    updates, _ = parse_url("?" + urlencode([("lang", v) for v in raw]))
    return updates.get("lang")


class Explorer(pn.viewable.Viewer):
    # Every field of the explorer, declared once from pipeviz.view.fields.
    locals().update({name: _parameter(f) for name, f in FIELDS.items()})

    def __init__(self, **params):
        super().__init__(**params)
        self.figures = Figures()
        self.result: Result | None = None  # what the figures show: the last valid configuration
        self.notice = pn.pane.HTML("", visible=False, margin=(0, 10), name="notice", sizing_mode="stretch_width")
        # A polite live region (static/a11y.js): each new readout is announced.
        self.readout = pn.pane.HTML("", name="readout", sizing_mode="stretch_width", css_classes=marked("readout"))
        # The closing section's readouts: the encoder and the balancing (at once), and
        # the encoder's placements compared (with the table, after the chart).
        self.closing = pn.pane.HTML("", name="closing", visible=False, sizing_mode="stretch_width")
        self.places = pn.pane.HTML("", name="places", visible=False, sizing_mode="stretch_width")
        self._places_rows: tuple = (None, [])
        self._switch_watchers: list = []  # the boolean fields' boxes follow their parameters
        self.table = pn.pane.HTML("", name="table", sizing_mode="stretch_width")
        self.bars_key = pn.pane.HTML("", name="bars_key", width=230, margin=(0, 5))
        self.glance = GlancePanes(self.lang)  # the timeline's key, the ops table, accessible names
        self.preset_menu: pn.widgets.Select | None = None  # names the preset the view is (glance.matching_preset)
        self.m_slider: pn.widgets.IntSlider | None = None
        self.memory_readout = pn.pane.HTML("", name="memory_readout", sizing_mode="stretch_width")
        self.memory_key = pn.pane.HTML("", name="memory_key", sizing_mode="stretch_width")
        # The memory figure joins the page with the first model (its fifty-odd Bokeh
        # models would slow every first view down).
        self.memory_row = pn.FlexBox(flex_wrap="wrap", gap="0 8px", sizing_mode="stretch_width", name="memory_row")
        self.memory = None  # the shown result's memory.Memory (or why there is none: a Msg), None without a model
        self.result_state: dict = {}  # the state the shown result came from
        self._memory_for: tuple | None = None  # what self.memory was computed for
        self.notes: list[Msg] = []  # what the rules adjusted; shown until the next change
        self.problem: Msg | None = None  # why the state cannot be shown, if it cannot
        self.notice_lines: list[str] = []
        self._ready = False  # the browser has rendered the first view
        self._later_pending = False  # the deferred refresh's timer is set (_later)
        self._later_gen = 0  # changes so far: a slice of an older one's refresh stops
        self._cursor_steps: dict | None = None  # the play cursor's columns, due with the deferred refresh
        self._writing_url = False
        self._quiet = False
        self._table_rows: tuple = (None, [])
        self._window: tuple[float, float] | None = None  # the timeline's zoom, None at the full view
        self._lines: dict = {}  # the over-time lines at every vertex (columns.figure_view's "lines")
        self.param.watch(self._changed, list(FIELDS))
        self._refresh(set(FIELDS))
        self.figures.timeline.on_change("inner_width", self._on_resize)
        for fig in (self.figures.timeline, self.figures.over_time):  # they share the time axis
            fig.on_event(RangesUpdate, self._on_zoom)
        if pn.state.location is not None:
            pn.state.location.param.watch(self._on_url, ["search", "hash"])
            pn.state.onload(self._on_load)

    # -- state -> engine -> figures ---------------------------------------------

    def state(self) -> dict:
        return {k: getattr(self, k) for k in FIELDS}

    def config(self) -> Config:
        return config(self.state())

    def _changed(self, *events) -> None:
        if not self._quiet:
            self._handle({e.name for e in events}, [])

    @contextmanager
    def _quietly(self):
        """Our own parameter updates: the widgets follow them, our watcher does not."""
        self._quiet = True
        try:
            yield
        finally:
            self._quiet = False

    def _handle(self, changed: set, notes: list[Msg]) -> None:
        """The one path of every change: make the state valid, then refresh once."""
        state, more = normalize(self.state(), changed)
        fixes = {k: v for k, v in state.items() if getattr(self, k) != v}
        if fixes:
            with self._quietly():
                self.param.update(**fixes)
            changed = changed | set(fixes)
        self.notes = list(notes) + more
        self._refresh(changed)

    def update(self, updates: dict, notes: list[Msg] = ()) -> None:
        """Apply several values at once (a preset, a URL), as one change."""
        with self._quietly():
            self.param.update(**updates)
        self._handle(set(updates), list(notes))

    def _refresh(self, changed: set) -> None:
        """Run the engine if a field it reads changed (else the state is as valid or
        invalid as before: a unit or language change keeps the warning), then show
        the last valid result."""
        lang = self.lang
        res = self.result
        state = self.state()  # read once: nothing below changes it (60 parameters, read eight times a keypress)
        if changed & set(ENGINE_FIELDS) or res is None:
            try:
                res = self._run(state)
                self.problem = None
            except (ConfigError, OrderError) as e:
                self.problem = e.msg
                res = None
        if res is not None and self.problem is None:  # a valid state: its bytes
            self.result_state = state
            # (an order of one's own has the config of any other with its P, m and V)
            key = (res.config, memory_view.memory_key(self.result_state), res if res.theory is None else None)
            if key != self._memory_for:  # a unit or language change keeps the bytes
                self._memory_for = key
                self.memory = memory_view.memory_of(res, self.result_state)
        mem = self.memory if isinstance(self.memory, Memory) else None
        with pn.io.hold():
            self._show_notice(lang, res)
            if res is not None:
                self.result = res
                self._window = None  # the view's x_range opens at the full view
                view = columns.figure_view(res, self.unit, lang, self.label_px(state), mem, self.over_time_unit)
                self.figures.apply(view)
                self._lines = view["lines"]  # what a zoom thins again
                tv = teach.figure_view(res, state, lang)
                self._defer_cursor_steps(tv["sources"].pop("cursor_steps"))
                self.figures.apply(tv)  # after: it sets the projector's sizes
                html = readouts.readout_html(readouts.readout_values(res), lang)
                # The projector's larger readout (a class inside the pane: its CSS cannot reach in from outside).
                self.readout.object = f'<div class="pv-projector">{html}</div>' if state["projector"] else html
                self.closing.object = closing.closing_html(closing.closing_values(res), lang)
                self.closing.visible = bool(self.closing.object)
                self.glance.drawn(res, lang)
                self.memory_readout.object = memory_view.memory_html(memory_view.memory_values(self.memory), lang)
                self.memory_readout.visible = self.memory_key.visible = self.memory is not None
                if self.memory is not None and not self.memory_row.objects:
                    flex = {"styles": {"flex": "1 1 420px", "min-width": "0"}}
                    self.memory_row.objects = [
                        pn.Column(self.figures.memory, sizing_mode="stretch_width", **flex),
                        pn.Column(self.memory_key, width=240, styles={"flex": "0 0 240px", "min-width": "0"}),
                    ]
            self._show_preset(state)
        self._later()

    def _defer_cursor_steps(self, steps: dict) -> None:
        """The play cursor's step functions go out with the deferred refresh: at the
        sliders' ends they are a megabyte, read only once the cursor leaves the end,
        where every change puts it. Until they arrive the source is empty, which
        keeps the cursor hidden (static/teach_models.js `showCursor`): never a stale count."""
        if self.figures.holds("cursor_steps", steps):
            return
        self._cursor_steps = steps
        self.figures.set_source("cursor_steps", {k: v[:0] for k, v in steps.items()})

    def _run(self, state: dict) -> Result:
        """The schedule's result, or the order's of one's own when that is shown."""
        if own_order.shown(state):
            return own_order.run(state, config(state).costs)
        return run_cached(config(state))

    def edit_schedule(self) -> None:
        """Put the shown schedule's order in the order box, as text, and show it from
        there, so that a change to it shows at once."""
        res = self.result
        if res is None or res.theory is None:  # an order of one's own is in the box already
            return
        self.update({"order": res.order.to_text(), "placement": res.schedule.placement, "custom": True})

    def _refresh_secondary(self, run: Callable[[Config], Result] = run_cached) -> None:
        """The comparison table, the bars' key and the URL: sent after the chart and its
        readout have gone out, so a slider's repaint does not wait for them. `run`
        runs the table's and the placements' engine (a slice's: _slice)."""
        if self._ready and not has_viewer():  # the page loaded, and its browser has gone since
            return
        res = self.result
        if res is not None:
            shown = self.result_state
            key = (res.config, memory_view.memory_key(shown), shown.get("stages"), shown.get("weights"),
                   res if res.theory is None else None)
            if self._table_rows[0] != key:  # a unit or language change keeps the numbers
                own = res if res.theory is None else None
                self._table_rows = (key, readouts.table_values(
                    res.config, run, lambda name: row_config(shown, name),
                    (lambda r: memory_view.memory_of(r, shown)) if shown.get("model", "none") != "none" else None,
                    own,
                ))
            if self._places_rows[0] is not res:  # an order of one's own has no placements to compare
                self._places_rows = (res, [] if res.theory is None else closing.placements_values(res.config, run))
            with pn.io.hold():
                if self._cursor_steps is not None:
                    self.figures.set_source("cursor_steps", self._cursor_steps)
                    self._cursor_steps = None
                self.table.object = readouts.table_html(self._table_rows[1], self.lang)
                self.bars_key.object = readouts.bars_key_html(res.order.has_w, self.lang, res.balance is not None)
                self.places.object = closing.placements_html(self._places_rows[1], self.lang)
                self.places.visible = bool(self.places.object)
                self.figures.apply(sweep.figure_view(sweep.cached_values(res.config), res.config, self.lang))
                self.memory_key.object = memory_view.memory_key_html(self.lang)
        self._write_url()

    def _later(self) -> None:
        """Run the secondary refresh LATER_MS after this change (once, however many
        changes come in between); at once when there is no session (tests, notebooks).
        Not in the next tick: that came before Panel wrote the chart's message out, so
        the browser waited for the table too, and painted both in one frame."""
        doc = pn.state.curdoc
        self._later_gen += 1
        if doc is None or doc.session_context is None:
            self._refresh_secondary()
        elif not self._later_pending:
            self._later_pending = True
            doc.add_timeout_callback(partial(self._slice, doc, None, None), LATER_MS)

    def _slice(self, doc, gen: int | None, done: dict | None) -> None:
        """One slice of the deferred refresh (pipeviz/slicing.py), the next in the next
        tick; gen None: the timer's, the refresh of the newest change starts. A change
        between two slices stops the chain: its own timer starts the refresh again."""
        if gen is None:
            self._later_pending = False
            gen, done = self._later_gen, {}
        if gen != self._later_gen:
            return
        try:
            self._refresh_secondary(SlicedRun(run_cached, done))
        except Sliced:
            doc.add_next_tick_callback(partial(self._slice, doc, gen, done))

    def _on_resize(self, attr, old, new) -> None:
        if self.result is not None:
            self._relevel(self._window)

    def _on_zoom(self, event) -> None:
        """A pan or zoom ended: level the timeline again for what is visible (view/lod.py)."""
        if self.result is not None and event.x0 is not None and event.x1 is not None:
            self._relevel((float(event.x0), float(event.x1)))

    def _relevel(self, window) -> None:
        res, px = self.result, self.label_px()
        self._window = window
        with pn.io.hold():
            boxes = columns.ops(res, px, window)
            self.figures.set_source("ops", boxes)
            self.figures.set_source("fb_halves", columns.fb_halves(res, boxes))
            self.figures.relabel(columns.labels(res, px, window))
            self.figures.set_source("bubbles", columns.bubbles(res, px, window))
            for name, data in columns.over_time_lines(self._lines, px, window or columns.full_window(res)).items():
                self.figures.set_source(name, data)

    def label_px(self, state: dict | None = None) -> float:
        """The width the micro-batch labels are fitted to (narrower when the projector enlarges them)."""
        return self.figures.label_px() / teach.label_scale(self.state() if state is None else state)

    def _show_notice(self, lang: str, res: Result | None = None) -> None:
        """What is not valid or cannot finish (a warning) and what the rules adjusted
        (notes), as plain text. `res` is the result about to be shown."""
        lines = []
        if self.problem is not None:
            shown = self.result.config if self.result else None
            lines.append(fill("notice.invalid", lang, why=self.problem,
                              shown=describe(shown, lang) if shown else template("notice.nothing", lang)))
        deadlock = getattr(res, "deadlock", None)
        if deadlock is not None:  # drawn: the ops that ran, and the stuck ones
            lines.append(deadlock.text(lang))
        lines += [n.text(lang) for n in self.notes]
        self.notice_lines = lines
        kind = "warning" if self.problem is not None or deadlock is not None else "info"
        self.notice.object = (
            f'<div class="pv-notice pv-{kind}" role="status">' + "".join(f"<p>{escape(x)}</p>" for x in lines) + "</div>"
        )
        self.notice.visible = bool(lines)

    # -- presets and URL ------------------------------------------------------------

    def apply_preset(self, name: str) -> None:
        self.update(dict(PRESETS[name].values))

    def _preset_chosen(self, name: str) -> None:
        """The menu changed: the prompt, or the preset the view already is (our own
        echo), change nothing."""
        if name and name != glance.matching_preset(self.state()):
            self.apply_preset(name)

    def _show_preset(self, state: dict) -> None:
        if self.preset_menu is not None:
            self.preset_menu.value = glance.matching_preset(state) or ""
        if self.m_slider is not None:  # the m slider offers only values the order accepts
            self.m_slider.start = m_start(state)

    def _on_load(self) -> None:
        """The browser has rendered the first view. Figure changes made before this
        are lost in the browser (measured: a URL applied on its first arrival updated
        the readouts but not the figures), so the URL is applied from here on."""
        self._ready = True
        self._apply_url()

    def _on_url(self, *_) -> None:
        """The URL changed after the first render (not by us)."""
        if self._writing_url or not self._ready:
            return
        self._apply_url()

    def _apply_url(self) -> None:
        loc = pn.state.location
        self.apply_query(loc.search or "", loc.hash or "")

    def apply_query(self, search: str, fragment: str = "") -> None:
        """Open the view a URL's query and fragment ask for, noting what was not valid."""
        updates, notes = parse_url(search, fragment)
        self.update(updates, notes)

    def _write_url(self) -> None:
        loc = pn.state.location
        # Never overwrite the URL the browser opened with, never with an invalid state.
        if loc is None or not self._ready or self.problem is not None:
            return
        if self.custom:  # an order of one's own does not fit in a URL: leave the last one
            return
        search = "?" + encode(self.state())
        if loc.search != search or loc.hash:
            self._writing_url = True
            try:
                loc.param.update(search=search, hash="")
            finally:
                self._writing_url = False

    # -- layout -------------------------------------------------------------------

    def __panel__(self):
        return self.layout()

    @param.depends("lang")
    def controls(self):
        """The controls, labelled in the current language (rebuilt when it changes)."""
        lang = self.lang
        for watcher in self._switch_watchers:  # the boxes being replaced
            self.param.unwatch(watcher)
        self._switch_watchers = []
        schedule = pn.widgets.RadioBoxGroup.from_param(
            self.param.schedule, inline=False, name=template("field.schedule", lang), css_classes=marked("schedule"),
            options={f"{template(f'sched.{n}.title', lang)}: {template(f'sched.{n}.summary', lang)}": n for n in NAMES},
            stylesheets=["label { white-space: normal !important; line-height: 1.25; margin-bottom: 4px; }"],
        )
        # No value bubble over the handle while dragging: it covered the title, which shows the value.
        sliders = [LiveSlider.from_param(getattr(self.param, k), name=template(f"field.{k}", lang), tooltips=False,
                                         css_classes=marked(k), sizing_mode="stretch_width") for k in "PmV"]
        self.m_slider = sliders[1]
        self.m_slider.start = m_start(self.state())
        costs = [
            pn.widgets.FloatInput.from_param(getattr(self.param, k), name=template(f"field.{k}", lang),
                                             step=FIELDS[k].step, sizing_mode="stretch_width")
            for k in ("tf", "tb", "tw", "comm", "tfb")
        ]
        presets = pn.widgets.Select(
            name=template("field.preset", lang), sizing_mode="stretch_width",
            options={template("preset.prompt", lang): "", **{template(f"preset.{p}", lang): p for p in PRESETS}},
            value=glance.matching_preset(self.state()) or "",
        )
        presets.param.watch(lambda e: self._preset_chosen(e.new), "value")
        self.preset_menu = presets
        cost_card = pn.Card(
            pn.pane.HTML(f'<div style="font-size:12px">{escape(template("costs.note", lang))}</div>'),
            *costs, title=template("costs.title", lang), collapsed=True, sizing_mode="stretch_width",
        )
        unit = pn.widgets.RadioButtonGroup.from_param(
            self.param.unit, name=template("field.unit", lang), css_classes=marked("unit"),
            options={template(f"choice.unit.{u}", lang): u for u in FIELDS["unit"].choices},
        )
        language = pn.widgets.RadioButtonGroup.from_param(
            self.param.lang, name=template("field.lang", lang), css_classes=marked("lang"),
            options={template(f"choice.lang.{x}", lang): x for x in FIELDS["lang"].choices},
        )
        balance = self.switch("balance", lang)
        over_time = pn.widgets.RadioButtonGroup.from_param(
            self.param.over_time_unit, name=template("field.over_time_unit", lang),
            options={template(f"choice.over_time_unit.{u}", lang): u for u in FIELDS["over_time_unit"].choices},
        )
        return pn.Column(
            pn.pane.HTML(f"<h2>pipeviz</h2><p>{escape(template('app.tagline', lang))}</p>"),
            language, presets, schedule, *sliders, cost_card, self.model_card(lang), self.order_card(lang),
            pn.pane.HTML(f"<b>{escape(template('field.unit', lang))}</b>"), unit, balance,
            pn.pane.HTML(f"<b>{escape(template('field.over_time_unit', lang))}</b>"), over_time,
            *self.encoder_controls(lang),
            pn.Row(*(pn.widgets.Toggle.from_param(getattr(self.param, k), name=template(f"field.{k}", lang))
                     for k in ("critical", "projector"))),
            sizing_mode="stretch_width",
        )

    def order_card(self, lang: str):
        """Bring your own order: paste it (or start from the shown schedule), pick the
        placement, show it."""
        text = pn.widgets.TextAreaInput.from_param(
            self.param.order, name=template("field.order", lang), placeholder=template("own.placeholder", lang),
            height=150, sizing_mode="stretch_width", stylesheets=["textarea { font-family: monospace; }"],
            max_length=MAX_TEXT,  # Panel's default (5000) would cut a pasted order short
        )
        placement = pn.widgets.RadioButtonGroup.from_param(
            self.param.placement, name=template("field.placement", lang),
            options={template(f"choice.placement.{p}", lang): p for p in FIELDS["placement"].choices},
            orientation="vertical", sizing_mode="stretch_width",
        )
        show = pn.widgets.Toggle.from_param(self.param.custom, name=template("field.custom", lang),
                                            button_type="primary", sizing_mode="stretch_width")
        edit = pn.widgets.Button(name=template("own.edit", lang), sizing_mode="stretch_width")
        edit.on_click(lambda _: self.edit_schedule())
        return pn.Card(
            pn.pane.HTML(f'<div style="font-size:12px">{escape(template("own.note", lang))}</div>'),
            edit, text, pn.pane.HTML(f"<b>{escape(template('field.placement', lang))}</b>"), placement, show,
            title=template("own.title", lang), collapsed=True, sizing_mode="stretch_width",
        )

    @param.depends("lang")
    def table_title(self):
        return pn.pane.HTML(f"<h3>{escape(template('table.title', self.lang))}</h3>", margin=(10, 10, 0, 10))

    def switch(self, key: str, lang: str) -> pn.widgets.CheckBoxGroup:
        """A boolean field as a one-box CheckBoxGroup, whose label names the box (a
        Checkbox's text is not tied to its input, so the box would have no accessible
        name), kept in step with the parameter both ways."""
        label = template(f"field.{key}", lang)
        box = pn.widgets.CheckBoxGroup(options=[label], value=[label] if getattr(self, key) else [])
        box.param.watch(lambda e: setattr(self, key, bool(e.new)), "value")
        watcher = self.param.watch(lambda e: setattr(box, "value", [label] if e.new else []), key)
        self._switch_watchers.append(watcher)
        return box

    def encoder_controls(self, lang: str) -> list:
        """The closing section's encoder: placement, e_f and e_b (sliders after P, m
        and V), frozen."""
        place = pn.widgets.RadioBoxGroup.from_param(
            self.param.encoder, name=template("field.encoder", lang), inline=False,
            options={template(f"choice.encoder.{p}", lang): p for p in FIELDS["encoder"].choices},
        )
        sliders = [LiveFloatSlider.from_param(getattr(self.param, k), name=template(f"field.{k}", lang),
                                              step=FIELDS[k].step) for k in ("ef", "eb")]
        frozen = self.switch("frozen", lang)
        return [pn.pane.HTML(f"<b>{escape(template('field.encoder', lang))}</b>"), place, *sliders, frozen]
    def model_card(self, lang: str):
        """The model config, HBM and stage weights (pipeviz.view.memory_view). Its
        widgets are made the first time it opens: they are about a hundred Bokeh
        models, which measured made the first view take a third longer to arrive."""
        card = pn.Card(title=template("model.title", lang), collapsed=True, sizing_mode="stretch_width",
                       name="model_card")

        def fill(event) -> None:
            if not event.new and not card.objects:
                card.objects = self.model_widgets(lang)

        card.param.watch(fill, "collapsed")
        return card

    def model_widgets(self, lang: str) -> list:
        def choice(key: str):
            return pn.widgets.Select.from_param(
                getattr(self.param, key), name=template(f"field.{key}", lang),
                options={template(f"choice.{key}.{c}", lang): c for c in FIELDS[key].choices},
                sizing_mode="stretch_width",
            )

        def number(key: str):
            f = FIELDS[key]
            widget = pn.widgets.IntInput if f.kind == "int" else pn.widgets.FloatInput
            width = 300 if key in ("embed", "head") else 150
            return widget.from_param(getattr(self.param, key), name=template(f"field.{key}", lang), step=f.step,
                                     width=width)

        untied = self.switch("untied", lang)
        weights = pn.widgets.TextInput.from_param(self.param.weights, name=template("field.weights", lang),
                                                  sizing_mode="stretch_width")
        return [
            choice("model"), pn.Row(number("hbm"), number("t")), choice("act"),
            pn.Row(number("s"), number("b")), pn.Row(number("L"), number("h")), pn.Row(number("a"), number("vocab")),
            untied, choice("bpp"), choice("stages"), weights, number("embed"), number("head"),
            pn.pane.HTML(f'<div style="font-size:12px">{escape(template("model.note", lang))}</div>'),
        ]

    def layout(self):
        """Controls first (in reading and tab order), then the charts: side by side
        where there is room, the controls above the charts where there is not, as the
        page does (render/style.PAGE_CSS). The timeline and the lines over time share
        one column, so their time axes keep one width; the bars wrap below them on a
        narrow screen."""
        flex = lambda basis, **kw: dict(styles={"flex": basis, "min-width": "0", **kw})  # noqa: E731
        # One Bokeh column: Bokeh lines up the two time axes (same left border).
        # The play controls between them, as on the page (render/teach.py).
        time_charts = pn.pane.Bokeh(bk_column(self.figures.timeline, self.figures.play_controls, self.figures.over_time,
                                              sizing_mode="stretch_width"), sizing_mode="stretch_width")
        charts = pn.Column(time_charts, self.glance.lines_key, sizing_mode="stretch_width", **flex("1 1 420px"))
        bars = pn.Column(self.figures.inflight, self.bars_key, width=240, **flex("0 0 240px"))
        main = pn.Column(
            self.notice,
            self.readout,
            self.closing,
            self.glance.legend,
            pn.FlexBox(charts, bars, flex_wrap="wrap", gap="0 8px", sizing_mode="stretch_width"),
            self.places,
            self.glance.ops_card,
            self.memory_readout,
            self.memory_row,
            self.table_title,
            self.table,
            # The sweep: the V chart beside the m chart where there is room, below it where there is not.
            pn.FlexBox(pn.pane.Bokeh(self.figures.sweep_m, sizing_mode="stretch_width", **flex("1 1 320px")),
                       pn.pane.Bokeh(self.figures.sweep_v, width=SWEEP_V_WIDTH, **flex(f"0 0 {SWEEP_V_WIDTH}px")),
                       flex_wrap="wrap", gap="0 8px", sizing_mode="stretch_width"),
            sizing_mode="stretch_width", **flex("1 1 460px"),
        )
        controls = pn.Column(self.controls, self.glance.a11y, sizing_mode="stretch_width",
                             **flex("0 1 300px", **{"min-width": "240px"}))
        return pn.FlexBox(controls, main, flex_wrap="wrap", gap="8px 16px", sizing_mode="stretch_width")


def describe(cfg: Config, lang: str) -> str:
    name = template(f"sched.{CUSTOM}.title", lang) if cfg.schedule == CUSTOM else cfg.schedule
    return fill("notice.config", lang, name=name, P=cfg.P, m=cfg.m, V=cfg.V)
