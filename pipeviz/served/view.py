"""The served explorer's view: the figures, readouts and controls of one session
(served/session.py), laid out for any width.

It follows the session's `revision`: at each change it assigns the figures' columns
and the readouts in one message (`pn.io.hold()`), then hands the comparison table, the
placements, the sweep, the play cursor's steps, the URL and the trade-off view to the
deferred refresh (served/deferred.py), so a slider's repaint never waits for them. A
tap on a point of the trade-off view shows that schedule and V (`_on_tap`). A pan, zoom or
resize levels the timeline again for what is visible (view/lod.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from html import escape

import panel as pn
import param
from bokeh.core.properties import validate
from bokeh.events import RangesUpdate
from bokeh.layouts import column as bk_column

from .. import compat
from ..config import Config
from ..custom import CUSTOM
from ..engine import Result
from ..memory import Memory
from ..render.figures import Figures
from ..render.sweep import V_WIDTH as SWEEP_V_WIDTH
from ..slicing import Sliced
from ..text import fill, template
from ..view import closing, columns, memory_view, readouts, run_view, sweep, teach, tradeoff
from .controls import Controls
from .deferred import Deferred
from .glance import GlancePanes, marked
from .location import UrlSync
from .puzzle import PuzzleView
from .session import Session


class Explorer(pn.viewable.Viewer):
    session = param.ClassSelector(class_=Session, doc="the state this view shows")

    def __init__(self, session: Session | None = None, run: Callable[[Config], Result] | None = None, **fields):
        """A view of `session`, or of a new session with `fields`. `run` is the
        deferred refresh's engine (default the session's shared cache)."""
        from .session import run_cached

        super().__init__(session=session if session is not None else Session(**fields))
        s = self.session
        self.figures = Figures()
        self.notice = pn.pane.HTML("", visible=False, margin=(0, 10), name="notice", sizing_mode="stretch_width")
        self.notice_lines: list[str] = []
        # A polite live region (static/a11y.js): each new readout is announced.
        self.readout = pn.pane.HTML("", name="readout", sizing_mode="stretch_width", css_classes=marked("readout"))
        # The closing section's readouts: the encoder and the balancing (at once), and
        # the encoder's placements compared (with the table, after the chart).
        self.closing = pn.pane.HTML("", name="closing", visible=False, sizing_mode="stretch_width")
        self.places = pn.pane.HTML("", name="places", visible=False, sizing_mode="stretch_width")
        self.table = pn.pane.HTML("", name="table", sizing_mode="stretch_width")
        # The trade-off view (view/tradeoff.py): its note under the chart says what the marks
        # mean, what is still computing, what was refused, and the caveat.
        self.tradeoff_note = pn.pane.HTML("", name="tradeoff_note", sizing_mode="stretch_width", margin=(0, 10),
                                          stylesheets=[NOTE_CSS])
        self.bars_key = pn.pane.HTML("", name="bars_key", width=230, margin=(0, 5))
        self.glance = GlancePanes(s.lang)  # the timeline's key, the ops table, accessible names
        self.memory_readout = pn.pane.HTML("", name="memory_readout", sizing_mode="stretch_width")
        self.memory_key = pn.pane.HTML("", name="memory_key", sizing_mode="stretch_width")
        # The memory figure joins the page with the first model (its fifty-odd Bokeh
        # models would slow every first view down).
        self.memory_row = pn.FlexBox(flex_wrap="wrap", gap="0 8px", sizing_mode="stretch_width", name="memory_row")
        self.controls = Controls(s, s.edit_schedule, s.show_own)
        # The line under the bar: the schedule's summary, or the notice while there is one
        # (it takes the summary's place, so the chart below does not move).
        self.summary = pn.pane.HTML("", name="summary", sizing_mode="stretch_width", margin=(0, 10),
                                    styles={"font-size": "13px", "color": "#333"})
        self.url = UrlSync(s)
        self.deferred = Deferred(self.refresh_later, run or run_cached)
        if self.deferred.served:
            # Changes made before the page is ready can be lost in the browser (its models
            # keep their first data while the server's hold the new), and a later refresh
            # that finds its data already on the server sends nothing: so the deferred
            # refresh waits for the page (refresh_later) and runs once it is ready (after
            # the URL's own change, UrlSync registered first).
            pn.state.onload(self.deferred.changed)
        self.window: tuple[float, float] | None = None  # the timeline's zoom, None at the full view
        self.lines: dict = {}  # the over-time lines at every vertex (columns.figure_view's "lines")
        self.cursor_steps: dict | None = None  # the play cursor's columns, due with the deferred refresh
        self.run_drawn = False  # the run's own sources hold a run (view/run_view.py)
        self.tradeoff_shown_at = float("-inf")  # when the trade-off's points so far were last drawn (follow_tradeoff)
        s.param.watch(self.draw, "revision")
        self.figures.sources["tradeoff_points"].selected.on_change("indices", self._on_tap)
        self.draw()
        self.puzzle = PuzzleView(s, self.figures)  # watches after draw: its figure properties come last
        self.figures.timeline.on_change("inner_width", lambda attr, old, new: self.relevel(self.window))
        for fig in (self.figures.timeline, self.figures.over_time):  # they share the time axis
            fig.on_event(RangesUpdate, self._on_zoom)

    # -- at each change ---------------------------------------------------------------------

    def draw(self, *_) -> None:
        """Show the session's change: the notice at once; the figures and readouts
        if there is a result to draw; then the deferred refresh."""
        s = self.session
        lang, res, state = s.lang, s.shown, s.state()
        mem = s.memory if isinstance(s.memory, Memory) else None
        # Bokeh checks every value assigned against its property's type; the columns and
        # properties a figure view assigns are pipeviz's own, checked by the tests
        # (Figures.apply with checks on, in tests/test_page.py and tests/test_figures.py).
        with pn.io.hold(), validate(False):
            self.show_notice(lang)
            if s.real is not None:
                self.draw_run(s.real, lang, state)
            elif res is not None:
                if self.run_drawn:  # the run's own sources go with it
                    for name, data in run_view.empty_sources().items():
                        self.figures.set_source(name, data)
                    self.run_drawn = False
                self.window = None  # the view's x_range opens at the full view
                view = columns.figure_view(res, s.unit, lang, self.label_px(state), mem, s.over_time_unit)
                self.figures.apply(view)
                self.lines = view["lines"]  # what a zoom thins again
                tv = teach.figure_view(res, state, lang)
                self._defer_cursor_steps(tv["sources"].pop("cursor_steps"))
                self.figures.apply(tv)  # after: it sets the projector's sizes
                html = readouts.readout_html(readouts.readout_values(res), lang)
                # The projector's larger readout (a class inside the pane: its CSS cannot reach in from outside).
                self.readout.object = f'<div class="pv-projector">{html}</div>' if state["projector"] else html
                self.closing.object = closing.closing_html(closing.closing_values(res), lang)
                self.closing.visible = bool(self.closing.object)
                self.glance.drawn(res, lang)
                self.memory_readout.object = memory_view.memory_html(memory_view.memory_values(s.memory), lang)
                self.memory_readout.visible = self.memory_key.visible = s.memory is not None
                if s.memory is not None and not self.memory_row.objects:
                    self.memory_row.objects = [
                        pn.Column(self.figures.memory, sizing_mode="stretch_width", **flex("1 1 420px")),
                        pn.Column(self.memory_key, width=240, **flex("0 0 240px")),
                    ]
            self.controls.follow(state)
        self.deferred.changed()

    def draw_run(self, real: run_view.Shown, lang: str, state: dict) -> None:
        """A real run instead of the schedules (view/run_view.py): its figures, readout, key."""
        res = real.result
        self.window = None
        tv = teach.figure_view(res, state, lang)
        self._defer_cursor_steps(tv["sources"].pop("cursor_steps"))
        self.figures.apply(tv)
        view = run_view.figure_view(real.report, res, self.session.unit, lang, self.label_px(state))
        self.figures.apply(view)  # after the teaching view: a run's rows take more height
        self.lines = view["lines"]
        self.run_drawn = True
        self.readout.object = run_view.readout_html(run_view.readout_values(real.report), lang)
        self.closing.visible = False
        self.glance.drawn(res, lang)
        self.memory_readout.visible = self.memory_key.visible = False

    def _defer_cursor_steps(self, steps: dict) -> None:
        """The play cursor's step functions go out with the deferred refresh: at the
        sliders' ends they are a megabyte, read only once the cursor leaves the end,
        where every change puts it. Until they arrive the source is empty, which
        keeps the cursor hidden (static/teach_models.js `showCursor`): never a stale count."""
        if self.figures.holds("cursor_steps", steps):
            return
        self.cursor_steps = steps
        self.figures.set_source("cursor_steps", {k: v[:0] for k, v in steps.items()})

    def refresh_later(self, run: Callable[[Config], Result]) -> None:
        """The deferred refresh: the comparison table, the bars' key, the placements,
        the sweep, the cursor's steps and the URL. `run` runs the table's and the
        placements' engine (a slice's, served/deferred.py)."""
        if self.deferred.served and not self.url.ready:
            return  # the page is not ready: the load runs the refresh (see __init__)
        if self.url.ready and not compat.has_viewer(self.deferred.doc):  # the page loaded, and its browser has gone since
            return
        s = self.session
        res, lang = s.result, s.lang
        if s.real is not None:
            real = s.real
            with pn.io.hold():
                if self.cursor_steps is not None:
                    self.figures.set_source("cursor_steps", self.cursor_steps)
                    self.cursor_steps = None
                what = None if real.what is None else run_view.whatif_values(real.report, real.what)
                self.table.object = run_view.whatif_html(what, lang)
                self.bars_key.object = readouts.bars_key_html(real.result.order.has_w, lang, False)
                self.places.visible = False
        elif res is not None:
            table, places = s.table_rows(run), s.places_rows(run)
            with pn.io.hold():
                if self.cursor_steps is not None:
                    self.figures.set_source("cursor_steps", self.cursor_steps)
                    self.cursor_steps = None
                self.table.object = readouts.table_html(table, lang)
                self.bars_key.object = readouts.bars_key_html(res.order.has_w, lang, res.balance is not None)
                self.places.object = closing.placements_html(places, lang)
                self.places.visible = bool(self.places.object)
                self.figures.apply(sweep.figure_view(sweep.cached_values(res.config), res.config, lang))
                self.memory_key.object = memory_view.memory_key_html(lang)
        self.url.write()
        if res is not None:
            self.follow_tradeoff(run)

    def follow_tradeoff(self, run: Callable[[Config], Result]) -> None:
        """The trade-off view, last in the deferred refresh (its runs are the most): when a
        slice ends in it, the points computed so far are drawn first, and the note says
        how many are still to come."""
        s = self.session
        try:
            values = s.tradeoff_values(run)
        except Sliced:
            ready, now = getattr(run, "ready", None), time.monotonic()
            if ready is not None and now - self.tradeoff_shown_at >= tradeoff.PARTIAL_MS / 1000:
                self.show_tradeoff(s.tradeoff_values(tradeoff.ready_only(ready)))
                self.tradeoff_shown_at = now
            raise
        self.show_tradeoff(values)

    def show_tradeoff(self, values: dict) -> None:
        s = self.session
        res = s.result
        with pn.io.hold():
            self.figures.apply(tradeoff.figure_view(values, tradeoff.current_of(res.config), s.lang))
            note = tradeoff.note_html(values, res.theory is None, s.lang)
            self.tradeoff_note.object = f'<div class="pv-tradeoff-note">{note}</div>'

    def _on_tap(self, attr, old, new) -> None:
        """A point of the trade-off view was tapped: show its schedule at its V, through
        the session's one change path (as the schedule menu and the V slider do)."""
        source = self.figures.sources["tradeoff_points"]
        if not new or new[0] >= len(source.data["schedule"]):
            return
        name, V = source.data["schedule"][new[0]], int(source.data["V"][new[0]])
        source.selected.indices = []  # nothing stays marked, and the same point can be tapped again
        self.session.update({"schedule": name, "V": V, "custom": False})

    def show_notice(self, lang: str) -> None:
        """What is not valid or cannot finish (a warning) and what the rules adjusted
        (notes), as plain text."""
        s = self.session
        lines = []
        if s.real_problem is not None:  # the CLI's words for the files
            lines.append(s.real_problem.text(lang))
        if s.problem is not None:
            shown = s.result.config if s.result else None
            lines.append(fill("notice.invalid", lang, why=s.problem,
                              shown=describe(shown, lang) if shown else template("notice.nothing", lang)))
        deadlock = getattr(s.shown, "deadlock", None)
        if deadlock is not None:  # drawn: the ops that ran, and the stuck ones
            lines.append(deadlock.text(lang))
        lines += [n.text(lang) for n in s.notes]
        self.notice_lines = lines
        key = "run.summary" if s.real is not None else None if s.custom else f"sched.{s.schedule}.summary"
        summary = escape(template(key, lang)) if key else ""
        if self.summary.object != summary:
            self.summary.object = summary
        self.summary.visible = not lines
        bad = s.problem is not None or deadlock is not None or s.real_problem is not None
        kind = "warning" if bad else "info"
        self.notice.object = (
            f'<div class="pv-notice pv-{kind}" role="status">' + "".join(f"<p>{escape(x)}</p>" for x in lines) + "</div>"
        )
        self.notice.visible = bool(lines)

    # -- zoom and resize ----------------------------------------------------------------------

    def _on_zoom(self, event) -> None:
        """A pan or zoom ended: level the timeline again for what is visible (view/lod.py)."""
        if event.x0 is not None and event.x1 is not None:
            self.relevel((float(event.x0), float(event.x1)))

    def relevel(self, window) -> None:
        real = self.session.real
        res = real.result if real is not None else self.session.result
        if res is None:
            return
        px = self.label_px()
        self.window = window
        with pn.io.hold():
            boxes = columns.ops(res, px, window)
            parts = {"ops": boxes, "fb_halves": columns.fb_halves(res, boxes), "labels": columns.labels(res, px, window),
                     "bubbles": columns.bubbles(res, px, window)}
            if real is not None:  # a run's step in the upper row of each rank's band
                run_view.upper(parts)
            self.figures.set_source("ops", parts["ops"])
            self.figures.set_source("fb_halves", parts["fb_halves"])
            self.figures.relabel(parts["labels"])
            self.figures.set_source("bubbles", parts["bubbles"])
            for name, data in columns.over_time_lines(self.lines, px, window or columns.full_window(res)).items():
                self.figures.set_source(name, data)

    def label_px(self, state: dict | None = None) -> float:
        """The width the micro-batch labels are fitted to (narrower when the projector enlarges them)."""
        return self.figures.label_px() / teach.label_scale(self.session.state() if state is None else state)

    # -- layout -------------------------------------------------------------------------------

    def __panel__(self):
        return self.layout()

    def layout(self):
        """As the page lays itself out (render/style.PAGE_CSS): the head (title, language,
        preset), the article's bar (schedule, P, m, V; sticky, so it stays on screen with
        the chart), then the main column (the line under the bar, readout, charts,
        table, sweep) and the folded settings: on the main column's left where there is
        room, below it where there is not. The timeline and the lines over time share
        one Bokeh column, so their time axes keep one width."""
        s, c = self.session, self.controls
        lang = s.param.lang
        # The timeline, the bars and the lines over time in a grid: the bars beside both where
        # there is room, right under the timeline where there is not (render/style.PAGE_CSS).
        timeline = pn.pane.Bokeh(bk_column(self.figures.timeline, sizing_mode="stretch_width"), sizing_mode="stretch_width",
                                 styles={"grid-area": "tl", "min-width": "0"})
        over_time = pn.Column(pn.pane.Bokeh(bk_column(self.figures.play_controls, self.figures.over_time,
                                                      sizing_mode="stretch_width"), sizing_mode="stretch_width"),
                              self.glance.lines_key, sizing_mode="stretch_width", styles={"grid-area": "ot", "min-width": "0"})
        bars = pn.Column(self.figures.inflight, self.bars_key, width=240, styles={"grid-area": "bars"})
        charts = pn.Column(timeline, bars, over_time, sizing_mode="stretch_width", stylesheets=[CHARTS_CSS])
        table_title = pn.pane.HTML(pn.bind(lambda lang: f"<h3>{escape(template('table.title', lang))}</h3>", lang),
                                   margin=(10, 10, 0, 10))
        slot = pn.Column(self.notice, self.summary, sizing_mode="stretch_width", styles={"min-height": "44px"})
        main = pn.Column(
            slot,
            self.readout,
            self.closing,
            self.glance.legend,
            charts,
            self.puzzle,  # below the timeline it fills: put away, it keeps the chart on a phone's first screen
            self.places,
            self.glance.ops_card,
            self.memory_readout,
            self.memory_row,
            table_title,
            self.table,
            pn.pane.Bokeh(self.figures.tradeoff, sizing_mode="stretch_width"),
            self.tradeoff_note,
            # The sweep: the V chart beside the m chart where there is room, below it where there is not.
            pn.FlexBox(pn.pane.Bokeh(self.figures.sweep_m, sizing_mode="stretch_width", **flex("1 1 320px")),
                       pn.pane.Bokeh(self.figures.sweep_v, width=SWEEP_V_WIDTH,
                                     **flex(f"0 0 {SWEEP_V_WIDTH}px", **{"max-width": "100%"})),
                       flex_wrap="wrap", gap="0 8px", sizing_mode="stretch_width"),
            sizing_mode="stretch_width", stylesheets=[MAIN_CSS],
        )
        more = pn.Column(*c.groups(s.lang), self.glance.a11y, sizing_mode="stretch_width", stylesheets=[MORE_CSS])
        title = pn.pane.HTML(title_html(s.lang), sizing_mode="stretch_width", **flex("1 1 200px"))
        # On a narrow screen the settings are below the charts: one tap takes the reader there.
        more_link = pn.widgets.Button(label=template("group.more", s.lang), button_type="light", stylesheets=[LINK_CSS])
        more_link.js_on_click(args={"target": more}, code=SCROLL_JS)
        head = pn.FlexBox(title, more_link, *c.head(s.lang), flex_wrap="wrap", align_items="center", gap="2px 12px",
                          sizing_mode="stretch_width")
        bar = pn.FlexBox(*c.bar(s.lang), flex_wrap="wrap", align_items="flex-end", gap="0 16px",
                         sizing_mode="stretch_width", stylesheets=[BAR_CSS])

        def relabel(event) -> None:  # the controls, made anew in the reader's language
            lang = event.new
            title.object = title_html(lang)
            more_link.name = template("group.more", lang)
            head.objects = [title, more_link, *c.head(lang)]
            bar.objects = c.bar(lang)
            more.objects = [*c.groups(lang), self.glance.a11y]

        s.param.watch(relabel, "lang")
        body = pn.FlexBox(main, more, flex_wrap="wrap", gap="8px 16px", sizing_mode="stretch_width")
        # Clipped sideways (a slider's touch area at its end reaches past the screen), not
        # hidden: a hidden overflow would make this column the bar's scroller, and unstick it.
        return pn.Column(head, bar, body, sizing_mode="stretch_width", styles={"max-width": "100%", "overflow-x": "clip"})


