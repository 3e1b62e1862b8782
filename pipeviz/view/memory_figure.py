"""The memory figure: bytes per rank, drawn from a `memory.Memory` (the model and
memory feature, view/memory_view.py, says which one a state has). Without a model its
sources are empty and the figure hidden.

The bars show GiB per rank: parameters, activations awaiting B, awaiting W only; the
HBM line; ranks over it hatched, outlined and labelled with the excess. With the
over-time view in GiB, the lines over time show bytes held instead of chunks.
Its twin is the figures part of static/memory_view.js (figureParts).
"""

from __future__ import annotations

import numpy as np

from ..engine import Result
from ..memory import GIB, Memory
from ..text import fill, template
from .palette import line_style


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
    """(sources, props) a model adds to `columns.figure_view` (`mem` None: none)."""
    P = res.config.P
    sources = {"memory_bars": bars(mem, P), "memory_over": over_bars(mem, lang)}
    if mem is not None and over_time == "GiB":
        sources["steps"] = steps_gib(mem, P)
        # after balancing, the bytes before it (dashed, as the counts are)
        before = steps_gib(mem.before, P) if mem.before is not None else {"xs": [], "ys": [], "rank": np.zeros(0)}
        sources["steps_before"] = {k: before[k] for k in ("xs", "ys", "rank")}
    return sources, props(mem, over_time, lang, height, P)
