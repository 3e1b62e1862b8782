"""The explorer's model config, stage weights and memory view (no bokeh, no panel).

Fields: a model menu (none, the presets of `pipeviz.memory`, custom) and its free
fields, the HBM per GPU, where stage weights come from (the model's layer split,
equal, or a typed list) and whether the over-time view counts chunks or GiB.

State rules: picking a preset sets its shape (L, h, a, vocab, untied); changing one
of those away from the preset makes the model "custom". The training-side fields
(s, b, t, activation mode, bytes per parameter, extras, HBM) keep the preset's name.

With a model, each figure view gains the memory bars (GiB per rank: parameters,
activations awaiting B, awaiting W only; the HBM line; ranks over it hatched, outlined
and labelled with the excess), and the over-time view can show GiB.
"""

from __future__ import annotations

import math

import numpy as np

from ..config import Config
from ..engine import Result
from ..errors import ConfigError
from ..memory import (
    ACT_MODES,
    ARCH_FIELDS,
    EXTRA_MAX,
    GIB,
    LIMITS,
    PRESETS,
    Memory,
    Model,
    balance_memory,
    measure_memory,
)
from ..memory import stage_weights as model_weights
from ..registry import SCHEDULES
from ..stages import parse_weights
from ..text import Msg, fill, msg, template
from .fields import FIELDS, Field, register
from .palette import KIND_COLORS, PARAMS_COLOR, W_ONLY_COLOR

MODELS = ("none", *PRESETS, "custom")
STAGE_SOURCES = ("model", "equal", "list")
OVER_TIME_UNITS = ("count", "GiB")
# Fields a model config reads, and which of them (with the stage weights) enter the
# engine's Config: the rest only change bytes.
MODEL_FIELDS = ("model", "L", "h", "a", "vocab", "untied", "s", "b", "t", "act", "bpp", "embed", "head")
MEMORY_FIELDS = (*MODEL_FIELDS, "hbm")
# Every model field enters the configuration's check (an emptied one is a warning, as
# an emptied cost is); the rest of the engine's key is the stage weights.
ENGINE_FIELDS = (*MEMORY_FIELDS, "stages", "weights")
_GPT = PRESETS["gpt3-6.7b"]


def as_data() -> dict:
    """What the page's memory_view.js reads instead of repeating it."""
    from .. import text

    return {
        "models": list(MODELS), "modelFields": list(MODEL_FIELDS), "memoryFields": list(MEMORY_FIELDS),
        "layouts": LAYOUTS, "texts": {lang: texts(lang) for lang in text.LANGS},
    }


def _whole(name: str, default: int, step: int = 1) -> Field:
    low, high = LIMITS[name]
    return Field(name=name, kind="int", default=default, low=low, high=high, step=step)


register(
    Field(name="model", kind="choice", default="none", choices=MODELS),
    _whole("L", _GPT["L"]),
    _whole("h", _GPT["h"], 128),
    _whole("a", _GPT["a"]),
    _whole("vocab", _GPT["vocab"], 1000),
    Field(name="untied", kind="bool", default=_GPT["untied"]),
    _whole("s", 2048, 512),
    _whole("b", 1),
    _whole("t", 1),
    Field(name="act", kind="choice", default="none", choices=ACT_MODES),
    Field(name="bpp", kind="choice", default="16", choices=("16", "18")),
    Field(name="embed", kind="float", default=0.0, low=0, high=EXTRA_MAX, step=0.5),
    Field(name="head", kind="float", default=0.0, low=0, high=EXTRA_MAX, step=0.5),
    Field(name="hbm", kind="float", default=80.0, low=1, high=4096, step=8),
    Field(name="stages", kind="choice", default="model", choices=STAGE_SOURCES),
    Field(name="weights", kind="text", default="", max_len=400),
    Field(name="over_time_unit", kind="choice", default="count", choices=OVER_TIME_UNITS),
)


