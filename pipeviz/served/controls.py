"""The served explorer's controls, made from the session's parameters and labelled in
the reader's language: the schedule, P, m and V, the costs, the model, an order of
one's own, the unit, the closing section and the teaching toggles.

Every widget is `from_param` of a session field, so widget and field stay one value
both ways; the words come from the strings table (pipeviz/words). Widgets that Panel
would debounce are made prompt (pipeviz/compat.py `prompt`).
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

import panel as pn

from .. import compat
from ..custom import MAX_TEXT
from ..registry import NAMES
from ..text import template
from ..view import glance
from ..view.fields import FIELDS, PRESETS
from ..view.state import m_start
from .glance import marked
from .session import Session

# Slider moves reach the server at once, not after Panel's 50 ms debounce.
IntSlider = compat.prompt(pn.widgets.IntSlider)
FloatSlider = compat.prompt(pn.widgets.FloatSlider)


def note(key: str, lang: str) -> pn.pane.HTML:
    return pn.pane.HTML(f'<div style="font-size:12px">{escape(template(key, lang))}</div>')


def heading(key: str, lang: str) -> pn.pane.HTML:
    return pn.pane.HTML(f"<b>{escape(template(key, lang))}</b>")


def choices(session: Session, key: str, lang: str, widget=pn.widgets.RadioButtonGroup, **kw):
    """A choice field's widget, each choice labelled by the strings table."""
    return widget.from_param(getattr(session.param, key), name=template(f"field.{key}", lang),
                             options={template(f"choice.{key}.{c}", lang): c for c in FIELDS[key].choices}, **kw)


class Switches:
    """Boolean fields as one-box CheckBoxGroups, whose label names the box (a
    Checkbox's text is not tied to its input, so the box would have no accessible
    name), kept in step with their fields both ways. The boxes of one language's
    controls are released (`clear`) when the controls are made again."""

    def __init__(self, session: Session):
        self.session = session
        self._watchers: list = []

    def clear(self) -> None:
        for watcher in self._watchers:
            self.session.param.unwatch(watcher)
        self._watchers = []

    def __call__(self, key: str, lang: str) -> pn.widgets.CheckBoxGroup:
        s, label = self.session, template(f"field.{key}", lang)
        box = pn.widgets.CheckBoxGroup(options=[label], value=[label] if getattr(s, key) else [])
        box.param.watch(lambda e: setattr(s, key, bool(e.new)), "value")
        self._watchers.append(s.param.watch(lambda e: setattr(box, "value", [label] if e.new else []), key))
        return box


