"""A compact text timeline and the metrics, for `python -m pipeviz show`."""

from __future__ import annotations

import numpy as np

from .closed_form import fraction_text
from .engine import Result
from .order import KIND_NAMES
from .text import template

BUBBLE = "/"
# One letter per kind: an input-gradient backward (I) is the split schedules' B
# (docs/model.md, "Words"), an overlapped pair X, encoder work e.
LETTER = dict(zip(range(len(KIND_NAMES)), ("F", "B", "B", "W", "X", "e", "e")))


def column_width(res: Result, width: int) -> float:
    """Time per column: two columns for the shortest op (room for "F3"), unless the
    line would pass `width` columns."""
    dur = res.timeline.duration
    shortest = float(dur[dur > 0].min()) if (dur > 0).any() else 1.0
    return max(shortest / 2, res.timeline.makespan / width)


def timeline_text(res: Result, width: int = 120) -> list[str]:
    """One line per rank. Each op fills its columns with its label ("F3", "B10")
    padded with '-', or just its kind letter when too narrow; idle time is '/'.

    Ops are laid in order, a later one over an earlier one where rounding makes them
    share a column. A rank's ops start and end in time order, so the op a column
    shows is the last one starting at or before it, if that one reaches it: found
    by a search per column, not a write per op (a million ops take a second that way)."""
    order, tl = res.order, res.timeline
    makespan = tl.makespan
    step = column_width(res, width)
    cols = int(np.ceil(makespan / step - 1e-9))
    # Python's round(): half to even, as np.rint.
    first = np.rint(tl.start / step).astype(np.int64)
    last = np.maximum(first + 1, np.rint(tl.end / step).astype(np.int64))
    at = np.arange(cols)
    lines = []
    for r in range(order.P):
        lo, hi = int(order.rank_ptr[r]), int(order.rank_ptr[r + 1])
        a, b = first[lo:hi], last[lo:hi]
        j = np.searchsorted(a, at, side="right") - 1
        shown = (j >= 0) & (b[np.maximum(j, 0)] > at)
        row = [BUBBLE] * cols
        for c in np.flatnonzero(shown).tolist():
            k = int(j[c])
            i = lo + k
            kind = LETTER[int(order.kind[i])]
            label = f"{kind}{int(order.mb[i])}"
            span = int(b[k] - a[k])
            offset = c - int(a[k])
            row[c] = (label[offset] if offset < len(label) else "-") if span >= len(label) else kind
        lines.append(f"rank {r:>{len(str(order.P - 1))}} |{''.join(row)}|")
    return lines


def percent(x: float) -> str:
    return f"{100 * x:.2f}%"


def bubble_sentence(res: Result) -> str:
    """'27.27% simulated, (P-1)/(m+P-1) = 3/11 = 27.27%', plus why they differ if they do."""
    th, mt = res.theory, res.metrics
    if th is None:
        return f"{percent(mt.bubble_fraction)} simulated (an order of one's own has no closed form)"
    frac = fraction_text(th.bubble)
    closed = f"{th.bubble_formula} = " + (f"{frac} = " if frac and "/" in frac else "") + percent(float(th.bubble))
    text = f"{percent(mt.bubble_fraction)} simulated, {closed}"
    if not res.bubble_agrees:
        text += f" — differs: {th.caveat.text()}" if th.caveat else " — differs"
    return text


def authors_line(res: Result) -> str:
    """DeepSeek's bubble (or another authors'), its value, and each rank's simulated idle."""
    from .view.readouts import authors_values, authors_verdict

    v = authors_values(res)
    return (f"{template(v['who'])}  {v['formula']} = {v['value']}; simulated idle per rank "
            f"{' '.join(v['idle'])}: {authors_verdict(v).text()}")


