"""A real run in the explorers (docs/reading.md, "A real run"): a profiled step
(pipeviz.trace) drawn as a schedule is drawn, beside the model of the same order.

- `result_of(rep)`: the run as the figures take a result: an order of one's own
  (custom.OrderResult, no closed form) whose timeline is the measured one, so the
  existing figure view draws the real ops, the real idle hatched and in flight per rank.
- `figure_view(rep, ...)`: that figure view with each rank's band split in two rows:
  the real ops (and their idle, labels) in the upper row (`squeeze`), and the run's
  own sources: `run_model` the model's ops (the same order at the measured mean
  costs, comm 0) as dashed outlines in the lower row, and `run_comm` the rank's
  communication on a thin lane under both; the time axis spans the longer step.
  Two rows, not the model outlined over the real ops: over them the outlines cut
  every box in pieces and neither step could be read (screenshots at 390 and 1400
  px); one under the other, where the model ends and the real step runs on shows
  at once. The timeline gives a run more height a rank (RUN_ROW_PX).
- `readout_values` / `readout_html`: the measured bubble beside the model's, the
  step and its gap, the gap lines, the measured costs per kind and per stage, and
  the imbalance they imply.
- `whatif_values` / `whatif_html`: every schedule re-timed at the run's costs
  (pipeviz.trace.whatif), for the comparison table.
static/run_view.js is the page's twin; tests/test_run_parity.py holds it to this.
Nothing from a file reaches the markup unescaped.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, replace
from html import escape

import numpy as np

from ..config import Config
from ..costs import DEFAULT_COSTS
from ..custom import CUSTOM, ENTRIES, OrderResult
from ..errors import PipevizError, TraceError
from ..text import LANGS, Msg, fill, template
from ..trace import COMM_KINDS, Report, WhatIf, read_traces, report
from ..trace.report import MEASURED_KINDS, STAGE_KINDS, ms
from . import columns, markup
from .feature import Feature
from .palette import KIND_COLORS

SHOWN_GAPS = 5  # gap lines in the readout (the JSON export has them all)
SPLIT = 0.03  # the gap between the real row (above) and the model's (below), in rank units
COMM_TOP, COMM_BOTTOM = 0.42, 0.56  # the communication lane, in rank units below the band's centre
RUN_ROW_PX = 44  # the timeline's height a rank for a run (two rows and a lane)
# The lane's colours by what the action is: receive, send, bookkeeping (dark to light).
COMM_COLORS = ("#3b3b3b", "#8c8c8c", "#c8c8c8")
MODEL_LINE = "#000000"
PAGE_MAX_BYTES = 1 << 30  # the page reads up to 1 GiB of traces (streamed; larger: the CLI)
SERVED_MAX_BYTES = 12 << 20  # the served app: the files travel over Bokeh's websocket as base64 (4/3 larger),
# whose messages stop at 20 MB
LEAVE = ("schedule", "P", "m", "V", "custom", "puzzle")  # moving one of these goes back to the schedules

LAYOUTS = {
    "run": '<div class="pv-readout pv-run"><div class="pv-verdict">{head}</div><div class="pv-bubble">{bubble}</div>'
           '<div class="pv-run-step">{step}</div><div class="pv-run-key">{key}</div>{gaps}{costs}'
           '<div class="pv-run-imbalance">{imbalance}</div></div>',
    "run_gaps": '<div class="pv-run-gaps"><div>{title}</div><ol>{items}</ol></div>',
    "run_gaps_none": '<div class="pv-run-gaps">{title}</div>',
    "run_li": "<li>{text}</li>",
    # Each stage's costs one tap away: on a phone the readout would push the timeline off the first screen.
    "run_costs": '<details class="pv-run-costs"><summary>{title}: {kinds}</summary>{stages}</details>',
    "run_table": '<div class="pv-table-box"><table class="pv-table pv-run-table"><thead><tr>{head}</tr></thead>'
                 "<tbody>{rows}</tbody></table></div>",
    "run_tr": '<tr{attrs}>{cells}</tr>',
    "run_th": "<th>{text}</th>",
    "run_td": "<td>{text}</td>",
    "run_td_span": '<td colspan="{span}">{text}</td>',
    "run_ran": ' class="pv-current" aria-current="true"',
    "run_whatif": '<div class="pv-run-whatif"><p>{title}</p>{table}</div>',
    "run_prompt": '<p class="pv-run-whatif">{text}</p>',
}


def compose(layout: str, **parts: str) -> str:
    return markup.compose(LAYOUTS, layout, **parts)


def pct(x: float) -> str:
    return f"{100 * x:.2f}%"


@dataclass(frozen=True, eq=False)
class Shown:
    """A run as an explorer holds it: its report, its result, and its what-if rows once asked for."""

    report: Report
    result: RunResult
    what: WhatIf | None = None


@dataclass(frozen=True, eq=False)
class RunResult(OrderResult):
    """A profiled step as the figures take a result: its timeline is the measured one."""

    report: Report | None = None


def result_of(rep: Report) -> RunResult:
    run = rep.run
    cfg = Config(CUSTOM, run.P, run.m, run.V, DEFAULT_COSTS)
    return RunResult(cfg, ENTRIES[run.placement], run.order, run.timeline, run.metrics, None,
                     placement=run.placement, report=rep)


def window(rep: Report) -> tuple[float, float]:
    """The time axis before any zoom: the longer of the measured step and the model's."""
    span = max(rep.run.metrics.makespan, rep.simulated_metrics.makespan) or 1.0
    return -0.01 * span, 1.01 * span


