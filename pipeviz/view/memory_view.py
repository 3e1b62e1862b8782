"""The explorer's model config, stage weights and memory view (no bokeh, no panel).

Fields: a model menu (none, the presets of `pipeviz.memory`, custom) and its free
fields, the HBM per GPU, where stage weights come from (the model's layer split,
equal, or a typed list) and whether the over-time view counts chunks or GiB.

State rules: picking a preset sets its shape (L, h, a, vocab, untied); changing one
of those away from the preset makes the model "custom". The training-side fields
(s, b, t, activation mode, bytes per parameter, extras, HBM) keep the preset's name.

Config: the stage weights (from the model's layer split or a typed list), once the
model and the HBM are valid. With a model, `memory_of` gives a result's bytes per
rank, which view/memory_figure.py draws (the memory bars, and GiB over time) and the
readouts below describe.
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
from . import markup, memory_figure, readouts
from .feature import Feature
from .field import Field
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
        "layouts": LAYOUTS, "texts": {lang: memory_figure.texts(lang) for lang in text.LANGS},
    }


def _whole(name: str, default: int, step: int = 1) -> Field:
    low, high = LIMITS[name]
    return Field(name=name, kind="int", default=default, low=low, high=high, step=step)


FIELDS = (
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
HBM = next(f for f in FIELDS if f.name == "hbm")


# -- state ---------------------------------------------------------------------------


def rule(state: dict, changed: set, notes: list[Msg]) -> bool:
    """A preset sets its shape; a changed shape makes the model custom (in place)."""
    name = state["model"]
    if "model" in changed and name in PRESETS:
        state.update(PRESETS[name])
        return False
    shape_changed = changed & set(ARCH_FIELDS)
    if not shape_changed:
        return False
    if name in PRESETS and any(state[k] != PRESETS[name][k] for k in ARCH_FIELDS):
        state["model"] = "custom"
        notes.append(msg("rule.model_custom", name=name))
    elif name == "none":
        state["model"] = "custom"
    return False


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
    hbm, f = state["hbm"], HBM
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


def memory_of(res: Result, state: dict) -> Memory | Msg | None:
    """Bytes per rank for the state's model, the reason they cannot be had, or None.
    A result drawn with another below it has the bytes of its own part (`yours`)."""
    res = getattr(res, "yours", None) or res
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


LAYOUTS = {
    "memory": '<div class="pv-memory-readout">{head}<br>{tight}{over}</div>',
    "over": '<div class="pv-over" role="alert">{text}</div>',
    "hatch": '<span class="pv-swatch pv-hatch"></span>',
    "dash": '<span class="pv-dash"></span>',
}


def compose(layout: str, **parts: str) -> str:
    return markup.compose(LAYOUTS, layout, **parts)


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
    compose_readout = readouts.compose

    def item(color: str, key: str) -> str:
        return compose_readout("swatch", color=color) + template(key, lang)

    items = [item(PARAMS_COLOR, "key.params"), item(KIND_COLORS[0], "key.awaiting_b"),
             item(W_ONLY_COLOR, "key.awaiting_w"), LAYOUTS["dash"] + template("key.hbm", lang),
             LAYOUTS["hatch"] + template("key.over", lang)]
    return compose_readout("key", items=" &nbsp; ".join(items))


FEATURE = Feature(
    name="memory",
    fields=FIELDS,
    engine_fields=ENGINE_FIELDS,
    rule=rule,
    configure=with_weights,
    data=as_data,
)
