"""Read the explorer at a glance: the timeline's key, a keyboard-readable table of one
rank's ops, which preset (if any) the view is, the in-flight lines' key, and the
controls' accessible names. Both explorers show these; static/glance.js is the page's
twin of everything here that the browser computes (tests/test_glance.py holds it to
this module).

Each readout is built as readouts.py builds its own: `*_values` computes what is
shown (plain data, compared by the parity test), `*_html` puts it into the strings
table's words and the LAYOUTS below (markup only). Every word is escaped.
"""

from __future__ import annotations

from html import escape

import numpy as np

from ..engine import Result
from ..order import EB, EF, FB, KIND_NAMES, B, F, I, W
from ..text import fill, template
from .fields import PRESETS
from .palette import (
    BUBBLE_HATCH,
    DISPLAY_KIND,
    DISPLAY_NAMES,
    EMPHASIS_ABOVE,
    LINE_ALPHA,
    LINE_WIDTH,
    MAX_CHUNKS,
    chunk_palette,
    label_color,
)

# Op kind code -> the strings table's key naming it (kind.F ... in view/columns.py).
KIND_KEYS = ("F", "B", "I", "W", "FB", "EF", "EB")
assert len(KIND_KEYS) == len(KIND_NAMES) and (F, B, I, W, FB, EF, EB) == tuple(range(7))
OPS_TABLE_MAX = 1000  # rows of the ops table; more are counted, not listed

LAYOUTS = {
    "legend": '<div class="pv-legend">{items}</div>',
    "legend_item": '<span class="pv-legend-item">{chips} {name}</span>',
    "chip": '<span class="pv-chip" style="background:{color};color:{ink}">{text}</span>',
    "chip_pair": (
        '<span class="pv-chip pv-chip-pair"><span style="background:{top};color:{top_ink}">F</span>'
        '<span style="background:{bottom};color:{bottom_ink}">B</span></span>'
    ),
    "chip_idle": (
        '<span class="pv-chip pv-chip-idle" style="background:repeating-linear-gradient(135deg,{hatch} 0 1px,'
        '#fff 1px 5px)"></span>'
    ),
    "legend_note": '<span class="pv-legend-note">{text}</span>',
    "lines_key": '<div class="pv-key pv-lines-key">{text}</div>',
    "ops_table": (
        '<div class="pv-ops-box" tabindex="0" role="region" aria-label="{label}">'
        '<table class="pv-table pv-ops"><caption>{caption}</caption><thead><tr>{head}</tr></thead>'
        "<tbody>{rows}</tbody></table></div>{more}"
    ),
    "th": '<th scope="col">{text}</th>',
    "ops_row": "<tr>{cells}</tr>",
    "td": "<td>{text}</td>",
    "more": '<p class="pv-key">{text}</p>',
}
OPS_HEAD = ("ops.n", "ops.token", "ops.kind", "ops.mb", "ops.stage", "ops.chunk", "ops.start", "ops.end", "ops.idle")


def compose(layout: str, **parts: str) -> str:
    out = LAYOUTS[layout]
    for k, v in parts.items():
        out = out.replace("{" + k + "}", v)
    return out


def num(x: float) -> str:
    return f"{x:.6g}"


# -- the timeline's key ----------------------------------------------------------------


def legend_values(res: Result) -> dict:
    """What the timeline draws: each display kind the order uses with one chip per
    chunk (its colour and the label colour drawn on it), overlapped F&B pairs, idle."""
    order = res.order
    chunks = order.chunks_per_rank
    used = set(order.kinds_used)
    palette = chunk_palette(chunks)
    shown = sorted({int(DISPLAY_KIND[k]) for k in np.unique(order.kind).tolist() if k != FB}
                   | ({0, 1} if "F&B" in used else set()))
    items = []
    for d in shown:
        name = "legend." + DISPLAY_NAMES[d]
        if d == 1 and "I" in used:
            name = "legend.B_both" if "B" in used else "legend.B_split"
        n = 1 if d == 3 else chunks  # encoder ops have no chunk
        chips = []
        for c in range(n):
            color = palette[d * MAX_CHUNKS + c]
            text = DISPLAY_NAMES[d] + (str(c) if n > 1 else "")
            chips.append({"text": text, "color": color, "ink": label_color(color)})
        items.append({"name": name, "chips": chips})
    pair = None
    if "F&B" in used:
        top, bottom = palette[0], palette[MAX_CHUNKS]
        pair = {"top": top, "top_ink": label_color(top), "bottom": bottom, "bottom_ink": label_color(bottom)}
    return {"items": items, "pair": pair, "chunks": chunks, "hatch": BUBBLE_HATCH}