# -- state ---------------------------------------------------------------------------


def normalize(state: dict, changed: set, notes: list[Msg]) -> None:
    """A preset sets its shape; a changed shape makes the model custom (in place)."""
    name = state["model"]
    if "model" in changed and name in PRESETS:
        state.update(PRESETS[name])
        return
    shape_changed = changed & set(ARCH_FIELDS)
    if not shape_changed:
        return
    if name in PRESETS and any(state[k] != PRESETS[name][k] for k in ARCH_FIELDS):
        state["model"] = "custom"
        notes.append(msg("rule.model_custom", name=name))
    elif name == "none":
        state["model"] = "custom"


def model_of(state: dict) -> Model | None:
    """The model config the state describes, or None (model "none")."""
    name = state["model"]
    if name == "none":
        return None
    return Model(
        L=state["L"], h=state["h"], a=state["a"], vocab=state["vocab"], untied=bool(state["untied"]),
        s=state["s"], b=state["b"], t=state["t"], act=state["act"], bytes_per_param=int(state["bpp"]),
        embed=state["embed"], head=state["head"], name=name,
    )


def stages_of(state: dict) -> int:
    spec = SCHEDULES[state["schedule"]]
    return spec.chunks_per_rank(state["V"]) * state["P"]


def weights_of(state: dict) -> tuple[float, ...] | None:
    """The stage weights the state asks for (ConfigError if they cannot be had)."""
    source = state["stages"]
    if source == "list":
        return parse_weights(state["weights"])
    if source == "model":
        model = model_of(state)
        if model is not None:
            w = model_weights(model, stages_of(state))
            return None if all(x == 1.0 for x in w) else w
    return None


def check_hbm(state: dict) -> None:
    hbm, f = state["hbm"], FIELDS["hbm"]
    number = isinstance(hbm, (int, float)) and not isinstance(hbm, bool) and math.isfinite(hbm)
    if not (number and f.low <= hbm <= f.high):  # an emptied input on the page
        raise ConfigError("mem.hbm", value=float(hbm) if number else str(hbm), valid=f.range_text)


def with_weights(cfg: Config, state: dict) -> Config:
    """`cfg` with the state's stage weights, once the state's model (if any) and HBM
    are valid (ConfigError otherwise)."""
    if model_of(state) is not None:
        check_hbm(state)
    w = weights_of(state)
    return cfg if w is None else cfg.replace(stage_weights=w)


def row_config(state: dict, name: str) -> Config:
    """The comparison table's row for schedule `name`: the state's P, m, V (the
    schedule's own where fixed), costs, balancing, and stage weights for that row's
    stages. Like `readouts.table_config`, no encoder: the rows compare schedules (the
    closing section compares the encoder's placements)."""
    fixed = SCHEDULES[name].fixed_V
    from .state import NO_ENCODER, config  # state imports this module

    return config({**state, "schedule": name, "V": fixed or state["V"], "encoder": NO_ENCODER})


def memory_of(res: Result, state: dict) -> Memory | Msg | None:
    """Bytes per rank for the state's model, the reason they cannot be had, or None."""
    try:
        model = model_of(state)
        if model is None:
            return None
        check_hbm(state)
        mem = measure_memory(res.timeline, model, state["hbm"])
        balance = getattr(res, "balance", None)  # BPipe: the front ranks' newest chunks held by their partners
        return mem if balance is None else balance_memory(mem, res.timeline, balance.pairs)
    except ConfigError as e:
        return e.msg


def memory_key(state: dict) -> tuple:
    """What the memory of a given result depends on, beside the result."""
    return tuple(state[k] for k in MEMORY_FIELDS)


# -- figure view ---------------------------------------------------------------------


def gib(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64) / GIB