class Controls:
    """The control column of one session; `column(lang)` makes it anew in a language.
    The preset menu and the m slider are kept: the view names the preset the state is
    and moves the slider's start (`follow`)."""

    def __init__(self, session: Session, edit: Callable[[], None]):
        self.session = session
        self.edit = edit  # "Edit this schedule"
        self.switch = Switches(session)
        self.preset_menu: pn.widgets.Select | None = None
        self.m_slider: pn.widgets.IntSlider | None = None

    def follow(self, state: dict) -> None:
        """Name the preset the view is, and let m offer only values the order accepts."""
        if self.preset_menu is not None:
            self.preset_menu.value = glance.matching_preset(state) or ""
        if self.m_slider is not None:
            self.m_slider.start = m_start(state)

    def _preset_chosen(self, name: str) -> None:
        """The menu changed: the prompt, or the preset the view already is (our own
        echo), change nothing."""
        if name and name != glance.matching_preset(self.session.state()):
            self.session.apply_preset(name)

    def column(self, lang: str) -> pn.Column:
        s = self.session
        self.switch.clear()  # the boxes being replaced
        schedule = pn.widgets.RadioBoxGroup.from_param(
            s.param.schedule, inline=False, name=template("field.schedule", lang), css_classes=marked("schedule"),
            options={f"{template(f'sched.{n}.title', lang)}: {template(f'sched.{n}.summary', lang)}": n for n in NAMES},
            stylesheets=["label { white-space: normal !important; line-height: 1.25; margin-bottom: 4px; }"],
        )
        # No value bubble over the handle while dragging: it covered the title, which shows the value.
        sliders = [IntSlider.from_param(getattr(s.param, k), name=template(f"field.{k}", lang), tooltips=False,
                                        css_classes=marked(k), sizing_mode="stretch_width") for k in "PmV"]
        self.m_slider = sliders[1]
        self.m_slider.start = m_start(s.state())
        costs = [
            pn.widgets.FloatInput.from_param(getattr(s.param, k), name=template(f"field.{k}", lang),
                                             step=FIELDS[k].step, sizing_mode="stretch_width")
            for k in ("tf", "tb", "tw", "comm", "tfb")
        ]
        presets = pn.widgets.Select(
            name=template("field.preset", lang), sizing_mode="stretch_width",
            options={template("preset.prompt", lang): "", **{template(f"preset.{p}", lang): p for p in PRESETS}},
            value=glance.matching_preset(s.state()) or "",
        )
        presets.param.watch(lambda e: self._preset_chosen(e.new), "value")
        self.preset_menu = presets
        cost_card = pn.Card(note("costs.note", lang), *costs, title=template("costs.title", lang), collapsed=True,
                            sizing_mode="stretch_width")
        unit = choices(s, "unit", lang, css_classes=marked("unit"))
        language = choices(s, "lang", lang, css_classes=marked("lang"))
        return pn.Column(
            pn.pane.HTML(f"<h2>pipeviz</h2><p>{escape(template('app.tagline', lang))}</p>"),
            language, presets, schedule, *sliders, cost_card, self.model_card(lang), self.order_card(lang),
            heading("field.unit", lang), unit, self.switch("balance", lang),
            heading("field.over_time_unit", lang), choices(s, "over_time_unit", lang),
            *self.encoder_controls(lang),
            pn.Row(*(pn.widgets.Toggle.from_param(getattr(s.param, k), name=template(f"field.{k}", lang))
                     for k in ("critical", "projector"))),
            sizing_mode="stretch_width",
        )

    def order_card(self, lang: str) -> pn.Card:
        """Bring your own order: paste it (or start from the shown schedule), pick the
        placement, show it."""
        s = self.session
        text = pn.widgets.TextAreaInput.from_param(
            s.param.order, name=template("field.order", lang), placeholder=template("own.placeholder", lang),
            height=150, sizing_mode="stretch_width", stylesheets=["textarea { font-family: monospace; }"],
            max_length=MAX_TEXT,  # Panel's default (5000) would cut a pasted order short
        )
        placement = choices(s, "placement", lang, orientation="vertical", sizing_mode="stretch_width")
        show = pn.widgets.Toggle.from_param(s.param.custom, name=template("field.custom", lang),
                                            button_type="primary", sizing_mode="stretch_width")
        edit = pn.widgets.Button(name=template("own.edit", lang), sizing_mode="stretch_width")
        edit.on_click(lambda _: self.edit())
        return pn.Card(note("own.note", lang), edit, text, heading("field.placement", lang), placement, show,
                       title=template("own.title", lang), collapsed=True, sizing_mode="stretch_width")

    def encoder_controls(self, lang: str) -> list:
        """The closing section's encoder: placement, e_f and e_b, frozen."""
        s = self.session
        place = choices(s, "encoder", lang, widget=pn.widgets.RadioBoxGroup, inline=False)
        sliders = [FloatSlider.from_param(getattr(s.param, k), name=template(f"field.{k}", lang),
                                          step=FIELDS[k].step) for k in ("ef", "eb")]
        return [heading("field.encoder", lang), place, *sliders, self.switch("frozen", lang)]

    def model_card(self, lang: str) -> pn.Card:
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
        s = self.session

        def choice(key: str):
            return choices(s, key, lang, widget=pn.widgets.Select, sizing_mode="stretch_width")

        def number(key: str):
            f = FIELDS[key]
            widget = pn.widgets.IntInput if f.kind == "int" else pn.widgets.FloatInput
            width = 300 if key in ("embed", "head") else 150
            return widget.from_param(getattr(s.param, key), name=template(f"field.{key}", lang), step=f.step,
                                     width=width)

        weights = pn.widgets.TextInput.from_param(s.param.weights, name=template("field.weights", lang),
                                                  sizing_mode="stretch_width")
        return [
            choice("model"), pn.Row(number("hbm"), number("t")), choice("act"),
            pn.Row(number("s"), number("b")), pn.Row(number("L"), number("h")), pn.Row(number("a"), number("vocab")),
            self.switch("untied", lang), choice("bpp"), choice("stages"), weights, number("embed"), number("head"),
            note("model.note", lang),
        ]
