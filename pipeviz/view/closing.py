"""The article's closing section in the explorer: an encoder in the bubbles
(pipeviz.encoder) and activation balancing (pipeviz.balance).

Fields: the encoder's placement (or none), e_f, e_b, frozen, and balancing on or off.
Rule: moving e_f, e_b or frozen with no encoder puts one in the bubbles. Readouts:
as in `readouts`, values first (`*_values`, compared by the parity tests), then HTML
from the strings table and the layouts below. Both explorers show `closing_html`
under the main readout (at once) and `placements_html` under it (with the
comparison table, after the chart).
"""

from __future__ import annotations

from collections.abc import Callable

from ..config import MODES, PLACES, Config, Encoder
from ..engine import Result
from ..errors import ConfigError
from ..order import EF
from ..text import Msg, fill, msg, template
from . import markup, readouts
from .feature import Feature
from .field import Field
from .palette import DISPLAY_KIND, KIND_COLORS
from .readouts import num, pct

ENCODER_COLOR = KIND_COLORS[DISPLAY_KIND[EF]]
FIELD = "encoder"  # the explorer's field holding the placement
NO_ENCODER = "none"  # that field's value for no encoder
# The rule: moving one of these with no encoder runs the encoder with this placement
# (a reader who drags e_f wants to see it).
ENCODER_KNOBS = ("ef", "eb", "frozen")
ENCODER_ON = "bubbles"

FIELDS = (
    # encoder=none runs no encoder.
    Field(name=FIELD, kind="choice", default=NO_ENCODER, choices=(NO_ENCODER, *PLACES)),
    Field(name="ef", kind="float", default=0.5, low=0.1, high=50, step=0.1),
    Field(name="eb", kind="float", default=1.0, low=0.1, high=50, step=0.1),
    Field(name="frozen", kind="bool", default=False),
    Field(name="balance", kind="bool", default=False),
)

# Its own markup; the readouts' (swatches, table cells) it uses too.
LAYOUTS = {
    "closing": '<div class="pv-closing">{lines}</div>',
    "closing_line": '<div class="pv-closing-line">{text}</div>',
    "place_row": '<tr{current} data-place="{place}">{cells}</tr>',
    "places": '<h4 class="pv-places-title">{title}</h4>{table}<p class="pv-places-note">{note}</p>',
}
_MARKUP = {**readouts.LAYOUTS, **LAYOUTS}


def compose(layout: str, **parts: str) -> str:
    return markup.compose(_MARKUP, layout, **parts)


def encoder_of(state: dict) -> Encoder | None:
    """The encoder a state runs: none, or e_f, e_b, placement and frozen."""
    if state[FIELD] == NO_ENCODER:
        return None
    return Encoder(state["ef"], state["eb"], state[FIELD], state["frozen"])


def rule(state: dict, changed: set, notes: list[Msg]) -> bool:
    if state[FIELD] == NO_ENCODER and changed & set(ENCODER_KNOBS) and FIELD not in changed:
        state[FIELD] = ENCODER_ON
        notes.append(msg("rule.encoder_on"))
    return False


def configure(cfg: Config, state: dict) -> Config:
    return cfg.replace(encoder=encoder_of(state), balance="bpipe" if state["balance"] else None)


def encoder_values(res: Result) -> dict | None:
    e = res.encoder
    if e is None:
        return None
    s = e.settings
    others = max(0, res.config.m - res.config.P)
    return {
        "place": s.place, "frozen": s.frozen,
        "makespan": num(e.makespan), "pipeline": num(e.pipeline_makespan), "exposed": num(e.exposed),
        "hidden": pct(e.hidden_share), "filled": pct(e.bubble_filled),
        "fit_f": e.in_gaps[0], "fit_b": e.in_gaps[1], "others_f": others, "others_b": 0 if s.frozen else others,
        "rounds_f": e.rounds[0], "rounds_b": e.rounds[1],
    }


def balance_values(res: Result) -> dict | None:
    b = res.balance
    if b is None:
        return None
    mt = res.metrics
    return {
        "moved": b.moved,
        "rank0": num(b.peak_microbatches[0]), "rank0_before": num(mt.peak_microbatches[0]),
        "most": num(b.peak_microbatches.max()), "most_before": num(mt.peak_microbatches.max()),
        "transfers": num(b.transfers),
    }


