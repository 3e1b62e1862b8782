"""The explorer's text: bubble readout, summary line, comparison table (HTML strings).

Everything a user typed is escaped before it reaches HTML.
"""

from __future__ import annotations

from html import escape
from typing import Callable

from ..closed_form import fraction_text
from ..config import Config
from ..engine import Result
from ..errors import ConfigError
from ..registry import NAMES, SCHEDULES
from .data import KIND_COLORS, W_ONLY_COLOR


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


def bubble_line(res: Result) -> str:
    """'27.27% simulated, (P-1)/(m+P-1) = 3/11 = 27.27%'."""
    return f"{pct(res.metrics.bubble_fraction)} simulated, {closed_form_text(res)}"


def readout_html(res: Result) -> str:
    mt, th = res.metrics, res.theory
    chunks = res.order.chunks_per_rank
    agree = res.bubble_agrees
    verdict = (
        '<span class="pv-agree">simulation and closed form agree</span>'
        if agree
        else f'<span class="pv-differ">they differ: {escape(th.caveat or "the closed form does not cover this case")}</span>'
    )
    peak0 = mt.peak_chunks[0]
    peak_text = (
        f"{num(mt.peak_microbatches[0])} micro-batches ({peak0} chunks)" if chunks > 1 else f"{peak0} micro-batches"
    )
    steady = ""
    if abs(mt.steady_bubble_fraction - mt.bubble_fraction) > 1e-12:
        steady = (
            f' · <span title="iterations back to back, no global flush (the Zero Bubble paper\'s measure)">'
            f"steady-state bubble <b>{pct(mt.steady_bubble_fraction)}</b></span>"
        )
    return (
        f'<div class="pv-readout">'
        f'<div class="pv-bubble">Bubble (one iteration): <b class="pv-sim">{escape(bubble_line(res))}</b></div>'
        f'<div class="pv-verdict">{verdict}</div>'
        f'<div class="pv-summary">makespan <b>{num(mt.makespan)}</b>{steady}'
        f" · rank 0 peak in flight <b>{peak_text}</b>"
        f" · p2p per micro-batch <b>{mt.p2p_per_microbatch}</b></div>"
        f"</div>"
    )


def bars_key_html(res: Result) -> str:
    """What the in-flight bars show, under them."""
    def swatch(color: str) -> str:
        return f'<span style="display:inline-block;width:10px;height:10px;background:{color};margin-right:4px"></span>'

    if res.order.split_backward:
        parts = [f"{swatch(KIND_COLORS[0])}awaiting B", f"{swatch(W_ONLY_COLOR)}awaiting W only"]
    else:
        parts = [f"{swatch(KIND_COLORS[0])}in flight"]
    parts.append("&#9671; closed form")
    return f'<div style="font-size:11px">{" &nbsp; ".join(parts)}</div>'


def table_config(cfg: Config, name: str) -> Config:
    """The row of `name` in the comparison table: the current P, m and costs, with the
    schedule's own V (interleaved takes the current V, or 2 when V is 1)."""
    spec = SCHEDULES[name]
    V = spec.fixed_V or (cfg.V if cfg.V > 1 else 2)
    return Config(name, cfg.P, cfg.m, V, cfg.costs)


def table_html(cfg: Config, run: Callable[[Config], Result]) -> str:
    """The article's closing table, live for the current P, m, V, current row marked."""
    rows = []
    for name in NAMES:
        row_cfg = table_config(cfg, name)
        spec = SCHEDULES[name]
        current = ' class="pv-current"' if name == cfg.schedule else ""
        label = f"{escape(spec.title)}" + (f" (V={row_cfg.V})" if row_cfg.V > 1 else "")
        try:
            res = run(row_cfg)
        except ConfigError as e:
            rows.append(f'<tr{current} data-schedule="{name}"><td>{label}</td><td colspan="4">{escape(str(e))}</td></tr>')
            continue
        mt = res.metrics
        chunks = res.order.chunks_per_rank
        peak = f"{num(mt.peak_microbatches[0])}" + (f" ({mt.peak_chunks[0]} chunks)" if chunks > 1 else "")
        rows.append(
            f'<tr{current} data-schedule="{name}"><td>{label}</td>'
            f"<td>{pct(mt.bubble_fraction)}</td>"
            f"<td>{escape(closed_form_text(res))}</td>"
            f"<td>{peak}</td><td>{mt.p2p_per_microbatch}</td></tr>"
        )
    head = (
        "<tr><th>schedule</th><th>bubble (simulated)</th><th>closed form</th>"
        "<th>rank 0 peak in flight (micro-batches)</th><th>p2p per micro-batch</th></tr>"
    )
    # The scroll box keeps a narrow page (an iframe) from scrolling sideways as a whole.
    return (
        f'<div class="pv-table-box"><table class="pv-table"><thead>{head}</thead>'
        f'<tbody>{"".join(rows)}</tbody></table></div>'
    )


CSS = """
.pv-readout { font-size: 14px; line-height: 1.5; }
.pv-bubble { font-size: 17px; }
.pv-agree { color: #1b7340; }
.pv-differ { color: #a04000; }
.pv-table-box { overflow-x: auto; max-width: 100%; }
.pv-table { border-collapse: collapse; font-size: 13px; }
.pv-table th, .pv-table td { border-bottom: 1px solid #ddd; padding: 3px 10px; text-align: left; }
.pv-table tr.pv-current { background: #fff3c4; font-weight: 600; }
"""
