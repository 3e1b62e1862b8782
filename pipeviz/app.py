"""The explorer: a Panel app whose state is a handful of `param` parameters.

Widgets are made from the parameters; `@param.depends` drives every update. An
update runs the engine once, replaces the figures' columns and the readout inside
`pn.io.hold()` (one message), and sends the comparison table, the bars' key and the
URL in the session's next tick, so the chart repaints without waiting for them.
"""

from __future__ import annotations

import os
from functools import lru_cache

import panel as pn
import param

from .config import Config
from .costs import Costs
from .engine import Result, run
from .errors import ConfigError
from .registry import NAMES, SCHEDULES
from .render import readouts
from .render.figures import Figures
from .urlstate import FIELDS, KEYS, PRESETS, encode
from .urlstate import parse as parse_url


@lru_cache(maxsize=int(os.environ.get("PIPEVIZ_CACHE", "64")))
def run_cached(cfg: Config) -> Result:
    """Engine results shared by every session: a result depends only on its Config.
    PIPEVIZ_CACHE=0 turns the cache off (benchmarks/app.py measures cold updates)."""
    return run(cfg)


class LiveSlider(pn.widgets.IntSlider):
    """An IntSlider whose moves reach the server at once. Panel holds widget events
    for 50 ms to merge bursts; measured here that is a third of a keypress-to-repaint,
    and an update costs a few ms, so the explorer takes every event as it comes."""

    _priority_changes = ["value"]


def _param(name: str, default):
    f = FIELDS[name]
    if f.kind is int:
        return param.Integer(default=default, bounds=(f.low, f.high), doc=f.doc)
    return param.Number(default=default, bounds=(f.low, f.high), doc=f.doc)