def closing_values(res: Result) -> dict:
    return {"encoder": encoder_values(res), "balance": balance_values(res)}


def closing_html(v: dict, lang: str = "en") -> str:
    """The encoder's and the balancing's readout lines, or '' when neither is on."""
    lines = []
    e = v["encoder"]
    if e is not None:
        head = compose("swatch", color=ENCODER_COLOR) + fill(
            "cl.encoder", lang, html=True, place=template(f"choice.{FIELD}.{e['place']}", lang),
            makespan=e["makespan"], pipeline=e["pipeline"], exposed=e["exposed"], hidden=e["hidden"],
            filled=e["filled"])
        lines.append(head)
        if e["place"] == "bubbles" and e["others_f"] == 0:
            lines.append(fill("cl.fit_none", lang, html=True))
        elif e["place"] == "bubbles":
            key = "cl.fit_frozen" if e["frozen"] else "cl.fit"
            lines.append(fill(key, lang, html=True, fit_f=e["fit_f"], fit_b=e["fit_b"], others_f=e["others_f"],
                              others_b=e["others_b"], rounds_f=e["rounds_f"], rounds_b=e["rounds_b"]))
    b = v["balance"]
    if b is not None:
        if b["moved"]:
            lines.append(fill("cl.balance", lang, html=True, **{k: b[k] for k in (
                "rank0", "rank0_before", "most", "most_before", "transfers")}))
        else:
            lines.append(fill("cl.balance_none", lang, html=True))
    if not lines:
        return ""
    return compose("closing", lines="".join(compose("closing_line", text=x) for x in lines))


def placements_values(cfg: Config, run: Callable[[Config], Result]) -> list[dict]:
    """The three placements at the current settings, one row each (empty without an encoder)."""
    if cfg.encoder is None:
        return []
    rows = []
    for place in PLACES:
        row = {"place": place, "current": place == cfg.encoder.place}
        try:
            e = run(cfg.replace(encoder=cfg.encoder.replace(place=place), balance=None)).encoder
        except ConfigError as err:
            rows.append({**row, "error": err.msg})
            continue
        rows.append({**row, "error": None, "makespan": num(e.makespan), "pipeline": num(e.pipeline_makespan),
                     "exposed": num(e.exposed), "hidden": pct(e.hidden_share), "filled": pct(e.bubble_filled)})
    return rows


PLACES_HEAD = ("cl.th.place", "cl.th.makespan", "cl.th.pipeline", "cl.th.exposed", "cl.th.hidden", "cl.th.filled")


def page_data() -> dict:
    """What the page's JavaScript reads of the closing section (encoder.js, balance.js, closing.js)."""
    return {"places": list(PLACES), "modes": list(MODES), "field": FIELD, "none": NO_ENCODER, "on": ENCODER_ON,
            "knobs": list(ENCODER_KNOBS), "placesHead": list(PLACES_HEAD)}


def placements_html(rows: list[dict], lang: str = "en") -> str:
    if not rows:
        return ""
    out = []
    for row in rows:
        cells = [compose("td", text=template(f"choice.{FIELD}.{row['place']}", lang))]
        if row["error"] is not None:
            cells.append(compose("td_span", span=str(len(PLACES_HEAD) - 1), text=row["error"].html(lang)))
        else:
            cells += [compose("td", text=row[k]) for k in ("makespan", "pipeline", "exposed", "hidden", "filled")]
        current = compose("row_class", classes="pv-current") + compose("row_current") if row["current"] else ""
        out.append(compose("place_row", current=current, place=row["place"], cells="".join(cells)))
    head = "".join(compose("th", text=template(k, lang)) for k in PLACES_HEAD)
    return compose("places", title=template("cl.places", lang), table=compose("table", head=head, rows="".join(out)),
                   note=template("cl.why", lang))


FEATURE = Feature(
    name="closing",
    fields=FIELDS,
    engine_fields=tuple(f.name for f in FIELDS),
    rule=rule,
    configure=configure,
    layouts=LAYOUTS,
    data=page_data,
)
