"""A profiled step's exports (docs/reading.md, "A real run": `export --trace ... --format
json|csv|chrome-trace|actions`, `show --trace`).

JSON is the schedule export's object (P, m, V, stage_to_rank, ops, metrics) with
"source": "trace", "time_unit": "ms", "measured_costs" (the mean ms of each kind
present) and "simulated" (the same order in the model: makespan, bubble_fraction,
and each op's start and end, aligned with `ops`); and, added: the files, comm_ops,
the gap and the gap lines, the stages' costs, the imbalance, and the what-if rows.
"""

from __future__ import annotations

import csv
import io
import json
import math
from types import SimpleNamespace

from ..export import json_op
from ..order import KIND_NAMES
from ..text import template
from ..textview import column_width, percent, timeline_text
from .names import COMM_KINDS
from .report import MEASURED_KINDS, STAGE_KINDS, Report, ms
from .whatif import WhatIf

FORMATS = ("json", "csv", "chrome-trace", "actions")


def _float(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def comm_dict(run, i: int) -> dict:
    c = run.comm
    out = {"rank": int(c.rank[i]), "kind": COMM_KINDS[int(c.kind[i])], "stage": int(c.stage[i])}
    if c.mb[i] >= 0:
        out["mb"] = int(c.mb[i])
    if c.peer[i] >= 0:
        out["peer"] = int(c.peer[i])
    out.update(start=float(c.start[i]), end=float(c.end[i]))
    return out


def to_dict(rep: Report, what: WhatIf) -> dict:
    run, costs = rep.run, rep.costs
    order, mt, sim = run.order, run.metrics, rep.simulated_metrics
    ops = []
    for i, (t0, t1) in enumerate(zip(run.start.tolist(), run.end.tolist())):
        op = json_op(order, i, t0, t1)
        op["name"] = run.names[i]
        ops.append(op)
    b_rank, b_start, b_end = mt.bubbles
    metrics = {
        "makespan": mt.makespan,
        "bubble_fraction": mt.bubble_fraction,
        "steady_bubble_fraction": mt.steady_bubble_fraction,
        "peak_inflight_chunks": mt.peak_chunks.tolist(),
        "peak_inflight_microbatches": [float(x) for x in mt.peak_microbatches],
        "p2p_per_microbatch": mt.p2p_per_microbatch,
        "busy": mt.busy.tolist(),
        "idle": mt.idle.tolist(),
        "bubbles": [{"rank": r, "start": a, "end": b}
                    for r, a, b in zip(b_rank.tolist(), b_start.tolist(), b_end.tolist())],
    }
    if mt.peak_awaiting_b is not None:
        metrics["peak_inflight_awaiting_b"] = mt.peak_awaiting_b.tolist()
        metrics["peak_inflight_awaiting_w"] = mt.peak_awaiting_w.tolist()
    stages = []
    for s in range(order.S):
        row = {"stage": s, "rank": int(costs.stage_rank[s])}
        for j, k in enumerate(STAGE_KINDS):
            if costs.stage_count[s, j]:
                row[k] = float(costs.stage_mean[s, j])
        row.update(work=float(costs.stage_work[s]), weight=float(costs.stage_weight[s]))
        stages.append(row)
    imb = rep.imbalance
    return {
        "source": "trace",
        "time_unit": "ms",
        "schedule": "custom",
        "same_order_as": [row.schedule for row in what.rows if row.same_order],
        "P": run.P, "m": run.m, "V": run.V, "placement": run.placement,
        "files": list(run.files),
        "declared_ranks": list(run.declared),
        "clock_offsets_ms": list(run.offsets_ms),
        "costs": None if what.costs is None else what.costs.as_dict(),
        "measured_costs": dict(costs.mean),
        "measured_counts": dict(costs.count),
        "measured_costs_per_stage": stages,
        "stage_to_rank": order.stage_to_rank.tolist(),
        "ops": ops,
        "comm_ops": [comm_dict(run, i) for i in range(run.comm.n)],
        "metrics": metrics,
        "simulated": {
            "makespan": sim.makespan, "bubble_fraction": sim.bubble_fraction, "busy": sim.busy.tolist(),
            "idle": sim.idle.tolist(), "start": rep.simulated.start.tolist(), "end": rep.simulated.end.tolist(),
        },
        "gap": rep.gap,
        "gaps": [{"rank": g.rank, "op": g.op, "before": order.token(g.op), "waited": g.waited, "model": g.model,
                  "excess": g.excess, "cause": g.cause, "comm": g.comm if g.comm >= 0 else None, "spent": g.spent,
                  "text": g.msg.text()} for g in rep.gaps],
        "imbalance": {"makespan": imb.makespan, "extra": imb.extra, "slowest_stage": imb.slowest, "ratio": imb.ratio,
                      "text": imb.msg.text()},
        "what_if": {"costs": None if what.costs is None else what.costs.as_dict(), "split_even": what.split_even,
                    "error": None if what.error is None else what.error.text(),
                    "rows": [row.as_dict() for row in what.rows]},
    }


def to_csv(rep: Report) -> str:
    """One row per op, then one per communication or bookkeeping action."""
    run = rep.run
    order = run.order
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["rank", "kind", "mb", "stage", "start", "end", "mb2", "stage2", "peer", "name"])
    for i, (r, k, b, s, b2, s2) in enumerate(zip(order.rank.tolist(), order.kind.tolist(), order.mb.tolist(),
                                                 order.stage.tolist(), order.mb2.tolist(), order.stage2.tolist())):
        pair = KIND_NAMES[k] == "F&B"
        w.writerow([r, KIND_NAMES[k], b, s, repr(float(run.start[i])), repr(float(run.end[i])),
                    b2 if pair else "", s2 if pair else "", "", run.names[i]])
    c = run.comm
    for i in range(c.n):
        mb, peer = int(c.mb[i]), int(c.peer[i])
        w.writerow([int(c.rank[i]), COMM_KINDS[int(c.kind[i])], mb if mb >= 0 else "", int(c.stage[i]),
                    repr(float(c.start[i])), repr(float(c.end[i])), "", "", peer if peer >= 0 else "",
                    "PP:" + c.token(i)])
    return buf.getvalue()


