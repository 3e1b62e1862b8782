"""Exports other tools read: JSON, CSV (one row per op), Chrome trace events, actions.

The JSON layout is a stable interface (docs/interfaces.md, "JSON export"): keys may
be added, never changed.
"""

from __future__ import annotations

import csv
import io
import json

import numpy as np

from .causes import NONE, critical_path, gap_waits
from .engine import Result
from .order import EB, EF, FB, KIND_NAMES, I
from .text import template

FORMATS = ("json", "csv", "chrome-trace", "actions")
# The most ops each format is written for: about a second of `pipeviz export` on a
# 2-core machine, engine included (measured CPU per op, 100k ops: json 5.6 us,
# csv 1.9, chrome-trace 12.6, actions 0.7; the engine about 1). Each is a power of
# two at least the explorer's largest view, P=32 m=128 V=8: 65,536 ops. Larger runs
# are refused before the engine runs, with the limit.
MAX_OPS = {"json": 131_072, "csv": 262_144, "chrome-trace": 65_536, "actions": 1_000_000}


def _num(x: float) -> int | float:
    """1.0 -> 1, 0.5 -> 0.5: costs and counts read as they were written."""
    x = float(x)
    return int(x) if x.is_integer() else x


def json_op(order, i: int, start: float, end: float) -> dict:
    """One op as the JSON export writes it (docs/interfaces.md). An input-gradient
    backward is kind "B" (the split schedules' B); every B says whether it is "full"
    or the "input" part. An overlapped pair is kind "F&B" with its two parts."""
    r = int(order.rank_ptr.searchsorted(i, side="right") - 1)
    k = int(order.kind[i])
    if k == FB:
        return {"rank": r, "kind": "F&B", "parts": [
            {"kind": "F", "mb": int(order.mb[i]), "stage": int(order.stage[i])},
            {"kind": "B", "mb": int(order.mb2[i]), "stage": int(order.stage2[i]), "backward": "full"},
        ], "start": start, "end": end}
    if k in (EF, EB):
        return {"rank": r, "kind": KIND_NAMES[k], "mb": int(order.mb[i]), "start": start, "end": end}
    op = {"rank": r, "kind": "B" if k == I else KIND_NAMES[k], "mb": int(order.mb[i]), "stage": int(order.stage[i]),
          "start": start, "end": end}
    if op["kind"] == "B":
        op["backward"] = "input" if k == I else "full"
    return op


def memory_dict(mem) -> tuple[dict, dict]:
    """(top-level keys, metrics keys) for a `memory.Memory`: GiB per rank, its parts,
    the HBM line and what exceeds it."""
    from .memory import GIB

    gib = lambda x: [float(v) / GIB for v in x]  # noqa: E731
    model = mem.model
    top = {
        "model": {"name": model.name, "L": model.L, "h": model.h, "a": model.a, "s": model.s, "b": model.b,
                  "vocab": model.vocab, "t": model.t, "untied": model.untied, "act": model.act,
                  "bytes_per_param": model.bytes_per_param, "embed_layers": _num(model.embed),
                  "head_layers": _num(model.head)},
        "layers_per_stage": mem.layers.tolist(),
    }
    metrics = {
        "peak_memory_gib": gib(mem.peak),
        "peak_memory_parts_gib": {"params": gib(mem.params), "awaiting_b": gib(mem.peak_b),
                                  "awaiting_w": gib(mem.peak_w)},
        "activation_mib_per_layer": model.act_bytes / 2**20,
        "hbm_gib": mem.hbm_gib,
        "memory_over_hbm_gib": gib(mem.over),
        "memory_tightest_rank": mem.tightest,
        "memory_fits": mem.fits,
    }
    return top, metrics