def squeeze(y: np.ndarray) -> np.ndarray:
    """A height in a rank's band [r - ROW, r + ROW] moved to its upper row [r - ROW, r - SPLIT]."""
    y = np.asarray(y, dtype=np.float64)
    r = np.rint(y)
    return r - columns.ROW + (y - (r - columns.ROW)) * ((columns.ROW - SPLIT) / (2 * columns.ROW))


def upper(sources: dict) -> None:
    """The real step's boxes, labels and idle in the upper row of each band (in place)."""
    for name in ("ops", "fb_halves", "bubbles"):
        if name in sources:
            src = sources[name]
            sources[name] = {**src, "top": squeeze(src["top"]), "bottom": squeeze(src["bottom"])}
    if "labels" in sources:
        sources["labels"] = {**sources["labels"], "y": squeeze(sources["labels"]["y"])}


def model_columns(rep: Report) -> dict[str, np.ndarray]:
    """The model's ops, outlined in the lower row of each band."""
    r = rep.run.order.rank.astype(np.float64)
    return {"left": rep.simulated.start.astype(np.float64), "right": rep.simulated.end.astype(np.float64),
            "top": r + SPLIT, "bottom": r + columns.ROW}


def comm_hover(lang: str) -> dict:
    """The communication lane's hover: the action, and when (the ops' time row)."""
    return {"tooltips": [[template("hover.comm", lang), "@token"], columns.texts(lang)["ops_hover"]["tooltips"][3]]}


def run_height(P: int) -> int:
    return max(columns.TIMELINE_MIN_PX, min(columns.TIMELINE_MAX_PX, columns.TIMELINE_BASE_PX + RUN_ROW_PX * P))


def comm_cause(kind: int) -> int:
    """0 receive, 1 send, 2 bookkeeping (the lane's colour)."""
    name = COMM_KINDS[kind]
    return 0 if name.startswith("RECV") else 1 if name.startswith("SEND") else 2


def comm_columns(rep: Report) -> dict:
    c = rep.run.comm
    r = c.rank.astype(np.float64)
    return {"left": c.start.astype(np.float64), "right": c.end.astype(np.float64), "top": r + COMM_TOP,
            "bottom": r + COMM_BOTTOM, "color": np.array([comm_cause(int(k)) for k in c.kind.tolist()], dtype=np.float64),
            "token": [c.token(i) for i in range(c.n)]}


def empty_sources() -> dict:
    """The run's sources while no run is shown."""
    e = np.zeros(0)
    return {"run_model": {"left": e, "right": e, "top": e, "bottom": e},
            "run_comm": {"left": e, "right": e, "top": e, "bottom": e, "color": e, "token": []}}


def figure_view(rep: Report, res: RunResult, unit: str = "micro-batches", lang: str = "en",
                plot_px: float = 816.0) -> dict:
    """The figure view of a schedule for the run (`res` = result_of(rep)), its own
    sources, and the time axis over both steps."""
    view = columns.figure_view(res, unit, lang, plot_px)
    upper(view["sources"])
    height = run_height(rep.run.P)
    view["props"]["timeline"] = {"height": height}
    view["props"]["inflight"] = {"height": height}
    view["sources"].update({"run_model": model_columns(rep), "run_comm": comm_columns(rep)})
    x0, x1 = window(rep)
    view["props"]["x_range"] = {"start": x0, "end": x1, "reset_start": x0, "reset_end": x1}
    view["props"]["comm_hover"] = comm_hover(lang)
    return view