def to_chrome_trace(rep: Report) -> str:
    """Perfetto / chrome://tracing: the measured step (one track per rank and a thin
    one for its communication) and, as a second process, the model of the same order."""
    run = rep.run
    order, P = run.order, run.P
    us = 1000.0
    events: list[dict] = [
        {"ph": "M", "pid": 0, "name": "process_name", "args": {"name": "measured step"}},
        {"ph": "M", "pid": 1, "name": "process_name",
         "args": {"name": "pipeviz model: the same order at the measured means, comm 0"}},
    ]
    for r in range(P):
        for pid, tid, name, sort in ((0, r, f"rank {r}", 2 * r), (0, P + r, f"rank {r} communication", 2 * r + 1),
                                     (1, r, f"rank {r}", r)):
            events.append({"ph": "M", "pid": pid, "tid": tid, "name": "thread_name", "args": {"name": name}})
            events.append({"ph": "M", "pid": pid, "tid": tid, "name": "thread_sort_index", "args": {"sort_index": sort}})
    ranks = order.rank.tolist()
    for pid, tl in ((0, run.timeline), (1, rep.simulated)):
        for i, (r, t0, t1) in enumerate(zip(ranks, tl.start.tolist(), tl.end.tolist())):
            args = {k: v for k, v in json_op(order, i, t0, t1).items() if k != "rank"}
            if pid == 0:
                args["name"] = run.names[i]
            events.append({"name": order.token(i), "cat": KIND_NAMES[int(order.kind[i])], "ph": "X", "pid": pid,
                           "tid": r, "ts": t0 * us, "dur": (t1 - t0) * us, "args": args})
    c = run.comm
    for i in range(c.n):
        d = comm_dict(run, i)
        events.append({"name": c.token(i), "cat": "comm", "ph": "X", "pid": 0, "tid": P + d["rank"],
                       "ts": d["start"] * us, "dur": (d["end"] - d["start"]) * us, "args": d})
    for pid, mt in ((0, run.metrics), (1, rep.simulated_metrics)):
        for r, t0, t1 in zip(*(a.tolist() for a in mt.bubbles)):
            events.append({"name": "bubble", "cat": "bubble", "ph": "X", "pid": pid, "tid": r, "ts": t0 * us,
                           "dur": (t1 - t0) * us, "cname": "grey", "args": {"idle": t1 - t0}})
    steps = run.metrics.inflight
    for r, t, v in zip(steps.rank.tolist(), steps.time.tolist(), steps.value.tolist()):
        events.append({"name": f"in-flight rank {r}", "ph": "C", "pid": 0, "ts": t * us, "args": {"chunks": v}})
    summary = {"source": "trace", "P": P, "m": run.m, "V": run.V, "makespan_ms": run.metrics.makespan,
               "simulated_makespan_ms": rep.simulated_metrics.makespan, "gap_ms": rep.gap,
               "bubble_fraction": run.metrics.bubble_fraction}
    return json.dumps({"traceEvents": events, "displayTimeUnit": "ms", "otherData": summary})