def bars(mem: Memory | None, P: int) -> dict:
    """Memory bars per rank, in GiB: parameters from 0, then activations awaiting B,
    then awaiting W only, up to the peak."""
    if mem is None:
        z = np.zeros(0)
        return {"rank": z, "zero": z, "params": z, "act_b": z, "total": z}
    params = gib(mem.params)
    return {
        "rank": np.arange(P, dtype=np.float64),
        "zero": np.zeros(P),
        "params": params,
        "act_b": params + gib(mem.peak_b),
        "total": gib(mem.peak),
    }


def over_bars(mem: Memory | None, lang: str) -> dict:
    """The part of each bar above the HBM line (ranks that fit have none), hatched
    and labelled '+3.25 GiB over' so that it reads without colour."""
    if mem is None:
        return {"rank": np.zeros(0), "left": np.zeros(0), "right": np.zeros(0), "text": []}
    over = np.flatnonzero(mem.peak > mem.hbm)
    return {
        "rank": over.astype(np.float64),
        "left": np.full(over.size, mem.hbm_gib),
        "right": gib(mem.peak[over]),
        "text": [fill("mem.over_label", lang, v=f"{float(mem.over[r]) / GIB:.2f}") for r in over.tolist()],
    }


def steps_gib(mem: Memory, P: int) -> dict:
    """Bytes held over time per rank (parameters included), in GiB, as step paths
    like `columns.inflight_steps` (float32 values, as there)."""
    steps = mem.activations
    bounds = np.searchsorted(steps.rank, np.arange(1, P))
    xs, ys = [], []
    for r, (t, v) in enumerate(zip(np.split(steps.time, bounds), np.split(steps.value, bounds))):
        base = float(mem.params[r])
        t = np.concatenate([[0.0], t])
        v = (np.concatenate([[0.0], v]) + base) / GIB
        xs.append(np.repeat(t, 2)[1:])
        ys.append(np.repeat(v, 2)[:-1].astype(np.float32))
    from .glance import line_style  # glance reads the state rules, which read this module

    return {"xs": xs, "ys": ys, "rank": np.arange(P, dtype=np.float64), **line_style(P)}


def texts(lang: str) -> dict:
    """The memory figure's fixed words in `lang` (the page gets them as data)."""
    t = lambda key: template(key, lang)  # noqa: E731
    return {
        "memory_rank_axis": {"axis_label": t("axis.rank")},
        "memory_title": {"text": t("title.memory")},
        "memory_xaxis": {"axis_label": t("axis.gib")},
        "memory_hover": {"tooltips": [[t("axis.rank"), "@rank"], [t("key.params"), "@params{0.[00]} GiB"],
                                      [t("hover.total"), "@total{0.[00]} GiB"]]},
    }


def props(mem: Memory | None, over_time: str, lang: str, height: int, P: int) -> dict:
    t = lambda key: template(key, lang)  # noqa: E731
    shown = mem is not None
    out = {
        "memory": {"visible": shown, "height": height},
        "memory_rank_ticker": {"ticks": list(range(P))},
        "over_time_hbm": {"visible": shown and over_time == "GiB"},
        **texts(lang),
    }
    if shown:
        top = max(float(gib(mem.peak).max()), mem.hbm_gib)
        out["memory_x_range"] = {"start": 0, "end": top * 1.3}
        out["hbm_line"] = {"location": mem.hbm_gib}
        out["hbm_label"] = {"x": mem.hbm_gib, "text": fill("mem.hbm_label", lang, v=f"{mem.hbm_gib:g}")}
        out["over_time_hbm"]["location"] = mem.hbm_gib
        if over_time == "GiB":
            out["over_time_y_range"] = {"start": 0, "end": top * 1.08}
            out["over_time_yaxis"] = {"axis_label": t("axis.gib_held")}
            out["over_time_title"] = {"text": t("title.over_time_gib")}
    return out