def to_dict(res: Result, memory=None) -> dict:
    """The JSON export (docs/interfaces.md); with a `memory.Memory`, also the model
    and GiB per rank."""
    cfg, order, tl, mt, th = res.config, res.order, res.timeline, res.metrics, res.theory
    ops = [json_op(order, i, t0, t1) for i, (t0, t1) in enumerate(zip(tl.start.tolist(), tl.end.tolist()))]
    b_rank, b_start, b_end = mt.bubbles
    metrics = {
        "makespan": mt.makespan,
        "bubble_fraction": mt.bubble_fraction,
        # An order of one's own has no closed form: its theory keys are null.
        "bubble_fraction_theory": float(th.bubble) if th else None,
        "steady_bubble_fraction": mt.steady_bubble_fraction,
        "peak_inflight_chunks": mt.peak_chunks.tolist(),
        "peak_inflight_microbatches": [_num(x) for x in mt.peak_microbatches],
        "p2p_per_microbatch": mt.p2p_per_microbatch,
        # Added keys (the interface allows extra keys).
        "bubble_formula": th.bubble_formula if th else None,
        "bubble_theory_exact": th.bubble_exact if th else None,
        "bubble_agrees": res.bubble_agrees if th else None,
        "theory_caveat": (th.caveat.text() if th.caveat else "") if th else None,
        # Whose order it is, where it is not the one the schedule's title names.
        "order_source": (th.source.text() if th.source else "") if th else None,
        "p2p_article_per_microbatch": mt.p2p_article,
        "steady_bubble_fraction_theory": float(th.steady_bubble) if th else None,
        "peak_inflight_chunks_theory": th.peak_chunks.tolist() if th else None,
        "busy": mt.busy.tolist(),
        "idle": mt.idle.tolist(),
        "bubbles": [
            {"rank": r, "start": a, "end": b}
            for r, a, b in zip(b_rank.tolist(), b_start.tolist(), b_end.tolist())
        ],
    }
    if mt.peak_awaiting_b is not None:
        metrics["peak_inflight_awaiting_b"] = mt.peak_awaiting_b.tolist()
        metrics["peak_inflight_awaiting_w"] = mt.peak_awaiting_w.tolist()
    if th is not None and th.authors is not None:  # a bubble its authors state as idle time (DeepSeek's for dualpipe-v)
        a = th.authors
        metrics["authors_bubble"] = {
            "label": template(a.who), "formula": a.formula, "idle": float(a.idle), "rank": a.rank,
            "exact": th.bubble_exact,
        }
    waits = gap_waits(tl, b_rank, b_end)
    if res.encoder is not None:
        metrics.update(encoder_metrics(res))
        segment = order.segment
        for i, op in enumerate(ops):
            if op["kind"] in ("EF", "EB"):
                op["segment"] = SEGMENTS[int(segment[i])] if segment is not None else "pipeline"
    if res.balance is not None:
        metrics.update(balance_metrics(res))
    parts = res.bubble_parts
    if parts is not None:  # unequal stages or comm: where the bubble comes from
        metrics["bubble_parts"] = {"ideal": parts.ideal, "imbalance": parts.imbalance, "comm": parts.comm}
    top = {}
    if memory is not None:
        top, more = memory_dict(memory)
        metrics.update(more)
    out = {
        "schedule": cfg.schedule,
        "P": cfg.P,
        "m": cfg.m,
        "V": cfg.V,
        "costs": {k: _num(v) for k, v in cfg.costs.as_dict().items()},
        "stage_to_rank": order.stage_to_rank.tolist(),
        "ops": ops,
        "metrics": metrics,
        # Each idle gap and the op that ends it (a cross-rank dependency, else the rank's
        # own next op; null for the wait at the end of the iteration).
        "bubbles": [
            {"rank": r, "start": a, "end": b, "waits_for": _who(order, w)}
            for r, a, b, w in zip(b_rank.tolist(), b_start.tolist(), b_end.tolist(), waits.tolist())
        ],
        # One chain of tight links from the first start to the last end, as indices into ops.
        "critical_path": critical_path(tl).tolist(),
    }
    if cfg.G is not None:
        out["G"] = cfg.G
    if cfg.encoder is not None:
        enc = cfg.encoder
        out["encoder"] = {"ef": _num(enc.ef), "place": enc.place, "frozen": enc.frozen}
        if not enc.frozen:
            out["encoder"]["eb"] = _num(enc.eb)
    if cfg.balance is not None:
        out["balance"] = cfg.balance
    if th is None:  # an order of one's own: how to read it back
        out["placement"] = res.schedule.placement
    if cfg.stage_weights is not None:
        out["stage_weights"] = [_num(w) for w in cfg.stage_weights]
    out.update(top)
    return out