def metrics_text(res: Result) -> list[str]:
    cfg, mt, th = res.config, res.metrics, res.theory
    c = cfg.costs
    chunks = res.order.chunks_per_rank
    lines = [
        f"{res.schedule.title()} ({cfg.schedule})  P={cfg.P} m={cfg.m} V={cfg.V}"
        + (f" G={cfg.G}" if cfg.G else "")
        + (f" placement {res.schedule.placement}" if th is None else "")
        + f"  costs t_f={c.tf:g} t_b={c.tb:g} t_w={c.tw:g} comm={c.comm:g}"
        + (f" t_fb={c.tfb:g}" if c.tfb is not None else ""),
        f"makespan            {mt.makespan:g}",
        f"bubble (one iter.)  {bubble_sentence(res)}",
        f"bubble (steady)     {percent(mt.steady_bubble_fraction)} simulated"
        + (f", {percent(float(th.steady_bubble))} closed form" if th else ""),
        "peak in-flight      "
        + "  ".join(f"r{r}: {int(p)}" for r, p in enumerate(mt.peak_chunks))
        + (" chunks" if chunks > 1 else " micro-batches"),
    ]
    if chunks > 1:
        lines.append("  in micro-batches  " + "  ".join(f"r{r}: {p:g}" for r, p in enumerate(mt.peak_microbatches)))
    if mt.peak_awaiting_b is not None:
        lines.append(
            "  at the peak       "
            + "  ".join(f"r{r}: {b}B+{w}W" for r, (b, w) in enumerate(zip(mt.peak_awaiting_b, mt.peak_awaiting_w)))
            + "  (awaiting B + awaiting W only)"
        )
    if th is not None and th.authors is not None:
        lines.append(authors_line(res))
    if th is not None and th.source is not None:
        lines.append(f"order               {th.source.text()}")
    lines.append(f"p2p per micro-batch {mt.p2p_article} (the article's count), {mt.p2p_per_microbatch} sends between ranks")
    if res.encoder is not None:
        e, s = res.encoder, res.encoder.settings
        lines.append(
            f"encoder             {s.place}, e_f={s.ef:g} " + ("frozen" if s.frozen else f"e_b={s.eb:g}")
            + f": makespan {e.makespan:g} (pipeline alone {e.pipeline_makespan:g}), exposed {e.exposed:g}, "
            f"hidden {percent(e.hidden_share)} of its work, bubble filled {percent(e.bubble_filled)}")
    if res.balance is not None:
        b = res.balance
        lines.append("balanced (BPipe)    " + "  ".join(
            f"r{r}: {a:g}" + (f" (was {p:g})" if a != p else "") for r, (a, p) in
            enumerate(zip(b.peak_microbatches, mt.peak_microbatches)))
            + f" micro-batches resident at peak; {b.transfers:g} transfers per iteration")
    lines.append("busy / idle         " + "  ".join(f"r{r}: {b:g}/{i:g}" for r, (b, i) in enumerate(zip(mt.busy, mt.idle))))
    return lines


def memory_text(res: Result, memory) -> list[str]:
    """Bubble parts (unequal stages or comm) and, with a model, peak GiB per rank."""
    lines = []
    parts = res.bubble_parts
    if parts is not None:
        lines.append(f"bubble parts        ideal {percent(parts.ideal)} + imbalance {percent(parts.imbalance)} "
                     f"+ comm {percent(parts.comm)}")
    if res.config.stage_weights is not None:
        lines.append("stage weights       " + ", ".join(f"{w:.4g}" for w in res.config.stage_weights))
    if memory is not None:
        gib = 2.0**30
        m = memory.model
        lines.append(f"model               {m.name}: L={m.L} h={m.h} a={m.a} s={m.s} b={m.b} vocab={m.vocab} t={m.t} "
                     f"act={m.act} {m.bytes_per_param} B/param; {m.act_bytes / 2**20:g} MiB per layer per micro-batch")
        lines.append("peak memory (GiB)   " + "  ".join(f"r{r}: {p / gib:.2f}" for r, p in enumerate(memory.peak))
                     + f"  (HBM {memory.hbm_gib:g})")
        lines.append("  parameters        " + "  ".join(f"r{r}: {p / gib:.2f}" for r, p in enumerate(memory.params)))
        r = memory.tightest
        over = memory.over[r] / gib
        verdict = f"over by {over:.2f} GiB" if over > 0 else "fits"
        lines.append(f"  tightest rank     {r}: {memory.peak[r] / gib:.2f} GiB, {verdict}")
    return lines


def show(res: Result, width: int = 120, memory=None) -> str:
    legend = (f"time → one column is {column_width(res, width):g} time units; '/' is idle, "
              "X an overlapped F&B, e encoder work")
    return "\n".join([*metrics_text(res), *memory_text(res, memory), "", legend, *timeline_text(res, width)])
