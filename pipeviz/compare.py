"""Every schedule side by side at one P and m (docs/interfaces.md, "Comparing schedules").

One row per schedule and each V it accepts (its own V where fixed, else 1..MAX_V),
each row the numbers `export` gives that schedule with the same costs and model:
makespan, bubble, the tightest rank's peak in flight (micro-batches) and, with a
model, in GiB, whether it fits the HBM, and whether it is on the Pareto front of
makespan against peak memory (GiB with a model, else micro-batches). Rows are
sorted by makespan, those that fit first; what refuses these sizes is listed apart
with its one-line reason.

    comparison = compare(8, 16)                       # defaults: t_f = t_b = t_w = 1
    comparison = compare(8, 16, costs, model=preset("gpt3-6.7b"), hbm_gib=40)
    comparison.rows[0].schedule, comparison.as_dict()

Nothing here draws: the CLI prints it (`python -m pipeviz compare`), and the
explorers' trade-off view plots it (view/tradeoff.py; static/compare.js is its twin
for the page).
"""

from __future__ import annotations

import decimal
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .config import MAX_OPS, Config
from .costs import Costs
from .errors import ConfigError
from .memory import GIB, Model, measure_memory, stage_weights
from .registry import SCHEDULES
from .text import Msg

MAX_V = 8  # the V a schedule with a free V is compared at: 1..MAX_V (the explorer's V range)
# All rows together time at most this many ops (benchmarks/compare.py: about a second
# of the engine on this machine), each row at most config.MAX_OPS.
MAX_TOTAL_OPS = 2 * MAX_OPS
FIELDS = ("schedule", "V", "makespan", "bubble_fraction", "peak_inflight_microbatches", "peak_memory_gib", "fits",
          "pareto")
SIGNIFICANT = 12  # digits the front and the sort compare: an ulp of a float sum is no difference
FORMATS = ("json", "csv", "text")


@dataclass(frozen=True)
class Row:
    schedule: str
    V: int
    makespan: float
    bubble_fraction: float
    peak_inflight_microbatches: float  # the tightest rank's
    peak_memory_gib: float | None  # with a model: the tightest rank's
    fits: bool | None  # with a model: every rank's peak within the HBM
    pareto: bool  # no other row is as fast and as light, and faster or lighter

    @property
    def memory(self) -> float:
        """What the front weighs: GiB with a model, else micro-batches."""
        return self.peak_inflight_microbatches if self.peak_memory_gib is None else self.peak_memory_gib

    def as_dict(self) -> dict:
        return {f: getattr(self, f) for f in FIELDS}


@dataclass(frozen=True)
class Refused:
    schedule: str
    V: int
    reason: Msg

    def as_dict(self, lang: str = "en") -> dict:
        return {"schedule": self.schedule, "V": self.V, "reason": self.reason.text(lang)}


@dataclass(frozen=True)
class Comparison:
    rows: tuple[Row, ...]
    refused: tuple[Refused, ...]

    def as_dict(self, lang: str = "en") -> dict:
        return {"rows": [r.as_dict() for r in self.rows], "refused": [r.as_dict(lang) for r in self.refused]}


def as_data() -> dict:
    """What static/compare.js reads instead of repeating it."""
    return {"maxV": MAX_V, "maxTotalOps": MAX_TOTAL_OPS, "significant": SIGNIFICANT, "fields": list(FIELDS)}


def candidates(max_V: int = MAX_V) -> list[tuple[str, int]]:
    """(schedule, V) of every row asked for: each schedule at its own V, or at 1..max_V."""
    return [(name, V) for name, spec in SCHEDULES.items()
            for V in ([spec.fixed_V] if spec.fixed_V else range(1, max_V + 1))]


def row_config(name: str, V: int, P: int, m: int, costs: Costs, model: Model | None = None,
               weights: Sequence[float] | None = None, equal_stages: bool = False) -> Config:
    """The configuration `export` runs for this row with the same flags: the given stage
    weights, else with a model its layer split's (unless equal_stages)."""
    if weights is None and model is not None and not equal_stages:
        weights = stage_weights(model, SCHEDULES[name].chunks_per_rank(V) * P)
    return Config(name, P, m, V, costs, stage_weights=tuple(weights) if weights is not None else None)