def to_actions(rep: Report) -> str:
    """The order that ran, one line per rank in PyTorch's action notation, each rank's
    communication and bookkeeping actions where they ran (the order reader skips them)."""
    run = rep.run
    order, c = run.order, run.comm
    head = (f"# pipeviz: the order a profiled step ran, P={run.P} m={run.m} V={run.V}, placement {run.placement}; "
            f"read it back with --order FILE --placement {run.placement}")
    lines = [head]
    for r in range(run.P):
        items = [(float(run.start[i]), 1, order.token(i)) for i in range(int(order.rank_ptr[r]), int(order.rank_ptr[r + 1]))]
        items += [(float(c.start[j]), 0, c.token(j)) for j in range(int(c.rank_ptr[r]), int(c.rank_ptr[r + 1]))]
        items.sort(key=lambda x: (x[0], x[1]))
        lines.append(" ".join(t for _, _, t in items))
    return "\n".join(lines) + "\n"


def render(rep: Report, what: WhatIf, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(to_dict(rep, what))
    if fmt == "csv":
        return to_csv(rep)
    if fmt == "chrome-trace":
        return to_chrome_trace(rep)
    if fmt == "actions":
        return to_actions(rep)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


SHOWN_GAPS = 10


def show(rep: Report, what: WhatIf, width: int = 120) -> str:
    """The measured step and its model as text: numbers, gap lines, what if, both timelines."""
    run, costs = rep.run, rep.costs
    mt, sim = run.metrics, rep.simulated_metrics
    same = [f"{row.schedule} (V={row.V})" for row in what.rows if row.same_order]
    lines = [
        f"profiled step  P={run.P} m={run.m} V={run.V} placement {run.placement}  "
        + "  ".join(f"r{r}: {f}" for r, f in enumerate(run.files)),
        f"same order as       {', '.join(same) if same else 'no built-in schedule'}",
        f"makespan            {ms(mt.makespan)} ms measured, {ms(sim.makespan)} ms in the model (the same order at "
        f"the measured means, comm 0): gap {ms(rep.gap)} ms",
        f"bubble (one iter.)  {percent(mt.bubble_fraction)} measured, {percent(sim.bubble_fraction)} in the model",
        "busy / idle (ms)    " + "  ".join(f"r{r}: {ms(b)}/{ms(i)}" for r, (b, i) in enumerate(zip(mt.busy, mt.idle))),
        "peak in-flight      " + "  ".join(f"r{r}: {int(p)}" for r, p in enumerate(mt.peak_chunks))
        + (" chunks" if run.V > 1 else " micro-batches"),
        "measured (ms)       " + "  ".join(f"{k} {ms(costs.mean[k])} ({costs.count[k]} ops)"
                                           for k in MEASURED_KINDS if k in costs.mean),
    ]
    for s in range(run.order.S):
        parts = [f"{k} {ms(costs.stage_mean[s, j])}" for j, k in enumerate(STAGE_KINDS) if costs.stage_count[s, j]]
        lines.append(f"  stage {s} (rank {int(costs.stage_rank[s])})  " + "  ".join(parts)
                     + f"  work {ms(costs.stage_work[s])} per micro-batch, weight {costs.stage_weight[s]:.2f}")
    lines.append("imbalance           " + rep.imbalance.msg.text())
    lines.append(f"where the step loses time ({len(rep.gaps)} waits longer than the model's by over 1% of the "
                 "makespan, largest first):")
    lines += ["  " + g.msg.text() for g in rep.gaps[:SHOWN_GAPS]]
    if len(rep.gaps) > SHOWN_GAPS:
        lines.append(f"  ... {len(rep.gaps) - SHOWN_GAPS} more in the JSON export")
    if what.error is not None:
        lines.append(f"what if: {what.error.text()}")
    else:
        c = what.costs
        lines.append(f"what if (the measured costs per rank: t_f={ms(c.tf)} t_b={ms(c.tb)} t_w={ms(c.tw)}"
                     + (f" t_fb={ms(c.tfb)}" if c.tfb is not None else "") + " ms, comm 0"
                     + ("; " + template("trace.split_even") if what.split_even else "") + "):")
        for row in what.rows:
            label = f"{row.schedule} V={row.V}"
            if row.error is not None:
                lines.append(f"  {label:<16} {row.error.text()}")
            else:
                lines.append(f"  {label:<16} makespan {ms(row.makespan):>9} ms  bubble {percent(row.bubble_fraction):>7}"
                             f"  peak {row.peak_inflight_microbatches:g} mb  {ms(row.vs_measured):>9} ms against "
                             "the measured step" + ("  (the order that ran)" if row.same_order else ""))
    for title, tl in (("measured", run.timeline), ("model", rep.simulated)):
        view = SimpleNamespace(order=run.order, timeline=tl)
        lines += ["", f"{title}: one column is {column_width(view, width):g} ms; '/' is idle, X an overlapped F&B",
                  *timeline_text(view, width)]
    return "\n".join(lines)