def legend_html(v: dict, lang: str = "en") -> str:
    items = []
    for item in v["items"]:
        chips = "".join(compose("chip", color=c["color"], ink=c["ink"], text=escape(c["text"])) for c in item["chips"])
        items.append(compose("legend_item", chips=chips, name=escape(template(item["name"], lang))))
    if v["pair"] is not None:
        items.append(compose("legend_item", chips=compose("chip_pair", **v["pair"]),
                             name=escape(template("legend.pair", lang))))
    items.append(compose("legend_item", chips=compose("chip_idle", hatch=v["hatch"]),
                         name=escape(template("legend.idle", lang))))
    note = fill("legend.chunks", lang, last=v["chunks"] - 1) if v["chunks"] > 1 else template("legend.mb", lang)
    items.append(compose("legend_note", text=escape(note)))
    return compose("legend", items="".join(items))


# -- the in-flight lines ---------------------------------------------------------------


def lines_key_html(P: int, lang: str = "en") -> str:
    """What the in-flight lines show, under them."""
    key = "lines.ends" if P > EMPHASIS_ABOVE else "lines.all"
    return compose("lines_key", text=escape(fill(key, lang, last=P - 1)))


# -- one rank's ops, for the keyboard ---------------------------------------------------


def ops_table_values(res: Result, rank: int, limit: int = OPS_TABLE_MAX) -> dict:
    """Rank `rank`'s ops in execution order (at most `limit`): its token in PyTorch's
    notation, kind, micro-batch, stage, chunk, start, end, and the idle time before it."""
    order, tl = res.order, res.timeline
    P = order.P
    rank = min(max(int(rank), 0), P - 1)
    lo, hi = int(order.rank_ptr[rank]), int(order.rank_ptr[rank + 1])
    chunks = order.chunks_per_rank
    v_shape = res.schedule.placement == "v"

    def chunk(stage: int) -> int:
        return (1 if stage >= P else 0) if v_shape else stage // P

    rows = []
    prev_end = 0.0
    for i in range(lo, min(hi, lo + limit)):
        k = int(order.kind[i])
        start, end = float(tl.start[i]), float(tl.end[i])
        mb, stage = int(order.mb[i]), int(order.stage[i])
        if k == FB:
            mb_text = f"{mb} & {int(order.mb2[i])}"
            stage_text = f"{stage} & {int(order.stage2[i])}"
            chunk_text = f"{chunk(stage)} & {chunk(int(order.stage2[i]))}"
        elif k in (EF, EB):
            mb_text, stage_text, chunk_text = str(mb), "-", "-"
        else:
            mb_text, stage_text, chunk_text = str(mb), str(stage), str(chunk(stage))
        rows.append({
            "n": str(i - lo + 1), "token": order.token(i), "kind": KIND_KEYS[k], "mb": mb_text, "stage": stage_text,
            "chunk": chunk_text, "start": num(start), "end": num(end), "idle": num(max(start - prev_end, 0.0)),
        })
        prev_end = end
    return {"rank": rank, "P": P, "total": hi - lo, "rows": rows, "chunks": chunks}


def ops_table_html(v: dict, lang: str = "en") -> str:
    head = "".join(compose("th", text=escape(template(k, lang))) for k in OPS_HEAD)
    rows = []
    for r in v["rows"]:
        cells = [r["n"], r["token"], template("kind." + r["kind"], lang), r["mb"], r["stage"], r["chunk"], r["start"],
                 r["end"], r["idle"]]
        rows.append(compose("ops_row", cells="".join(compose("td", text=escape(c)) for c in cells)))
    caption = escape(fill("ops.caption", lang, rank=v["rank"], n=v["total"]))
    more = ""
    if v["total"] > len(v["rows"]):
        more = compose("more", text=escape(fill("ops.more", lang, shown=len(v["rows"]), n=v["total"])))
    return compose("ops_table", label=caption, caption=caption, head=head, rows="".join(rows), more=more)


# -- presets -----------------------------------------------------------------------------


def matching_preset(state: dict) -> str | None:
    """The first preset whose every value the state has, or None (the menu then shows
    a neutral prompt rather than the last preset chosen)."""
    for name, p in PRESETS.items():
        if all(state.get(k) == v for k, v in p.values.items()):
            return name
    return None


# -- accessible names ------------------------------------------------------------------------

# Controls whose widget has no name of its own (a slider's handle, a group of
# buttons), by field; the app marks each widget with the CSS class pv-a11y-<key>,
# the page finds it by its model's name (as both find the play controls' time
# slider and speed, Bokeh models named play_time and play_speed in render/teach.py).
NAMED = ("schedule", "P", "m", "V", "ef", "eb", "unit", "lang", "ops_rank", "play_time", "play_speed")


def control_names(lang: str = "en") -> dict[str, str]:
    out = {k: template(f"field.{k}", lang) for k in NAMED}
    out["readout"] = template("a11y.readout", lang)
    return out


def as_data() -> dict:
    """What static/glance.js reads instead of repeating it."""
    return {
        "layouts": LAYOUTS, "opsHead": list(OPS_HEAD), "kindKeys": list(KIND_KEYS), "opsTableMax": OPS_TABLE_MAX,
        "emphasisAbove": EMPHASIS_ABOVE, "lineWidth": LINE_WIDTH, "lineAlpha": LINE_ALPHA,
        "names": {lang: control_names(lang) for lang in ("en", "zh")},
    }
