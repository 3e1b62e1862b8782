"""The sweep: the article's two roads to a smaller bubble, more micro-batches or more
chunks per rank.

`sweep_values(cfg)`: at cfg's P, V and costs, each schedule's closed-form bubble at
m from 1 to 128 (a line through about 40 m's; None where the schedule refuses that m) and its simulated bubble at
log-spaced m; and interleaved 1F1B's bubble against V at cfg's P and m, closed form
and simulation. It does not depend on cfg.m (the interleaved row aside), so a change
of m only moves the marker. `figure_view(values, cfg, lang)` gives the sweep
figures' sources and properties (render/sweep.py). static/sweep.js is the twin.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..config import Config
from ..errors import ConfigError
from ..registry import NAMES, check
from ..simulate import simulate
from ..text import template
from .readouts import table_config
from .schedule_view import BY_NAME

M_MAX = int(BY_NAME["m"].high)
M_POINTS = tuple(m for m in (1, 2, 4, 8, 16, 32, 64, 128) if m <= M_MAX)  # simulated
# The closed form's line: every m up to 16, then steps of about 10% (a smooth line on
# a log axis for a fraction of the cost of every m), the simulated m's included.
M_LINE = tuple(sorted({*range(1, min(16, M_MAX) + 1), *M_POINTS,
                       *(m for m in (round(16 * 1.1**k) for k in range(40)) if m <= M_MAX), M_MAX}))
V_MAX = int(BY_NAME["V"].high)
V_SCHEDULE = "interleaved"  # the schedule whose V is free


def _closed(cfg: Config) -> float | None:
    try:
        return float(check(cfg).closed_form(cfg).bubble)
    except ConfigError:
        return None


def _simulated(cfg: Config) -> float | None:
    """The simulated one-iteration bubble, as metrics.measure computes it (only that)."""
    try:
        spec = check(cfg)
    except ConfigError:
        return None
    tl = simulate(spec.generate(cfg), cfg.costs)
    P = tl.order.P
    work = np.bincount(tl.order.rank, weights=tl.duration, minlength=P).sum()
    makespan = tl.makespan
    bubble = 1.0 - work / (P * makespan) if makespan > 0 else 0.0
    return 0.0 if abs(bubble) < 1e-12 else float(bubble)


def m_rows(cfg: Config) -> list[dict]:
    """Each schedule against m, at cfg's P, V and costs (not its m)."""
    rows = []
    for name in NAMES:
        base = table_config(cfg, name)
        at = lambda m, name=name, base=base: Config(name, base.P, m, base.V, base.costs)  # noqa: E731
        points = [(m, _simulated(at(m))) for m in M_POINTS]
        rows.append({
            "name": name, "V": base.V,
            "closed": [_closed(at(m)) for m in M_LINE],
            "points_m": [m for m, b in points if b is not None],
            "points": [b for _, b in points if b is not None],
        })
    return rows


def v_row(cfg: Config) -> dict:
    """Interleaved 1F1B against V, at cfg's P, m and costs (not its V)."""
    at_v = lambda V: Config(V_SCHEDULE, cfg.P, cfg.m, V, cfg.costs)  # noqa: E731
    sims = [(V, _simulated(at_v(V))) for V in range(1, V_MAX + 1)]
    return {
        "closed": [_closed(at_v(V)) for V in range(1, V_MAX + 1)],
        "points_v": [V for V, b in sims if b is not None],
        "points": [b for _, b in sims if b is not None],
    }


def sweep_values(cfg: Config, rows=m_rows, by_v=v_row) -> dict:
    """Both views (`rows` and `by_v` may be cached versions of m_rows and v_row)."""
    return {"m": list(M_LINE), "rows": rows(cfg), "V": list(range(1, V_MAX + 1)), "by_v": by_v(cfg)}


@lru_cache(maxsize=16)
def _rows(P: int, V: int, costs) -> list[dict]:
    return m_rows(Config("1f1b", P, 1, V, costs))


@lru_cache(maxsize=16)
def _by_v(P: int, m: int, costs) -> dict:
    return v_row(Config(V_SCHEDULE, P, m, 1, costs))


def cached_values(cfg: Config) -> dict:
    """sweep_values, its halves kept for the last few (P, V, costs) and (P, m, costs),
    shared by every session (a change of m only moves the marker)."""
    return sweep_values(cfg, lambda c: _rows(c.P, c.V, c.costs), lambda c: _by_v(c.P, c.m, c.costs))


def _nan(xs: list) -> list[float]:
    return [float("nan") if x is None else x for x in xs]


def figure_view(values: dict, cfg: Config, lang: str = "en") -> dict:
    """Sources and properties of the sweep figures: one line (closed form) and one set
    of points (simulation) per schedule, the current m and V marked."""
    t = lambda k: template(k, lang)  # noqa: E731
    sources, props = {}, {}
    for i, row in enumerate(values["rows"]):
        sources[f"sweep_line_{i}"] = {"x": values["m"], "y": _nan(row["closed"])}
        sources[f"sweep_sim_{i}"] = {"x": row["points_m"], "y": row["points"]}
        title = template(f"sched.{row['name']}.title", lang)
        props[f"sweep_key_{i}"] = {"label": {"value": title + (f" (V={row['V']})" if row["V"] > 1 else "")}}
    by_v = values["by_v"]
    sources["sweep_v_line"] = {"x": values["V"], "y": _nan(by_v["closed"])}
    sources["sweep_v_sim"] = {"x": by_v["points_v"], "y": by_v["points"]}
    props.update({
        "sweep_m_title": {"text": t("sweep.title_m")},
        "sweep_v_title": {"text": t("sweep.title_v")},
        "sweep_m_xaxis": {"axis_label": t("sweep.axis_m")},
        "sweep_v_xaxis": {"axis_label": t("sweep.axis_v")},
        "sweep_m_yaxis": {"axis_label": t("sweep.axis_bubble")},
        "sweep_v_yaxis": {"axis_label": t("sweep.axis_bubble")},
        "sweep_legend": {"title": t("sweep.key")},
        "sweep_m_now": {"location": cfg.m},
        "sweep_v_now": {"location": cfg.V},
        "sweep_hover": {"tooltips": [["m", "@x"], [t("sweep.axis_bubble"), "@y{0.00%}"]]},
        "sweep_v_hover": {"tooltips": [["V", "@x"], [t("sweep.axis_bubble"), "@y{0.00%}"]]},
        "sweep_v_key": {"label": {"value": f"{template(f'sched.{V_SCHEDULE}.title', lang)} (P={cfg.P}, m={cfg.m})"}},
    })
    return {"sources": sources, "props": props}


def as_data() -> dict:
    return {"mMax": M_MAX, "mPoints": list(M_POINTS), "mLine": list(M_LINE), "vMax": V_MAX, "vSchedule": V_SCHEDULE}