def _who(order, i: int) -> dict | None:
    if i == NONE:
        return None
    op = json_op(order, i, 0.0, 0.0)
    return {k: v for k, v in op.items() if k not in ("start", "end")}


SEGMENTS = ("prologue", "pipeline", "epilogue")


def encoder_metrics(res: Result) -> dict:
    """The encoder report (docs/model.md, "Independent work in the bubbles"): makespan
    (the run's own key), the pipeline's alone, exposed encoder time, hidden share and
    bubble filled."""
    e = res.encoder
    return {
        "makespan_pipeline": e.pipeline_makespan,
        "encoder_exposed": e.exposed,
        "encoder_hidden_share": e.hidden_share,
        "bubble_filled_share": e.bubble_filled,
        "encoder_in_gaps": {"EF": e.in_gaps[0], "EB": e.in_gaps[1]},
        "encoder_rounds": {"prologue": e.rounds[0], "epilogue": e.rounds[1]},
    }


def balance_metrics(res: Result) -> dict:
    """Activations resident per rank after BPipe balancing, and the transfers it costs."""
    b = res.balance
    return {
        "peak_resident_chunks": b.peak_chunks.tolist(),
        "peak_resident_microbatches": [_num(x) for x in b.peak_microbatches],
        "balance_transfers": _num(b.transfers),
        "balance_pairs": [{"front": f, "partner": p, "target_chunks": t} for f, p, t in b.pairs],
    }


def to_json(res: Result, memory=None) -> str:
    return json.dumps(to_dict(res, memory))


def to_csv(res: Result) -> str:
    order, tl = res.order, res.timeline
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["rank", "kind", "mb", "stage", "chunk", "start", "end", "mb2", "stage2"])
    chunk = _chunk_index(res)
    for row in zip(
        order.rank.tolist(), order.kind.tolist(), order.mb.tolist(), order.stage.tolist(),
        chunk.tolist(), tl.start.tolist(), tl.end.tolist(), order.mb2.tolist(), order.stage2.tolist(),
    ):
        r, k, b, s, c, t0, t1, b2, s2 = row
        pair = k == FB
        w.writerow([r, KIND_NAMES[k], b, s if s >= 0 else "", c if s >= 0 else "", repr(t0), repr(t1),
                    b2 if pair else "", s2 if pair else ""])
    return buf.getvalue()


def _chunk_index(res: Result) -> np.ndarray:
    """Which of its rank's chunks each op runs on (0 .. chunks per rank - 1)."""
    s2r = res.order.stage_to_rank
    # Chunk c of a rank is its c-th stage along the forward path.
    nth = np.zeros_like(s2r)
    seen: dict[int, int] = {}
    for s, r in enumerate(s2r.tolist()):
        nth[s] = seen.get(r, 0)
        seen[r] = nth[s] + 1
    return nth[np.maximum(res.order.stage, 0)]