class Explorer(pn.viewable.Viewer):
    schedule = param.Selector(
        default="1f1b",
        objects={f"{SCHEDULES[n].title}: {SCHEDULES[n].summary}": n for n in NAMES},
        doc="Pipeline schedule",
    )
    P = _param("P", 4)
    m = _param("m", 8)
    V = _param("V", 1)
    tf = _param("tf", 1.0)
    tb = _param("tb", 1.0)
    tw = _param("tw", 1.0)
    comm = _param("comm", 0.0)
    unit = param.Selector(default="micro-batches", objects=["micro-batches", "chunks"],
                          doc="Unit of the in-flight bars")

    def __init__(self, **params):
        super().__init__(**params)
        self.figures = Figures()
        self.result: Result | None = None  # what the figures show: the last valid configuration
        self.notice = pn.pane.Alert("", alert_type="warning", visible=False, margin=(0, 10), name="notice")
        self.readout = pn.pane.HTML("", name="readout", sizing_mode="stretch_width")
        self.table = pn.pane.HTML("", name="table")
        self.bars_key = pn.pane.HTML("", name="bars_key", width=230, margin=(0, 5))
        self._writing_url = False
        # Notes on what was adjusted (a snapped V, a clamped URL value) stay up while the
        # state is the one they were made for, and go at the next change.
        self._notes: list[str] = []
        self._notes_for: tuple | None = None
        self._ready = False  # the browser has rendered the first view
        self._later_pending = False  # the table and URL are waiting for the next tick
        self._refresh()
        self.figures.timeline.on_change("inner_width", self._on_resize)
        if pn.state.location is not None:
            pn.state.location.param.watch(self._on_url, ["search"])
            pn.state.onload(self._on_load)

    # -- state -> engine -> figures ---------------------------------------------

    def config(self) -> Config:
        return Config(self.schedule, self.P, self.m, self.V, Costs(self.tf, self.tb, self.tw, self.comm))

    @param.depends("schedule", watch=True)
    def _fit_V(self):
        """A schedule with a fixed V takes it: snap V and say so."""
        fixed = SCHEDULES[self.schedule].fixed_V
        if fixed and self.V != fixed:
            self._note(
                f"{self.schedule} runs {'one model chunk' if fixed == 1 else f'{fixed} chunks in a V'} per rank: "
                f"V set to {fixed}."
            )
            self.V = fixed

    def _note(self, text: str) -> None:
        self._notes.append(text)
        self._notes_for = None  # pinned to the state the next refresh shows

    @param.depends("schedule", "P", "m", "V", "tf", "tb", "tw", "comm", "unit", watch=True)
    def _refresh(self):
        problem = None
        try:
            res = run_cached(self.config())
        except ConfigError as e:
            problem, res = str(e), None
        state = tuple(getattr(self, k) for k in KEYS)
        if self._notes and self._notes_for is None:
            self._notes_for = state
        elif self._notes_for != state:
            self._notes, self._notes_for = [], None
        notes = self._notes
        with pn.io.hold():
            if problem:
                shown = self._describe(self.result.config) if self.result else "nothing yet"
                self._notice(f"Not valid: {problem}. The chart still shows {shown}.", notes)
            else:
                self._notice("", notes)
            if res is not None:  # valid: show it; otherwise the last good chart stays
                self.result = res
                self.figures.update(res, self.unit)
                self.readout.object = readouts.readout_html(res)
        self._later(self._refresh_secondary)

    def _refresh_secondary(self):
        """The comparison table, the bars' key and the URL: sent after the chart and its
        readout have gone out, so a slider's repaint does not wait for them."""
        self._later_pending = False
        res = self.result
        if res is not None:
            with pn.io.hold():
                self.table.object = readouts.table_html(res.config, run_cached)
                self.bars_key.object = readouts.bars_key_html(res)
        self._write_url()

    def _later(self, fn) -> None:
        """Run `fn` in the session's next tick (once, however many changes came first);
        at once when there is no session (tests, notebooks)."""
        doc = pn.state.curdoc
        if doc is None or doc.session_context is None:
            fn()
        elif not self._later_pending:
            self._later_pending = True
            doc.add_next_tick_callback(fn)

    def _on_resize(self, attr, old, new):
        if self.result is not None:
            self.figures.relabel(self.result)

    @staticmethod
    def _describe(cfg: Config) -> str:
        return f"{cfg.schedule} with P={cfg.P}, m={cfg.m}, V={cfg.V}"

    def _notice(self, text: str, notes: list[str]) -> None:
        """A warning (`text`: what is not valid) and notes (what was adjusted), or nothing."""
        lines = [text] if text else []
        lines += notes
        self.notice_lines = lines  # plain text, as the standalone page shows it
        self.notice.object = "\n\n".join(_md_escape(x) for x in lines)
        self.notice.alert_type = "warning" if text else "info"
        self.notice.visible = bool(lines)

    # -- presets ------------------------------------------------------------------

    def apply_preset(self, name: str) -> None:
        self.param.update(**PRESETS[name])

    # -- URL ----------------------------------------------------------------------

    def _on_load(self):
        """The browser has rendered the first view. Figure changes made before this
        are lost in the browser (measured: a URL applied on its first arrival updated
        the readouts but not the figures), so the URL is applied from here on."""
        self._ready = True
        self._apply_url()

    def _on_url(self, *_):
        """The URL changed after the first render (not by us)."""
        if self._writing_url or not self._ready:
            return
        self._apply_url()

    def _apply_url(self):
        loc = pn.state.location
        query = loc.search or ""
        if not query.strip("?") and loc.hash:
            query = loc.hash
        self.apply_query(query)

    def apply_query(self, query: str) -> None:
        """Open the view a URL query (or fragment) asks for, noting what was not valid."""
        updates, notes = parse_url(query)
        for n in notes:
            self._note(f"URL: {n}")
        fixed = SCHEDULES[updates.get("schedule", self.schedule)].fixed_V
        if fixed and "V" not in updates:
            updates["V"] = fixed
        changed = {k: v for k, v in updates.items() if getattr(self, k) != v}
        if changed:
            self.param.update(**changed)
        else:  # nothing to change, but the notes still need showing
            self._refresh()

    def _write_url(self) -> None:
        loc = pn.state.location
        if loc is None or not self._ready:  # never overwrite the URL the browser opened with
            return
        search = encode({k: getattr(self, k) for k in KEYS})
        if loc.search != search:
            self._writing_url = True
            try:
                loc.search = search
            finally:
                self._writing_url = False

    # -- layout -------------------------------------------------------------------

    def __panel__(self):
        return self.layout()

    def controls(self):
        schedule = pn.widgets.RadioBoxGroup.from_param(
            self.param.schedule, inline=False, name="Schedule",
            stylesheets=["label { white-space: normal !important; line-height: 1.25; margin-bottom: 4px; }"],
        )
        sliders = [
            LiveSlider.from_param(self.param.P, name="P (ranks)"),
            LiveSlider.from_param(self.param.m, name="m (micro-batches)"),
            LiveSlider.from_param(self.param.V, name="V (chunks per rank)"),
        ]
        costs = [
            pn.widgets.FloatInput.from_param(self.param.tf, name="t_f (forward)", step=0.1),
            pn.widgets.FloatInput.from_param(self.param.tb, name="t_b (backward, input grad)", step=0.1),
            pn.widgets.FloatInput.from_param(self.param.tw, name="t_w (backward, weight grad)", step=0.1),
            pn.widgets.FloatInput.from_param(self.param.comm, name="comm (per hop)", step=0.1),
        ]
        article = pn.widgets.Button(name="Article defaults", button_type="default")
        gpt = pn.widgets.Button(name="Profiled GPT (ZB paper)", button_type="default")
        article.on_click(lambda _: self.apply_preset("article"))
        gpt.on_click(lambda _: self.apply_preset("gpt"))
        cost_card = pn.Card(
            pn.pane.Markdown(
                "Per rank's whole share of the model. Presets: the article's units "
                "(t_f = t_b = t_w = 1), or the Zero Bubble paper's measured GPT stage "
                "(F 18.5, B 18.1, W 9.3, comm 0.6 ms; sets P=8, m=24).",
                styles={"font-size": "12px"},
            ),
            pn.Row(article, gpt),
            *costs,
            title="Costs",
            collapsed=True,
            sizing_mode="stretch_width",
        )
        unit = pn.widgets.RadioButtonGroup.from_param(self.param.unit, name="In-flight unit")
        return pn.Column(
            pn.pane.Markdown("## pipeviz\nHow pipeline-parallel training spends its time."),
            pn.pane.Markdown("**Schedule**", margin=(0, 10)),
            schedule,
            *sliders,
            cost_card,
            pn.pane.Markdown("**In-flight bars in**", margin=(0, 10)),
            unit,
            width=340,
        )

    def layout(self):
        main = pn.Column(
            self.notice,
            self.readout,
            pn.Row(self.figures.timeline, pn.Column(self.figures.inflight, self.bars_key), sizing_mode="stretch_width"),
            # A spacer as wide as the bars keeps the two time axes at the same scale.
            pn.Row(self.figures.over_time, pn.Spacer(width=240), sizing_mode="stretch_width"),
            pn.pane.Markdown("### All schedules at this P, m and V", margin=(10, 10, 0, 10)),
            self.table,
            sizing_mode="stretch_width",
        )
        return pn.Row(self.controls(), main, sizing_mode="stretch_width")


def _md_escape(text: str) -> str:
    """Show text literally inside a Markdown alert: no markup, no HTML."""
    out = []
    for ch in text:
        out.append("\\" + ch if ch in "\\`*_{}[]()#+-.!|<>&" else ch)
    return "".join(out)