def compare(P: int, m: int, costs: Costs | None = None, model: Model | None = None, hbm_gib: float = 80.0,
            weights: Sequence[float] | None = None, equal_stages: bool = False, max_V: int = MAX_V,
            run: Callable | None = None) -> Comparison:
    """Every row at P, m (see the module docstring). `run` is the engine's (a cache may
    stand in for it)."""
    if run is None:
        from .engine import run
    from .registry import check

    costs = costs or Costs()
    measured, refused, runnable = [], [], []
    for name, V in candidates(max_V):
        try:
            cfg = row_config(name, V, P, m, costs, model, weights, equal_stages)
            runnable.append((name, V, cfg, check(cfg).n_ops(cfg)))
        except ConfigError as e:
            refused.append(Refused(name, V, e.msg))
    total = sum(n for *_, n in runnable)
    if total > MAX_TOTAL_OPS:
        raise ConfigError("compare.too_big", P=P, m=m, n=f"{total:,}", rows=len(runnable), max=f"{MAX_TOTAL_OPS:,}")
    for name, V, cfg, _ in runnable:
        try:
            res = run(cfg)
        except ConfigError as e:
            refused.append(Refused(name, V, e.msg))
            continue
        mt = res.metrics
        gib = fits = None
        if model is not None:
            mem = measure_memory(res.timeline, model, hbm_gib)
            gib, fits = float(mem.peak.max()) / GIB, mem.fits
        measured.append(dict(schedule=name, V=V, makespan=mt.makespan, bubble_fraction=mt.bubble_fraction,
                             peak_inflight_microbatches=float(mt.peak_microbatches.max()), peak_memory_gib=gib,
                             fits=fits))
    memory = [r["peak_inflight_microbatches"] if r["peak_memory_gib"] is None else r["peak_memory_gib"]
              for r in measured]
    front = pareto([r["makespan"] for r in measured], memory)
    rows = [Row(**r, pareto=p) for r, p in zip(measured, front)]
    refused.sort(key=lambda x: (SCHEDULES[x.schedule].position, x.V))
    return Comparison(rows=tuple(sorted(rows, key=sort_key)), refused=tuple(refused))


_ROUND = decimal.Context(prec=SIGNIFICANT, rounding=decimal.ROUND_HALF_UP)


def rounded(x: float) -> float:
    """x >= 0 to SIGNIFICANT digits, a tie rounded up: JavaScript's
    Number(x.toPrecision(12)), to the bit (both round x's exact binary value)."""
    return float(_ROUND.create_decimal(x))


def pareto(makespan: Sequence[float], memory: Sequence[float]) -> list[bool]:
    """For each point, whether no other point is at most as slow and as heavy and
    strictly faster or lighter (to SIGNIFICANT digits). Points that tie are all on
    the front."""
    pts = [(rounded(t), rounded(w)) for t, w in zip(makespan, memory)]
    return [not any(t2 <= t and w2 <= w and (t2 < t or w2 < w) for t2, w2 in pts) for t, w in pts]


def sort_key(row: Row) -> tuple:
    """Those that fit first (or all, without a model), then by makespan, then in the
    schedules' own order and by V."""
    return (row.fits is False, rounded(row.makespan), SCHEDULES[row.schedule].position, row.V)


def render(comparison: Comparison, fmt: str) -> str:
    """The comparison as `fmt`: json ({"rows", "refused"}, docs/interfaces.md), csv (one line per
    row, then one per refused schedule with its reason) or text (a table)."""
    if fmt == "json":
        import json

        return json.dumps(comparison.as_dict())
    if fmt == "csv":
        import csv
        import io

        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow([*FIELDS, "refused"])
        for r in comparison.rows:
            w.writerow([_cell(getattr(r, f)) for f in FIELDS] + [""])
        for x in comparison.refused:
            w.writerow([x.schedule, x.V, *[""] * (len(FIELDS) - 2), x.reason.text()])
        return out.getvalue()
    if fmt == "text":
        return _text(comparison)
    raise ValueError(f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")


def _cell(x) -> str:
    if x is None:
        return ""
    if isinstance(x, bool):
        return "true" if x else "false"
    return repr(x) if isinstance(x, float) else str(x)


def _text(comparison: Comparison) -> str:
    gib = any(r.peak_memory_gib is not None for r in comparison.rows)
    head = ["schedule", "V", "makespan", "bubble", "peak mb"] + (["peak GiB", "fits"] if gib else []) + ["pareto"]
    lines = []
    for r in comparison.rows:
        cells = [r.schedule, str(r.V), f"{r.makespan:g}", f"{100 * r.bubble_fraction:.2f}%",
                 f"{r.peak_inflight_microbatches:g}"]
        if gib:
            cells += [f"{r.peak_memory_gib:.2f}", "yes" if r.fits else "no"]
        lines.append(cells + ["*" if r.pareto else ""])
    widths = [max(len(c) for c in col) for col in zip(head, *lines)]
    fmt = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    out = [fmt(head)] + [fmt(c) for c in lines]
    out.append("* on the Pareto front of makespan against peak memory" + (" (GiB)" if gib else " (micro-batches)"))
    out += [f"refused: {x.schedule} V={x.V}: {x.reason.text()}" for x in comparison.refused]
    return "\n".join(out)