# -- the readout -------------------------------------------------------------------------------


def readout_values(rep: Report) -> dict:
    run, costs = rep.run, rep.costs
    mt, sim = run.metrics, rep.simulated_metrics
    stages = []
    for s in range(run.order.S):
        stages.append({
            "stage": s, "rank": int(costs.stage_rank[s]),
            "means": [ms(float(costs.stage_mean[s, j])) if costs.stage_count[s, j] else "" for j in range(4)],
            "work": ms(float(costs.stage_work[s])), "weight": f"{float(costs.stage_weight[s]):.2f}",
        })
    return {
        "P": run.P, "m": run.m, "V": run.V, "placement": run.placement, "n": len(run.files),
        "measured": pct(mt.bubble_fraction), "model": pct(sim.bubble_fraction),
        "makespan": ms(mt.makespan), "model_makespan": ms(sim.makespan), "gap": ms(rep.gap),
        "gaps": [g.msg for g in rep.gaps[:SHOWN_GAPS]], "more": max(len(rep.gaps) - SHOWN_GAPS, 0),
        "n_gaps": len(rep.gaps),
        "kinds": [[k, ms(costs.mean[k]), costs.count[k]] for k in MEASURED_KINDS if k in costs.mean],
        "stage_kinds": [k for j, k in enumerate(STAGE_KINDS) if costs.stage_count[:, j].any()],
        "stage_cols": [j for j in range(4) if costs.stage_count[:, j].any()],
        "stages": stages, "imbalance": rep.imbalance.msg,
    }


def cells_html(texts: list[str], layout: str) -> str:
    return "".join(compose(layout, text=escape(t)) for t in texts)


def readout_html(v: dict, lang: str = "en") -> str:
    head = fill("run.shown", lang, P=v["P"], m=v["m"], V=v["V"], placement=Msg(f"run.placement_{v['placement']}"),
                n=v["n"])
    bubble = fill("run.bubble", lang, html=True, measured=v["measured"], model=v["model"])
    step = fill("run.step", lang, measured=v["makespan"], model=v["model_makespan"], gap=v["gap"])
    if v["gaps"]:
        items = [compose("run_li", text=m.html(lang)) for m in v["gaps"]]
        if v["more"]:
            items.append(compose("run_li", text=escape(fill("run.gaps_more", lang, n=v["more"]))))
        gaps = compose("run_gaps", title=escape(fill("run.gaps", lang, n=v["n_gaps"])), items="".join(items))
    else:
        gaps = compose("run_gaps_none", title=escape(template("run.gaps_none", lang)))
    kinds = " · ".join(escape(fill("run.kind_cost", lang, kind=k, ms=x, n=n)) for k, x, n in v["kinds"])
    head_cells = [template("run.stage", lang), template("axis.rank", lang), *v["stage_kinds"],
                  template("run.work", lang), template("run.weight", lang)]
    rows = []
    for st in v["stages"]:
        cells = [str(st["stage"]), str(st["rank"]), *(st["means"][j] for j in v["stage_cols"]), st["work"], st["weight"]]
        rows.append(compose("run_tr", attrs="", cells=cells_html(cells, "run_td")))
    table = compose("run_table", head=cells_html(head_cells, "run_th"), rows="".join(rows))
    costs = compose("run_costs", title=escape(template("run.costs", lang)), kinds=kinds, stages=table)
    return compose("run", head=escape(head), bubble=bubble, step=escape(step), key=escape(template("run.key", lang)),
                   gaps=gaps, costs=costs, imbalance=v["imbalance"].html(lang))


# -- what if --------------------------------------------------------------------------------------


def whatif_values(rep: Report, what: WhatIf) -> dict:
    run = rep.run
    rows = []
    for row in what.rows:
        out = {"name": row.schedule, "V": row.V, "error": row.error, "same": row.same_order}
        if row.error is None:
            out.update(makespan=ms(row.makespan), bubble=pct(row.bubble_fraction),
                       peak=f"{row.peak_inflight_microbatches:g}", vs=("+" if row.vs_measured > 0 else "")
                       + ms(row.vs_measured))
        rows.append(out)
    c = what.costs
    return {"P": run.P, "m": run.m, "error": what.error,
            "tf": ms(c.tf) if c else "", "tb": ms(c.tb) if c else "", "tw": ms(c.tw) if c else "",
            "split_even": what.split_even, "rows": rows}


WHATIF_HEAD = ("run.th_schedule", "run.th_makespan", "run.th_bubble", "run.th_peak", "run.th_vs")


