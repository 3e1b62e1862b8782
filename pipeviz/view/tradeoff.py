"""The trade-off view (issue 39): every schedule at each V it accepts (pipeviz/compare.py),
at the shown P, m, costs and model, as a point of time against memory.

  x  the tightest rank's peak memory: GiB with a model, else micro-batches in flight
  y  the makespan of one iteration (the bubble in the hover)

Filled points fit in the HBM, hollow ones do not (with a model; the HBM is a dashed
line); the Pareto front is outlined in black and joined by a line; the schedule shown
is ringed, and a tap on a point shows that schedule at that V (the explorers' own
change path). What refuses these sizes is absent and counted in the note under the
chart, with the caveat that the points compare equal devices, not equal stages.

Both explorers compute the points after the chart, one engine run per slice like
the comparison table (served/deferred.py, static/explorer.js); between slices the
points computed so far are drawn (`values` with a run that refuses what is not
computed yet, as PENDING) and the note says how many are still to come.

  values(state, cfg, run)            the comparison as plain values
  figure_view(values, current, lang) the figure's sources and properties (render/tradeoff.py)
  note_html(values, own, lang)       the note under it

static/tradeoff.js is the twin, held to this by tests/test_tradeoff_parity.py.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from ..compare import candidates, compare
from ..compare import row_config as compare_row
from ..config import Config
from ..engine import Result
from ..errors import ConfigError
from ..registry import NAMES, SCHEDULES
from ..stages import parse_weights
from ..text import fill, template
from .feature import Feature
from .memory_view import check_hbm, memory_key, model_of
from .palette import schedule_style

PENDING = "tradeoff.pending"  # a run not done yet: compare lists it as refused, the view counts it apart
HOLLOW = 0.12  # the fill of a point over the HBM
FRONT_LINE = "#000000"
# Between slices, the points so far are drawn at most this often (each draw repaints the
# figure; a draw per run took the page 4.8 s to follow m at (32, 128), benchmarks/tradeoff.py).
PARTIAL_MS = 250
# The points' columns (render/tradeoff.py's source), in this order.
POINT_COLUMNS = ("x", "y", "schedule", "V", "name", "label", "color", "marker", "fill_alpha", "line_color", "line_width",
                 "bubble", "mark")


def key(state: dict, cfg: Config) -> tuple:
    """What the points depend on: P, m, costs, the model and HBM, the stage weights."""
    return (cfg.P, cfg.m, cfg.costs, memory_key(state), state["stages"], state["weights"])


def values(state: dict, cfg: Config, run: Callable[[Config], Result]) -> dict:
    """The comparison at cfg's P, m and costs with the state's model, HBM and stage
    weights (their own rows' split with a model, unless "all equal" or typed)."""
    model = model_of(state)
    out = {"P": cfg.P, "m": cfg.m, "gib": model is not None, "hbm": None, "rows": [], "refused": [], "pending": 0,
           "problem": None}
    try:
        if model is not None:
            check_hbm(state)
            out["hbm"] = float(state["hbm"])
        weights = parse_weights(state["weights"]) if state["stages"] == "list" else None
        got = compare(cfg.P, cfg.m, cfg.costs, model, out["hbm"] or 80.0, weights, state["stages"] == "equal", run=run)
    except ConfigError as e:
        out["problem"] = e.msg
        return out
    out["rows"] = [r.as_dict() for r in got.rows]
    out["refused"] = [{"schedule": x.schedule, "V": x.V, "reason": x.reason} for x in got.refused
                      if x.reason.key != PENDING]
    out["pending"] = len(got.refused) - len(out["refused"])
    return out


def extra_runs(state: dict, cfg: Config, table: set[Config]) -> set[Config]:
    """The configurations the points run that the comparison table (`table`: its rows'
    configurations, view/state.row_config's) does not: every V of interleaved and
    Looped BFS but the table's, with a model each row's own split; the deferred
    refresh's slices beyond the table's."""
    from ..registry import check

    model = model_of(state)
    weights = parse_weights(state["weights"]) if state["stages"] == "list" else None
    out = set()
    for name, V in candidates():
        try:
            row = compare_row(name, V, cfg.P, cfg.m, cfg.costs, model, weights, state["stages"] == "equal")
            check(row).n_ops(row)
        except ConfigError:
            continue
        out.add(row)
    return out - table


def ready_only(done: Callable[[Config], Result | None]) -> Callable[[Config], Result]:
    """A run that gives what `done` holds and refuses the rest as PENDING."""
    def run(cfg: Config) -> Result:
        res = done(cfg)
        if res is None:
            raise ConfigError(PENDING)
        return res
    return run


def current_of(cfg: Config | None) -> tuple[str, int] | None:
    """(schedule, V) of the point the shown result is, or None (an order of one's own)."""
    return (cfg.schedule, cfg.V) if cfg is not None and cfg.schedule in SCHEDULES else None


def _label(name: str, V: int, lang: str) -> str:
    title = template(f"sched.{name}.title", lang)
    return title if SCHEDULES[name].fixed_V else f"{title} V={V}"


def _range(xs: list[float], low: float | None) -> dict:
    """A range around xs with 8% room (from `low` when given)."""
    if not xs:
        return {"start": 0.0, "end": 1.0}
    lo, hi = min(xs), max(xs)
    pad = (hi - lo) * 0.08 or abs(hi) * 0.05 or 1.0
    return {"start": low if low is not None else max(0.0, lo - pad), "end": hi + pad}


def figure_view(v: dict, current: tuple[str, int] | None, lang: str = "en") -> dict:
    """The figure's sources and properties, by name (render/tradeoff.py)."""
    t = lambda k: template(k, lang)  # noqa: E731
    rows = v["rows"]
    gib = v["gib"]
    xs = [r["peak_memory_gib"] if gib else r["peak_inflight_microbatches"] for r in rows]
    ys = [r["makespan"] for r in rows]
    pts = {k: [] for k in POINT_COLUMNS}
    for r, x, y in zip(rows, xs, ys):
        color, marker, _ = schedule_style(NAMES.index(r["schedule"]))
        marks = [t("tradeoff.fits") if r["fits"] else t("tradeoff.over")] if gib else []
        if r["pareto"]:
            marks.append(t("tradeoff.front"))
        for k, val in (("x", x), ("y", y), ("schedule", r["schedule"]), ("V", r["V"]),
                       ("name", t(f"sched.{r['schedule']}.title")), ("label", _label(r["schedule"], r["V"], lang)),
                       ("color", color), ("marker", marker), ("fill_alpha", HOLLOW if r["fits"] is False else 1.0),
                       ("line_color", FRONT_LINE if r["pareto"] else color),
                       ("line_width", 2.5 if r["pareto"] else (2.0 if r["fits"] is False else 1.0)),
                       ("bubble", r["bubble_fraction"]), ("mark", ", ".join(marks))):
            pts[k].append(val)
    front = sorted((x, y) for r, x, y in zip(rows, xs, ys) if r["pareto"])
    now = [(x, y) for r, x, y in zip(rows, xs, ys) if current is not None and (r["schedule"], r["V"]) == current]
    hbm = v["hbm"]
    memory = t("tradeoff.axis_gib" if gib else "tradeoff.axis_mb")
    unit = " GiB" if gib else ""
    props = {
        "tradeoff_title": {"text": t("tradeoff.title")},
        "tradeoff_xaxis": {"axis_label": memory},
        "tradeoff_yaxis": {"axis_label": t("tradeoff.axis_y")},
        "tradeoff_x_range": _range(xs + ([hbm] if hbm is not None else []), 0.0),
        "tradeoff_y_range": _range(ys, None),
        "tradeoff_hbm": {"visible": hbm is not None, "location": hbm if hbm is not None else 0.0},
        "tradeoff_hbm_label": {"visible": hbm is not None, "x": hbm if hbm is not None else 0.0,
                               "text": fill("tradeoff.hbm", lang, v=f"{hbm:g}") if hbm is not None else ""},
        "tradeoff_hover": {"tooltips": [[t("tradeoff.hover_schedule"), "@label"],
                                        [t("tradeoff.hover_makespan"), "@y{0.[000]}"],
                                        [t("tradeoff.hover_bubble"), "@bubble{0.00%}"],
                                        [t("tradeoff.hover_memory"), "@x{0.[00]}" + unit],
                                        [t("tradeoff.hover_mark"), "@mark"]]},
    }
    return {
        "sources": {
            "tradeoff_points": pts,
            "tradeoff_front": {"x": [p[0] for p in front], "y": [p[1] for p in front]},
            "tradeoff_now": {"x": [p[0] for p in now[:1]], "y": [p[1] for p in now[:1]]},
        },
        "props": props,
    }


def note_lines(v: dict, own: bool, lang: str = "en") -> list[str]:
    """The note's paragraphs, plain text: why there are no points, how many are still
    computing, what the marks mean, what was refused, the caveat."""
    if v["problem"] is not None:
        return [fill("tradeoff.problem", lang, why=v["problem"].text(lang)), template("tradeoff.caveat", lang)]
    lines = []
    if v["pending"]:
        lines.append(fill("tradeoff.computing", lang, done=len(v["rows"]), n=len(v["rows"]) + v["pending"]))
    lines.append(fill("tradeoff.key" if v["gib"] else "tradeoff.key_no_model", lang, P=v["P"], m=v["m"]))
    if own:
        lines.append(template("tradeoff.not_shown", lang))
    if v["refused"]:
        groups: dict[str, list] = {}
        for x in v["refused"]:
            groups.setdefault(x["schedule"], []).append(x)
        parts = [fill("tradeoff.refused_one", lang, name=template(f"sched.{name}.title", lang),
                      Vs=", ".join(str(x["V"]) for x in xs), why=xs[0]["reason"].text(lang))
                 for name, xs in groups.items()]
        lines += [fill("tradeoff.refused", lang, n=len(v["refused"])), *parts]
    lines.append(template("tradeoff.caveat", lang))
    return lines


def note_html(v: dict, own: bool, lang: str = "en") -> str:
    return "".join(f"<p>{escape(line)}</p>" for line in note_lines(v, own, lang))


def as_data() -> dict:
    return {"pending": PENDING, "hollow": HOLLOW, "frontLine": FRONT_LINE, "partialMs": PARTIAL_MS,
            "columns": list(POINT_COLUMNS)}


FEATURE = Feature(name="tradeoff", data=as_data)
