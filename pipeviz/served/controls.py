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
from ..text import fill, template
from ..view import glance
from ..view.fields import FIELDS, PRESETS
from ..view.run_view import SERVED_MAX_BYTES, mb_text
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
    """The controls of one session, in three places (served/view.py lays them out as the
    page does): the head (language, the preset menu), the article's bar (schedule, P, m,
    V) and the folded groups of everything else. Each is made anew in a language; a
    group's widgets are made the first time it opens (fewer models in the first view).
    The preset menu and the m slider are kept: the view names the preset the state is
    and moves the slider's start (`follow`)."""

    def __init__(self, session: Session, edit: Callable[[], None], show: Callable[[], None]):
        self.session = session
        self.edit = edit  # "Edit this schedule"
        self.show = show  # "Show my order" (then the view goes back to its top)
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

    def head(self, lang: str) -> list:
        """The language and the preset menu (the view adds the title)."""
        s = self.session
        presets = pn.widgets.Select(
            name=template("field.preset", lang), sizing_mode="stretch_width",
            styles={"flex": "1 1 260px", "min-width": "0", "max-width": "420px"},
            options={template("preset.prompt", lang): "", **{template(f"preset.{p}", lang): p for p in PRESETS}},
            value=glance.matching_preset(s.state()) or "",
        )
        presets.param.watch(lambda e: self._preset_chosen(e.new), "value")
        self.preset_menu = presets
        return [choices(s, "lang", lang, css_classes=marked("lang"), styles={"flex": "0 0 auto"}), presets]

    def bar(self, lang: str) -> list:
        """The article's controls: the schedule (a menu of names; its summary is the line
        under the bar), P, m and V."""
        s = self.session
        self.switch.clear()  # a new language's controls: the old boxes no longer follow
        schedule = pn.widgets.Select.from_param(
            s.param.schedule, name=template("field.schedule", lang), css_classes=marked("schedule"),
            options={template(f"sched.{n}.title", lang): n for n in NAMES}, sizing_mode="stretch_width",
            styles={"flex": "1 1 200px", "min-width": "0"},
        )
        # No value bubble over the handle while dragging: it covered the title, which shows the value.
        sliders = [IntSlider.from_param(getattr(s.param, k), name=template(f"field.{k}", lang), tooltips=False,
                                        css_classes=marked(k), sizing_mode="stretch_width",
                                        styles={"flex": "1 1 150px", "min-width": "100px"}) for k in "PmV"]
        self.m_slider = sliders[1]
        self.m_slider.start = m_start(s.state())
        return [schedule, *sliders]

    def groups(self, lang: str) -> list:
        """Everything beyond the article's first controls, one folded card a group."""
        return [
            self.card("costs.title", lang, self.costs),
            self.card("model.title", lang, self.model_widgets, name="model_card"),
            self.card("own.title", lang, self.own_order),
            self.card("run.title", lang, self.real_run, name="run_card"),
            self.card("group.closing", lang, self.closing),
            self.card("group.display", lang, self.display),
        ]

    def card(self, title: str, lang: str, make: Callable[[str], list], name: str | None = None) -> pn.Card:
        """A folded card whose widgets are made the first time it opens: the model's
        alone are about a hundred Bokeh models, which made the first view take a
        third longer to arrive."""
        card = pn.Card(title=template(title, lang), collapsed=True, sizing_mode="stretch_width",
                       **({"name": name} if name else {}))

        def fill(event) -> None:
            if not event.new and not card.objects:
                card.objects = make(lang)

        card.param.watch(fill, "collapsed")
        return card

    def costs(self, lang: str) -> list:
        s = self.session
        return [note("costs.note", lang), *(
            pn.widgets.FloatInput.from_param(getattr(s.param, k), name=template(f"field.{k}", lang),
                                             step=FIELDS[k].step, sizing_mode="stretch_width")
            for k in ("tf", "tb", "tw", "comm", "tfb"))]

    def own_order(self, lang: str) -> list:
        """Bring your own order: paste it (or start from the shown schedule), pick the
        placement, show it. "Show my order" shows what the box holds now however often
        it is pressed; "Back to the schedules" leaves it."""
        s = self.session
        text = pn.widgets.TextAreaInput.from_param(
            s.param.order, name=template("field.order", lang), placeholder=template("own.placeholder", lang),
            height=150, sizing_mode="stretch_width", stylesheets=["textarea { font-family: monospace; }"],
            max_length=MAX_TEXT,  # Panel's default (5000) would cut a pasted order short
        )
        placement = choices(s, "placement", lang, orientation="vertical", sizing_mode="stretch_width")
        show = pn.widgets.Button(label=template("field.custom", lang), button_type="primary", sizing_mode="stretch_width")
        # The box's text as typed: a click can come before the box's own change reaches the session.
        show.on_click(lambda _: self.show(text.value_input))
        show.js_on_click(code="window.scrollTo(0, 0);")  # where the readout or the notice says what came of it
        back = pn.widgets.Button(label=template("own.back", lang), sizing_mode="stretch_width")
        back.on_click(lambda _: setattr(s, "custom", False))
        edit = pn.widgets.Button(label=template("own.edit", lang), sizing_mode="stretch_width")
        edit.on_click(lambda _: self.edit())
        return [note("own.note", lang), edit, text, heading("field.placement", lang), placement, show, back]

    def real_run(self, lang: str) -> list:
        """A real run: one trace per rank chosen (read in this process: view/run_view.py
        read_uploads), what if, back to the schedules. A choice over the limit is not sent
        (static/compat.js "uploads", reading the limit from the input's tags): the server
        is told its size and says so."""
        s = self.session
        files = pn.widgets.FileInput(multiple=True, accept=".json,.gz", name=template("run.files", lang),
                                     tags=[{"pvMaxBytes": SERVED_MAX_BYTES}], sizing_mode="stretch_width")

        def chosen(event) -> None:
            if not event.new:  # cleared (below), or nothing chosen
                return
            values = event.new if isinstance(event.new, list) else [event.new]
            names = files.filename if isinstance(files.filename, list) else [files.filename]
            kinds = files.mime_type if isinstance(files.mime_type, list) else [files.mime_type]
            s.show_run([(str(n), v or b"", str(k or "")) for n, v, k in zip(names, values, kinds)])
            files.clear()  # the same files chosen again are read again

        files.param.watch(chosen, "value")
        whatif = pn.widgets.Button(label=template("run.whatif", lang), button_type="primary", sizing_mode="stretch_width")
        whatif.on_click(lambda _: s.run_what_if())
        back = pn.widgets.Button(label=template("run.back", lang), sizing_mode="stretch_width")
        back.on_click(lambda _: s.leave_run())
        note_ = pn.pane.HTML(f'<div style="font-size:12px">{escape(fill("run.note_served", lang, max=mb_text(SERVED_MAX_BYTES)))}'
                             "</div>")
        return [note_, files, whatif, back]

    def closing(self, lang: str) -> list:
        """The closing section: the encoder (placement, e_f and e_b, frozen) and balancing."""
        s = self.session
        place = choices(s, "encoder", lang, widget=pn.widgets.RadioBoxGroup, inline=False)
        sliders = [FloatSlider.from_param(getattr(s.param, k), name=template(f"field.{k}", lang), css_classes=marked(k),
                                          step=FIELDS[k].step, sizing_mode="stretch_width") for k in ("ef", "eb")]
        return [heading("field.encoder", lang), place, *sliders, self.switch("frozen", lang),
                self.switch("balance", lang)]

    def display(self, lang: str) -> list:
        """What the bars and the lines over time count, and the teaching toggles."""
        s = self.session
        return [heading("field.unit", lang), choices(s, "unit", lang, css_classes=marked("unit")),
                heading("field.over_time_unit", lang), choices(s, "over_time_unit", lang),
                pn.Row(*(pn.widgets.Toggle.from_param(getattr(s.param, k), name=template(f"field.{k}", lang))
                         for k in ("critical", "projector")))]

    def model_widgets(self, lang: str) -> list:
        s = self.session

        def choice(key: str):
            return choices(s, key, lang, widget=pn.widgets.Select, sizing_mode="stretch_width")

        def number(key: str):
            f = FIELDS[key]
            widget = pn.widgets.IntInput if f.kind == "int" else pn.widgets.FloatInput
            return widget.from_param(getattr(s.param, key), name=template(f"field.{key}", lang), step=f.step,
                                     sizing_mode="stretch_width", min_width=0)

        def pair(a: str, b: str):
            return pn.Row(number(a), number(b), sizing_mode="stretch_width")

        weights = pn.widgets.TextInput.from_param(s.param.weights, name=template("field.weights", lang),
                                                  sizing_mode="stretch_width")
        return [
            choice("model"), pair("hbm", "t"), choice("act"), pair("s", "b"), pair("L", "h"), pair("a", "vocab"),
            self.switch("untied", lang), choice("bpp"), choice("stages"), weights, number("embed"), number("head"),
            note("model.note", lang),
        ]