def figure_parts(res: Result, mem: Memory | None, over_time: str, lang: str, height: int) -> tuple[dict, dict]:
    """(sources, props) this module adds to `columns.figure_view`."""
    P = res.config.P
    sources = {"memory_bars": bars(mem, P), "memory_over": over_bars(mem, lang)}
    if mem is not None and over_time == "GiB":
        sources["steps"] = steps_gib(mem, P)
        # after balancing, the bytes before it (dashed, as the counts are)
        before = steps_gib(mem.before, P) if mem.before is not None else {"xs": [], "ys": [], "rank": np.zeros(0)}
        sources["steps_before"] = {k: before[k] for k in ("xs", "ys", "rank")}
    return sources, props(mem, over_time, lang, height, P)


# -- readouts ------------------------------------------------------------------------


def memory_values(mem: Memory | Msg | None) -> dict | None:
    """The memory readout's numbers as text (None without a model)."""
    if mem is None:
        return None
    if isinstance(mem, Msg):
        return {"error": mem}
    r = mem.tightest
    model = mem.model
    over = [(int(k), f"{float(mem.over[k]) / GIB:.2f}") for k in np.flatnonzero(mem.over > 0).tolist()]
    return {
        "error": None,
        "model": model.name,
        "act": model.act,
        "t": model.t,
        "per_layer": f"{model.act_bytes / 2**20:.6g}",
        "hbm": f"{mem.hbm_gib:g}",
        "rank": r,
        "peak": f"{float(mem.peak[r]) / GIB:.2f}",
        "params": f"{float(mem.params[r]) / GIB:.2f}",
        "acts": f"{float(mem.peak_b[r] + mem.peak_w[r]) / GIB:.2f}",
        "over": over,
    }


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


LAYOUTS = {
    "memory": '<div class="pv-memory-readout">{head}<br>{tight}{over}</div>',
    "over": '<div class="pv-over" role="alert">{text}</div>',
    "parts": '<div class="pv-parts">{text}</div>',
    "hatch": '<span class="pv-swatch pv-hatch"></span>',
    "dash": '<span class="pv-dash"></span>',
}


def compose(layout: str, **parts: str) -> str:
    """Put HTML parts into one of LAYOUTS, in the order given (readouts.compose)."""
    out = LAYOUTS[layout]
    for k, v in parts.items():
        out = out.replace("{" + k + "}", v)
    return out


def memory_html(v: dict | None, lang: str = "en") -> str:
    if v is None:
        return ""
    if v["error"] is not None:
        return compose("memory", head=fill("mem.cannot", lang, html=True, why=v["error"]), tight="", over="")
    head = fill("mem.head", lang, html=True, model=v["model"], act=template(f"choice.act.{v['act']}", lang),
                t=v["t"], per_layer=v["per_layer"])
    key = "mem.tight_over" if v["over"] else "mem.tight"
    tight = fill(key, lang, html=True, rank=v["rank"], peak=v["peak"], hbm=v["hbm"], params=v["params"],
                 acts=v["acts"])
    over = ""
    if v["over"]:
        ranks = ", ".join(fill("mem.over_rank", lang, rank=r, v=x) for r, x in v["over"])
        over = compose("over", text=fill("mem.over", lang, html=True, n=len(v["over"]), ranks=ranks, hbm=v["hbm"]))
    return compose("memory", head=head, tight=tight, over=over)


def memory_key_html(lang: str = "en") -> str:
    """What the memory bars show, under them: colours with words, the line, the hatch."""
    from .readouts import compose as compose_readout  # readouts imports this module

    def item(color: str, key: str) -> str:
        return compose_readout("swatch", color=color) + template(key, lang)

    items = [item(PARAMS_COLOR, "key.params"), item(KIND_COLORS[0], "key.awaiting_b"),
             item(W_ONLY_COLOR, "key.awaiting_w"), LAYOUTS["dash"] + template("key.hbm", lang),
             LAYOUTS["hatch"] + template("key.over", lang)]
    return compose_readout("key", items=" &nbsp; ".join(items))


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