# The app's half of render/style.PAGE_CSS: each stylesheet styles its own component
# (`:host`), since Panel's components live in shadow roots the page's CSS cannot reach.
CHARTS_CSS = """
:host { display: grid; grid-template-columns: minmax(0, 1fr) 240px; grid-template-areas: "tl bars" "ot bars";
  gap: 0 8px; align-items: start; }
@media (max-width: 699px) { :host { grid-template-columns: minmax(0, 1fr); grid-template-areas: "tl" "bars" "ot"; } }
"""
BAR_CSS = ":host { position: sticky; top: 0; z-index: 20; background: #fff; border-bottom: 1px solid #e2e2e2; }"
MAIN_CSS = """
:host { flex: 1 1 100%; min-width: 0; }
@media (min-width: 900px) { :host { flex: 1 1 460px; } }
"""
MORE_CSS = """
:host { flex: 1 1 100%; min-width: 0; }
@media (min-width: 900px) { :host { flex: 0 0 270px; order: -1; } }
"""


NOTE_CSS = ":host { font-size: 12px; color: #333; } p { margin: 3px 0; }"
LINK_CSS = "@media (min-width: 900px) { :host { display: none; } }"
# Scroll the folded settings into view (`target`: their column).
SCROLL_JS = "const v = Bokeh.index.find_one(target); if (v) v.el.scrollIntoView();  // its top to the top"


def page_template():
    """The served page's HTML: Panel's own, with a viewport meta tag, so that a phone
    lays the app out at its own width instead of 980 px shrunk (Bokeh's `Document.template`)."""
    import jinja2

    return jinja2.Environment().from_string(
        '{% extends base %}{% block postamble %}'
        '<meta name="viewport" content="width=device-width, initial-scale=1">{% endblock %}')


def title_html(lang: str) -> str:
    return (f"<b style='font-size:19px'>pipeviz</b> "
            f"<span style='font-size:13px;color:#444'>{escape(template('app.tagline', lang))}</span>")


def flex(basis: str, **styles) -> dict:
    """A flex item's styles: its basis, and allowed to shrink below its content."""
    return dict(styles={"flex": basis, "min-width": "0", **styles})


def describe(cfg: Config, lang: str) -> str:
    name = template(f"sched.{CUSTOM}.title", lang) if cfg.schedule == CUSTOM else cfg.schedule
    return fill("notice.config", lang, name=name, P=cfg.P, m=cfg.m, V=cfg.V)
