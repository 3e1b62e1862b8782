"""The explorer's readouts: the bubble line, the summary, the bars' key and the
comparison table, as HTML.

Each readout is built in two steps, both twinned in static/readouts.js: `*_values`
computes the numbers as text (the parity tests compare these), and `*_html` puts
them into templates from the strings table (words, escaped arguments) and the
layouts below (markup only). Everything that came from a user is escaped.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from ..closed_form import fraction_text
from ..config import Config
from ..engine import Result
from ..errors import ConfigError
from ..memory import GIB
from ..registry import NAMES, SCHEDULES
from ..text import Msg, fill, template
from . import markup
from .palette import BEFORE_OUTLINE, KIND_COLORS, W_ONLY_COLOR

# Markup with {slots} for HTML that is already built (never for raw text).
LAYOUTS = {
    "readout": (
        '<div class="pv-readout"><div class="pv-bubble">{bubble}</div>'
        '<div class="pv-verdict">{verdict}</div>{authors}<div class="pv-summary">{summary}</div></div>'
    ),
    "authors": '<div class="pv-authors">{text}</div>',
    "source": '<div class="pv-source">{text}</div>',
    "verdict": '<span class="pv-{cls}">{text}</span>',
    "sep": " · ",
    "swatch": '<span class="pv-swatch" style="background:{color}"></span>',
    "swatch_outline": '<span class="pv-swatch" style="border:1px dashed {color};box-sizing:border-box"></span>',
    "key": '<div class="pv-key">{items}</div>',
    "table": (
        '<div class="pv-table-box"><table class="pv-table"><thead><tr>{head}</tr></thead>'
        "<tbody>{rows}</tbody></table></div>"
    ),
    "th": "<th>{text}</th>",
    "row": '<tr{current} data-schedule="{name}">{cells}</tr>',
    "row_class": ' class="{classes}"',  # a row's attributes: its classes, and whether it is the one shown
    "row_current": ' aria-current="true"',
    "td": "<td>{text}</td>",
    "td_span": '<td colspan="{span}">{text}</td>',
    "parts": '<div class="pv-parts">{text}</div>',
}


def compose(layout: str, **parts: str) -> str:
    """Put HTML parts into a layout (the parts are already escaped)."""
    return markup.compose(LAYOUTS, layout, **parts)


def pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def num(x: float) -> str:
    return f"{x:.6g}"


def closed_form_text(res: Result) -> str:
    """'(P-1)/(m+P-1) = 3/11 = 27.27%'."""
    th = res.theory
    frac = fraction_text(th.bubble)
    middle = f" = {frac}" if frac and "/" in frac else ""
    return f"{th.bubble_formula}{middle} = {pct(float(th.bubble))}"


def same_time(a: float, b: float, makespan: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, makespan)


def authors_values(res: Result) -> dict | None:
    """A bubble its authors state as idle time (DeepSeek's), beside the simulated idle
    of every rank: which ranks idle exactly that long, and whether it is the longest."""
    th, mt = res.theory, res.metrics
    if th is None or th.authors is None:
        return None
    a = th.authors
    value = float(a.idle)
    idle = mt.idle.tolist()
    ranks = [r for r, x in enumerate(idle) if same_time(x, value, mt.makespan)]
    top = max(range(len(idle)), key=lambda r: idle[r])
    return {
        "who": a.who, "formula": a.formula, "value": num(value), "idle": [num(x) for x in idle], "ranks": ranks,
        "largest": bool(ranks) and same_time(idle[top], value, mt.makespan), "top": top, "top_idle": num(idle[top]),
    }


def authors_verdict(v: dict) -> Msg:
    """Which ranks idle as long as the authors' bubble says, from the simulation."""
    if v["largest"]:
        return Msg("ro.authors_largest", {"ranks": v["ranks"]})
    if v["ranks"]:
        return Msg("ro.authors_rank", {"ranks": v["ranks"], "top": v["top"], "top_idle": v["top_idle"]})
    return Msg("ro.authors_none")  # the bubble's verdict says why


def authors_html(v: dict | None, lang: str = "en") -> str:
    if v is None:
        return ""
    verdict = authors_verdict(v)
    text = fill("ro.authors", lang, html=True, who=Msg(v["who"]), formula=v["formula"], value=v["value"],
                idle=v["idle"], verdict=verdict)
    return compose("authors", text=text)


def readout_values(res: Result) -> dict:
    """The readout's numbers. A result drawn with another below it (a puzzle's order
    beside par) reports its own part's numbers (`yours`), under its own label."""
    label = getattr(res, "label", None)
    res = getattr(res, "yours", None) or res
    mt, th = res.metrics, res.theory
    steady = abs(mt.steady_bubble_fraction - mt.bubble_fraction) > 1e-12
    return {
        "sim": pct(mt.bubble_fraction),
        "closed": closed_form_text(res) if th is not None else None,
        "agree": res.bubble_agrees,
        "why": th.caveat if th is not None else None,
        "own": own_values(res, label) if th is None else None,  # an order of one's own
        "makespan": num(mt.makespan),
        "steady": pct(mt.steady_bubble_fraction) if steady else None,
        "peak_mb": num(mt.peak_microbatches[0]),
        "peak_chunks": int(mt.peak_chunks[0]),
        "chunks": res.order.chunks_per_rank,
        "p2p_article": mt.p2p_article,
        "p2p_total": mt.p2p_per_microbatch,
        # unequal stages or comm: the bubble's parts (an order of one's own's too, if it ran)
        "parts": parts_values(res),
        "authors": authors_values(res),
        "source": th.source if th is not None else None,
    }


def own_values(res: Result, label: Msg | None = None) -> dict:
    """What the readout says of an order of one's own (no closed form); `label` says
    what it is instead, where it is not a pasted order (a puzzle's)."""
    deadlock = getattr(res, "deadlock", None)
    return {
        "P": res.config.P, "m": res.config.m, "V": res.config.V, "placement": res.schedule.placement,
        "deadlock": deadlock is not None, "label": label,
    }


def own_verdict(v: dict) -> Msg:
    if v.get("label") is not None:
        return v["label"]
    return Msg("own.shown", {"P": v["P"], "m": v["m"], "V": v["V"], "placement": v["placement"]})


def peak_text(v: dict, lang: str) -> str:
    if v["chunks"] > 1:
        return fill("ro.peak_mb_chunks", lang, mb=v["peak_mb"], chunks=v["peak_chunks"])
    return fill("ro.peak_mb", lang, mb=v["peak_mb"])


def readout_html(v: dict, lang: str = "en") -> str:
    if v["own"] is not None:
        return own_readout_html(v, lang)
    if v["agree"]:
        verdict = compose("verdict", cls="agree", text=fill("ro.agree", lang, html=True))
    else:
        why = v["why"] if v["why"] is not None else Msg("ro.no_caveat")
        verdict = compose("verdict", cls="differ", text=fill("ro.differ", lang, html=True, why=why))
    return compose(
        "readout",
        bubble=fill("ro.bubble", lang, html=True, sim=v["sim"], closed=v["closed"]),
        verdict=verdict + parts_html(v.get("parts"), lang),
        authors=authors_html(v["authors"], lang) + source_html(v["source"], lang),
        summary=summary_html(v, lang),
    )


def source_html(source: Msg | None, lang: str) -> str:
    """Whose order is shown, where it is not the one the schedule's summary names."""
    return "" if source is None else compose("source", text=source.html(lang))


def summary_html(v: dict, lang: str) -> str:
    summary = [fill("ro.makespan", lang, html=True, v=v["makespan"])]
    if v["steady"] is not None:
        summary.append(fill("ro.steady", lang, html=True, v=v["steady"]))
    summary.append(fill("ro.peak", lang, html=True, v=peak_text(v, lang)))
    summary.append(fill("ro.p2p", lang, html=True, article=v["p2p_article"], total=v["p2p_total"]))
    return LAYOUTS["sep"].join(summary)


def own_readout_html(v: dict, lang: str) -> str:
    """An order of one's own: its simulated numbers, what was read from it, no closed
    form; a deadlocked one says so (the notice names the stuck ops)."""
    own = v["own"]
    verdict = compose("verdict", cls="own", text=own_verdict(own).html(lang))
    if own["deadlock"]:
        return compose("readout", bubble=fill("own.deadlock", lang, html=True), verdict=verdict, authors="",
                       summary="")
    return compose("readout", bubble=fill("own.bubble", lang, html=True, sim=v["sim"]),
                   verdict=verdict + parts_html(v.get("parts"), lang), authors="", summary=summary_html(v, lang))


def bars_key_html(has_w: bool, lang: str = "en", balanced: bool = False) -> str:
    """What the in-flight bars show, under them (after balancing: resident, and a
    tick where the bar stood before)."""
    def item(color: str, key: str) -> str:
        return compose("swatch", color=color) + template(key, lang)

    if balanced:
        items = [item(KIND_COLORS[0], "key.resident"),
                 compose("swatch_outline", color=BEFORE_OUTLINE) + template("key.before", lang)]
    elif has_w:
        items = [item(KIND_COLORS[0], "key.awaiting_b"), item(W_ONLY_COLOR, "key.awaiting_w")]
    else:
        items = [item(KIND_COLORS[0], "key.in_flight")]
    items.append("&#9671; " + template("key.closed_form", lang))
    return compose("key", items=" &nbsp; ".join(items))


def table_config(cfg: Config, name: str) -> Config:
    """The row of `name` in the comparison table: the current P, m, V, costs, encoder
    and balancing (so the current row is what the chart shows), with the schedule's own
    V where it has one (Schedule.own_V)."""
    return Config(name, cfg.P, cfg.m, SCHEDULES[name].own_V(cfg.V), cfg.costs, encoder=cfg.encoder,
                  balance=cfg.balance)


def own_row(res: Result, memory: Callable[[Result], object] | None = None) -> dict:
    """The table's row for an order of one's own (first, and current); with `memory`,
    its peak GiB as every schedule's row has (its bytes come from its own timeline).
    A result drawn with another below it has the row of its own part (`yours`)."""
    res = getattr(res, "yours", None) or res
    row = {"name": res.config.schedule, "V": res.config.V, "current": True, "mem": None, "best": False}
    if getattr(res, "deadlock", None) is not None:
        return {**row, "error": Msg("own.deadlock_row")}
    mt = res.metrics
    return {
        **row, "error": None, "sim": pct(mt.bubble_fraction), "closed": "—",
        "steady": pct(mt.steady_bubble_fraction), "peak_mb": num(mt.peak_microbatches[0]),
        "peak_chunks": int(mt.peak_chunks[0]), "chunks": res.order.chunks_per_rank,
        "p2p_article": mt.p2p_article, "p2p_total": mt.p2p_per_microbatch, "makespan": mt.makespan,
        "mem": row_memory(memory(res)) if memory else None,
    }


def table_values(cfg: Config, run: Callable[[Config], Result], row_config: Callable[[str], Config] | None = None,
                 memory: Callable[[Result], object] | None = None, own: Result | None = None) -> list[dict]:
    """One row per schedule at cfg's P, m and V (its own V where fixed); with an order
    of one's own shown, its row first. `row_config(name)` gives a row's configuration
    (default `table_config`; the explorer's also carries that row's stage weights);
    with `memory(res)` (a `memory.Memory`, a Msg or None) each row also gets its peak
    GiB, whether it fits the HBM, and the fastest row that fits is marked."""
    rows = [own_row(own, memory)] if own is not None else []
    for name in NAMES:
        row = {"name": name, "V": table_config(cfg, name).V, "current": own is None and name == cfg.schedule,
               "mem": None, "best": False}
        try:
            row_cfg = row_config(name) if row_config else table_config(cfg, name)
            res = run(row_cfg)
        except ConfigError as e:
            rows.append({**row, "error": e.msg})
            continue
        mt = res.metrics
        rows.append({
            **row, "error": None, "sim": pct(mt.bubble_fraction), "closed": closed_form_text(res),
            "steady": pct(mt.steady_bubble_fraction), "peak_mb": num(mt.peak_microbatches[0]),
            "peak_chunks": int(mt.peak_chunks[0]), "chunks": res.order.chunks_per_rank,
            "p2p_article": mt.p2p_article, "p2p_total": mt.p2p_per_microbatch,
            "makespan": mt.makespan, "mem": row_memory(memory(res)) if memory else None,
        })
    mark_fastest_fit(rows)
    return rows


TABLE_HEAD = ("tbl.schedule", "tbl.bubble", "tbl.closed", "tbl.steady", "tbl.peak", "tbl.p2p_article", "tbl.p2p_total")
MEMORY_HEAD = "tbl.memory"  # the column the rows gain with a model


def table_html(rows: list[dict], lang: str = "en") -> str:
    out = []
    with_memory = any(row.get("mem") is not None for row in rows)
    head_keys = TABLE_HEAD + ((MEMORY_HEAD,) if with_memory else ())
    for row in rows:
        label = template(f"sched.{row['name']}.title", lang) + (f" (V={row['V']})" if row["V"] > 1 else "")
        cells = [compose("td", text=escape(label))]
        if row["error"] is not None:
            cells.append(compose("td_span", span=str(len(head_keys) - 1), text=row["error"].html(lang)))
        else:
            peak = peak_text(row, lang)
            for text in (row["sim"], row["closed"], row["steady"], peak, str(row["p2p_article"]), str(row["p2p_total"])):
                cells.append(compose("td", text=escape(text)))
            if with_memory:
                cells.append(compose("td", text=row_memory_text(row, lang)))
        classes = row_classes(row)
        attrs = compose("row_class", classes=" ".join(classes)) if classes else ""
        if row["current"]:
            attrs += compose("row_current")
        out.append(compose("row", current=attrs, name=row["name"], cells="".join(cells)))
    head = "".join(compose("th", text=template(k, lang)) for k in head_keys)
    return compose("table", head=head, rows="".join(out))


# -- the table's memory column (with a model) ------------------------------------------------


def row_memory(mem) -> dict | None:
    """A comparison-table row's memory: its tightest rank's peak and whether it fits."""
    if mem is None:
        return None
    if isinstance(mem, Msg):
        return {"error": mem, "peak": "", "fits": False}
    return {"error": None, "peak": f"{float(mem.peak.max()) / GIB:.2f}", "fits": mem.fits}


def mark_fastest_fit(rows: list[dict]) -> None:
    """Mark the row with the shortest makespan among those that fit (the first on a tie)."""
    fits = [row for row in rows if row.get("error") is None and row.get("mem") and row["mem"]["fits"]]
    if fits:
        min(fits, key=lambda row: row["makespan"])["best"] = True


def row_classes(row: dict) -> list[str]:
    classes = ["pv-current"] if row["current"] else []
    mem = row.get("mem")
    if row.get("error") is None and mem is not None and not mem["fits"]:
        classes.append("pv-nofit")
    if row.get("best"):
        classes.append("pv-best")
    return classes


def row_memory_text(row: dict, lang: str) -> str:
    """The table's memory cell (HTML): GiB, and in words whether it fits, so that the
    grey rows and the marked one read without colour."""
    mem = row["mem"]
    if mem is None:
        return ""
    if mem["error"] is not None:
        return mem["error"].html(lang)
    key = "tbl.best" if row["best"] else ("tbl.fits" if mem["fits"] else "tbl.nofit")
    return fill(key, lang, html=True, v=mem["peak"])


# -- the bubble's parts (unequal stages or comm) -------------------------------------------------


def parts_values(res: Result) -> dict | None:
    """The bubble's parts as percentages, where stages differ or comm > 0."""
    parts = res.bubble_parts
    if parts is None:
        return None
    pct = lambda x: f"{100 * x:.2f}%"  # noqa: E731
    return {"ideal": pct(parts.ideal), "imbalance": pct(parts.imbalance), "comm": pct(parts.comm),
            "total": pct(parts.total)}


def parts_html(v: dict | None, lang: str = "en") -> str:
    if v is None:
        return ""
    return compose("parts", text=fill("ro.parts", lang, html=True, **v))