def whatif_html(v: dict | None, lang: str = "en") -> str:
    """The comparison table's place while a run is shown: the prompt before the click."""
    if v is None:
        return compose("run_prompt", text=escape(template("run.whatif_prompt", lang)))
    if v["error"] is not None:
        return compose("run_prompt", text=v["error"].html(lang))
    rows = []
    for row in v["rows"]:
        label = template(f"sched.{row['name']}.title", lang) + (f" (V={row['V']})" if row["V"] > 1 else "")
        if row["same"]:
            label = fill("run.ran", lang, text=label)
        cells = cells_html([label], "run_td")
        if row["error"] is not None:
            cells += compose("run_td_span", span=str(len(WHATIF_HEAD) - 1), text=row["error"].html(lang))
        else:
            cells += cells_html([row[k] for k in ("makespan", "bubble", "peak", "vs")], "run_td")
        rows.append(compose("run_tr", attrs=compose("run_ran") if row["same"] else "", cells=cells))
    head = cells_html([template(k, lang) for k in WHATIF_HEAD], "run_th")
    title = fill("run.whatif_title", lang, P=v["P"], m=v["m"], tf=v["tf"], tb=v["tb"], tw=v["tw"])
    if v["split_even"]:
        title += " " + template("trace.split_even", lang)
    return compose("run_whatif", title=escape(title), table=compose("run_table", head=head, rows="".join(rows)))


def too_large(size: int, limit: int, where: str) -> Msg:
    return Msg("run.too_large", {"size": mb_text(size), "max": mb_text(limit), "where": Msg(f"run.where_{where}")})


TOO_LARGE = "pipeviz/too-large;"  # an upload's type when the browser refused to read it (static/compat.js "uploads")


def read_uploads(files: list[tuple[str, bytes, str]], limit: int = SERVED_MAX_BYTES) -> Report:
    """The run in files uploaded to the served app, as (name, bytes, type): read in this
    process from a private temporary folder, each message naming the file by its name.
    A TraceError says what is wrong (none chosen, too large, or the reading's own)."""
    if not files:
        raise TraceError("run.none_chosen")
    size = sum(int(kind[len(TOO_LARGE):]) if kind.startswith(TOO_LARGE) and kind[len(TOO_LARGE):].isdigit()
               else len(data) for _, data, kind in files)
    if size > limit or any(kind.startswith(TOO_LARGE) for _, _, kind in files):
        e = too_large(size, limit, "served")
        raise TraceError(e.key, **e.args)
    with tempfile.TemporaryDirectory(prefix="pipeviz-run-") as folder:
        names, paths = {}, []
        for i, (name, data, _) in enumerate(files):
            base = os.path.basename(str(name).replace("\\", "/")) or f"file{i}"
            os.mkdir(os.path.join(folder, str(i)))
            path = os.path.join(folder, str(i), base)
            with open(path, "wb") as f:
                f.write(data)
            names[path] = base
            paths.append(path)
        try:
            return report(_renamed(read_traces(paths), names))
        except PipevizError as e:  # a TraceError, or a step too large to time (ConfigError): one line
            raise TraceError(e.msg.key, **{k: names.get(v, v) if isinstance(v, str) else v
                                           for k, v in e.msg.args.items()}) from None


def _renamed(run, names: dict):
    """The run with its files named as uploaded, not by the temporary folder's paths."""
    return replace(run, files=tuple(names.get(f, f) for f in run.files))


def mb_text(n: int) -> str:
    return f"{n / (1 << 20):.1f} MB"


def as_data() -> dict:
    """What static/run_view.js reads."""
    return {"shownGaps": SHOWN_GAPS, "split": SPLIT, "runRowPx": RUN_ROW_PX, "commTop": COMM_TOP,
            "commBottom": COMM_BOTTOM, "commColors": list(COMM_COLORS),
            "pageMaxBytes": PAGE_MAX_BYTES, "servedMaxBytes": SERVED_MAX_BYTES, "whatifHead": list(WHATIF_HEAD),
            "leave": list(LEAVE), "measuredKinds": list(MEASURED_KINDS), "stageKinds": list(STAGE_KINDS),
            "kindColors": list(KIND_COLORS), "commHover": {lang: comm_hover(lang) for lang in LANGS},
            "wherePage": "run.where_page"}


# No fields: a run is files, not a URL. The explorers hold it beside the state.
FEATURE = Feature(name="run", layouts=LAYOUTS, data=as_data)