def to_chrome_trace(res: Result, us_per_unit: float = 1000.0, memory=None) -> str:
    """Trace Event JSON for Perfetto or chrome://tracing: one track per rank, ops as
    complete events, bubbles as their own events, in-flight chunks as a counter.
    One time unit is shown as one millisecond."""
    order, tl, mt = res.order, res.timeline, res.metrics
    events: list[dict] = [{"ph": "M", "pid": 0, "name": "process_name", "args": {"name": f"pipeviz {res.config.schedule}"}}]
    for r in range(order.P):
        events.append({"ph": "M", "pid": 0, "tid": r, "name": "thread_name", "args": {"name": f"rank {r}"}})
        events.append({"ph": "M", "pid": 0, "tid": r, "name": "thread_sort_index", "args": {"sort_index": r}})
    colors = {"F": "thread_state_running", "B": "thread_state_iowait", "I": "thread_state_iowait",
              "W": "thread_state_runnable", "F&B": "thread_state_running", "EF": "good", "EB": "good"}
    chunk = _chunk_index(res)
    # From plain lists, an op's args as json_op writes them (less its rank): a call per
    # op, with its search for the rank, cost most of a large trace's time.
    for name, r, k, b, s, b2, s2, c, t0, t1 in zip(
        order.tokens(), order.rank.tolist(), order.kind.tolist(), order.mb.tolist(), order.stage.tolist(),
        order.mb2.tolist(), order.stage2.tolist(), chunk.tolist(), tl.start.tolist(), tl.end.tolist(),
    ):
        kind = KIND_NAMES[k]
        if k == FB:
            args = {"kind": "F&B", "parts": [{"kind": "F", "mb": b, "stage": s},
                                             {"kind": "B", "mb": b2, "stage": s2, "backward": "full"}],
                    "start": t0, "end": t1}
        elif k in (EF, EB):
            args = {"kind": kind, "mb": b, "start": t0, "end": t1}
        else:
            args = {"kind": "B" if k == I else kind, "mb": b, "stage": s, "start": t0, "end": t1}
            if args["kind"] == "B":
                args["backward"] = "input" if k == I else "full"
            args["chunk"] = c
        events.append({
            "name": name, "cat": kind, "ph": "X", "pid": 0, "tid": r,
            "ts": t0 * us_per_unit, "dur": (t1 - t0) * us_per_unit, "cname": colors[kind], "args": args,
        })
    for r, t0, t1 in zip(*(a.tolist() for a in mt.bubbles)):
        events.append({
            "name": "bubble", "cat": "bubble", "ph": "X", "pid": 0, "tid": r,
            "ts": t0 * us_per_unit, "dur": (t1 - t0) * us_per_unit, "cname": "grey",
            "args": {"idle": t1 - t0},
        })
    steps = mt.inflight
    for r, t, v in zip(steps.rank.tolist(), steps.time.tolist(), steps.value.tolist()):
        events.append({"name": f"in-flight rank {r}", "ph": "C", "pid": 0, "ts": t * us_per_unit, "args": {"chunks": v}})
    if memory is not None:  # bytes held per rank, in GiB, parameters included
        act = memory.activations
        for r, t, v in zip(act.rank.tolist(), act.time.tolist(), act.value.tolist()):
            gib = (memory.params[r] + v) / 2**30
            events.append({"name": f"memory rank {r}", "ph": "C", "pid": 0, "ts": t * us_per_unit,
                           "args": {"GiB": gib}})
    summary = {
        "schedule": res.config.schedule, "P": res.config.P, "m": res.config.m, "V": res.config.V,
        "makespan": mt.makespan, "bubble_fraction": mt.bubble_fraction, "time_unit": f"1 unit = {us_per_unit:g} us",
    }
    return json.dumps({"traceEvents": events, "displayTimeUnit": "ms", "otherData": summary})


def to_actions(res: Result) -> str:
    """The order in PyTorch's action notation, one line per rank, after a comment
    that says how to load it back."""
    cfg = res.config
    head = (f"# pipeviz {cfg.schedule}: P={cfg.P} m={cfg.m} V={cfg.V}, placement {res.schedule.placement}; "
            "one line per rank, PyTorch's action notation")
    return head + "\n" + res.order.to_text() + "\n"


def render(res: Result, fmt: str, memory=None) -> str:
    if fmt == "json":
        return to_json(res, memory)
    if fmt == "csv":
        return to_csv(res)
    if fmt == "chrome-trace":
        return to_chrome_trace(res, memory=memory)
    if fmt == "actions":
        return to_actions(res)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
