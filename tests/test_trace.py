"""Real steps, read: every trace PyTorch 2.13's own pipeline runtime wrote (the shared
three and tests/data/traces, made with /work/shared/tools/run_pp.py at other sizes
and schedules) against a reading of its raw events written here, with its own
timing of the order (docs/model.md's dependencies, as soon as possible), never by calling
the code under test. Then what the runtime's orders are in pipeviz's terms.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tracegen import load, rank_files, trace_dirs

from pipeviz import Config, run
from pipeviz.trace import read_traces, report, what_if

DIRS = trace_dirs()
V_SHAPED = {"ZBVZeroBubble", "DualPipeV"}

_COMPUTE = re.compile(r"([0-9]+)([FIBW])([0-9]+)")
_MOVE = re.compile(r"([0-9]+)(SEND_F|RECV_F|SEND_B|RECV_B)([0-9]+)|([0-9]+)(UNSHARD|RESHARD|REDUCE_GRAD)")


def raw(d: Path) -> dict:
    """The step as its raw events say, read here: per rank (from distributedInfo), its
    compute ops (op tuple, start µs, end µs) and its actions, each by start time."""
    ranks = {}
    for path in rank_files(d):
        t = load(path)
        r = t["distributedInfo"]["rank"]
        ops, acts = [], []
        for e in t["traceEvents"]:
            if e.get("ph") != "X":
                continue
            name = e["name"]
            start, end = e["ts"], e["ts"] + e["dur"]
            if name.startswith("PP:"):
                a = name[3:]
                if found := _COMPUTE.fullmatch(a):
                    ops.append(((found[2], int(found[3]), int(found[1])), start, end))
                elif a.endswith(")OVERLAP_F_B"):
                    parts = [_COMPUTE.fullmatch(p) for p in a[1:-len(")OVERLAP_F_B")].split(";")]
                    f = next(p for p in parts if p[2] == "F")
                    b = next(p for p in parts if p[2] == "B")
                    ops.append((("F&B", int(f[3]), int(f[1]), int(b[3]), int(b[1])), start, end))
                elif found := _MOVE.fullmatch(a):
                    acts.append((found[2] or found[5], start, end))
            elif name.startswith(("Forward ", "Backward ")):
                ops.append(((name[0], int(name.split()[1]), r), start, end))
        ranks[r] = (sorted(ops, key=lambda o: o[1]), sorted(acts, key=lambda a: a[1]))
    return ranks


def tok(op: tuple) -> str:
    return f"{op[2]}F{op[1]}&{op[4]}B{op[3]}" if op[0] == "F&B" else f"{op[2]}{op[0]}{op[1]}"


def expected(d: Path) -> dict:
    """Every number docs/reading.md defines, from the raw events."""
    ranks = raw(d)
    P = len(ranks)
    t0 = min(o[1] for r in ranks.values() for o in r[0])
    ops = [[(op, (s - t0) / 1000.0, (e - t0) / 1000.0) for op, s, e in ranks[r][0]] for r in range(P)]
    makespan = max(e for r in ops for _, _, e in r) - min(s for r in ops for _, s, _ in r)
    busy = []
    for r in ops:
        b = 0.0
        for _, s, e in r:
            b += e - s
        busy.append(b)
    idle = [makespan - b for b in busy]
    total, count = {}, {}
    for r in ops:
        for op, s, e in r:
            total[op[0]] = total.get(op[0], 0.0) + (e - s)
            count[op[0]] = count.get(op[0], 0) + 1
    means = {k: total[k] / count[k] for k in total}
    sim_start, sim_end = asap(ops, means)
    return {"P": P, "ops": ops, "tokens": [" ".join(tok(o[0]) for o in r) for r in ops], "makespan": makespan,
            "busy": busy, "idle": idle, "bubble": sum(idle) / (P * makespan), "means": means,
            "sim_start": sim_start, "sim_end": sim_end, "sim_makespan": max(max(r) for r in sim_end),
            "peaks": [peak(r) for r in ops], "acts": [ranks[r][1] for r in range(P)], "t0": t0}


def asap(ops: list[list[tuple]], means: dict) -> tuple[list[list[float]], list[list[float]]]:
    """Each rank's ops in its order, each as soon as its rank is free and its inputs are
    done (docs/model.md: F after the previous stage's F; a backward after the next stage's
    backward, or after the last stage's F; W after its I; an F&B after both parts'
    inputs), at the mean of its kind, comm 0."""
    S = 1 + max(s for r in ops for o, _, _ in r for s in ((o[2], o[4]) if o[0] == "F&B" else (o[2],)))
    done_f, done_b, done_i = {}, {}, {}
    start = [[None] * len(r) for r in ops]
    end = [[None] * len(r) for r in ops]
    nxt, free = [0] * len(ops), [0.0] * len(ops)
    left = sum(len(r) for r in ops)
    while left:
        moved = False
        for r, rank_ops in enumerate(ops):
            while nxt[r] < len(rank_ops):
                op = rank_ops[nxt[r]][0]
                need = []
                if op[0] in ("F", "F&B"):
                    need.append(done_f.get((op[1], op[2] - 1), None) if op[2] > 0 else 0.0)
                if op[0] in ("B", "I", "F&B"):
                    mb, s = (op[3], op[4]) if op[0] == "F&B" else (op[1], op[2])
                    need.append(done_b.get((mb, s + 1)) if s < S - 1 else done_f.get((mb, s)))
                if op[0] == "W":
                    need.append(done_i.get((op[1], op[2])))
                if any(x is None for x in need):
                    break
                t = max([free[r], *need])
                i = nxt[r]
                start[r][i], end[r][i] = t, t + means[op[0]]
                free[r] = end[r][i]
                if op[0] in ("F", "F&B"):
                    done_f[(op[1], op[2])] = end[r][i]
                if op[0] in ("B", "I"):
                    done_b[(op[1], op[2])] = end[r][i]
                if op[0] == "I":
                    done_i[(op[1], op[2])] = end[r][i]
                if op[0] == "F&B":
                    done_b[(op[3], op[4])] = end[r][i]
                nxt[r] += 1
                left -= 1
                moved = True
        assert moved, "the test's own timing deadlocked"
    return start, end


def peak(rank_ops: list[tuple]) -> int:
    """Peak chunks in flight: +1 when a forward starts, -1 when a chunk's last backward
    ends (B, W, or the backward half of an F&B)."""
    c = best = 0
    for op, _, _ in rank_ops:
        if op[0] in ("F", "F&B"):
            c += 1
            best = max(best, c)
        if op[0] in ("B", "W", "F&B"):
            c -= 1
    return best


@pytest.fixture(scope="module", params=DIRS, ids=lambda d: d.name)
def case(request):
    d = request.param
    files = rank_files(d)
    r = read_traces([str(p) for p in files])
    return d, expected(d), r, report(r)


def test_there_are_traces_of_every_kind_of_schedule():
    names = {json.loads((d / "run.json").read_text())["schedule"] for d in DIRS}
    assert names >= {"GPipe", "Interleaved1F1B", "ZBVZeroBubble", "InterleavedZeroBubble", "DualPipeV", "LoopedBFS"}


def test_the_order_and_every_op_time_are_the_raw_events(case):
    d, exp, r, _ = case
    meta = json.loads((d / "run.json").read_text())
    assert (r.P, r.m) == (meta["P"], meta["m"])
    assert r.V == (2 if meta["schedule"] in V_SHAPED else meta["V"])
    assert r.placement == ("v" if meta["schedule"] in V_SHAPED else "loop")
    assert r.order.to_text().splitlines() == exp["tokens"]
    assert r.start.tolist() == [s for rank in exp["ops"] for _, s, _ in rank]
    assert r.end.tolist() == [e for rank in exp["ops"] for _, _, e in rank]
    assert r.t0_us == exp["t0"]


def test_makespan_busy_idle_bubble_and_peaks(case):
    _, exp, r, _ = case
    mt = r.metrics
    assert mt.makespan == exp["makespan"]
    assert mt.busy.tolist() == exp["busy"]
    assert mt.idle.tolist() == exp["idle"]
    assert mt.bubble_fraction == pytest.approx(exp["bubble"], rel=1e-12)
    assert mt.peak_chunks.tolist() == exp["peaks"]


def test_measured_costs_and_the_model_of_the_same_order(case):
    _, exp, r, rep = case
    assert rep.costs.mean == {k: exp["means"][k] for k in ("F", "I", "W", "B", "F&B") if k in exp["means"]}
    assert rep.simulated.start.tolist() == [s for rank in exp["sim_start"] for s in rank]
    assert rep.simulated.end.tolist() == [e for rank in exp["sim_end"] for e in rank]
    assert rep.simulated_metrics.makespan == exp["sim_makespan"]
    assert rep.gap == exp["makespan"] - exp["sim_makespan"]


def test_each_wait_longer_than_the_model_is_named_with_what_filled_it(case):
    """Every op whose wait (from its rank's previous op) exceeds the model's by more
    than 1% of the makespan is a gap line, and the line names the action that covers
    most of that wait, or nothing recorded."""
    _, exp, r, rep = case
    want = {}
    for rank, ops in enumerate(exp["ops"]):
        prev = s_prev = 0.0
        for i, (op, s, e) in enumerate(ops):
            excess = (s - prev) - (exp["sim_start"][rank][i] - s_prev)
            if excess > 0.01 * exp["makespan"]:
                covered = {}
                for kind, a, b in exp["acts"][rank]:
                    part = min((b - exp["t0"]) / 1000.0, s) - max((a - exp["t0"]) / 1000.0, prev)
                    if part > 0:
                        covered[(kind, a)] = part
                best = max(covered.items(), key=lambda kv: kv[1], default=(None, 0.0))
                bare = (s - prev) - sum(covered.values())
                want[(rank, tok(op))] = ("none" if best[0] is None or bare > best[1] else best[0][0], excess)
            prev, s_prev = e, exp["sim_end"][rank][i]
    got = {}
    for g in rep.gaps:
        kind = "none" if g.comm < 0 else r.comm.token(g.comm)
        got[(g.rank, r.order.token(g.op))] = (re.sub(r"^[0-9]+|[0-9]+$", "", kind), g.excess)
    assert got.keys() == want.keys()
    for key in want:
        assert got[key][0] == want[key][0], key
        assert got[key][1] == pytest.approx(want[key][1], rel=1e-9)
    excesses = [g.excess for g in rep.gaps]
    assert excesses == sorted(excesses, reverse=True)


def test_what_if_times_every_schedule_at_the_measured_costs(case):
    _, exp, r, rep = case
    w = what_if(rep)
    c = r.V
    assert w.costs.tf == pytest.approx(exp["means"]["F"] * c, rel=1e-12)
    if "I" in exp["means"]:
        assert (w.costs.tb, w.costs.tw) == pytest.approx((exp["means"]["I"] * c, exp["means"]["W"] * c), rel=1e-12)
    else:
        assert w.split_even and w.costs.tb == w.costs.tw == pytest.approx(exp["means"]["B"] * c / 2, rel=1e-12)
    for row in w.rows:
        if row.error is not None:
            continue
        ref = run(Config(row.schedule, r.P, r.m, row.V, w.costs))
        assert row.makespan == ref.metrics.makespan
        assert row.vs_measured == row.makespan - exp["makespan"]
        # The order that ran, at the same means, is the model of this run; unless the run
        # has full and split backwards both (DualPipe-V), whose full one a schedule
        # prices t_b + t_w, not at its own mean.
        if row.same_order and not {"B", "I"} <= exp["means"].keys():
            assert row.makespan == pytest.approx(exp["sim_makespan"], rel=1e-9)


# -- what PyTorch 2.13's runtime ran, in pipeviz's terms -------------------------------

SAME_ORDER = {  # trace -> the pipeviz schedule whose order it is, op for op
    "torch-Interleaved1F1B-P2-m4-V2": "interleaved", "torch-Interleaved1F1B-P2-m6-V3": "interleaved",
    "torch-Interleaved1F1B-P3-m5-V2": "interleaved", "torch-ZBVZeroBubble-P2-m4": "zb-v",
    "torch-ZBVZeroBubble-P3-m6": "zb-v", "torch-DualPipeV-P2-m4": "dualpipe-v", "torch-GPipe-P3-m4": "gpipe",
}


def test_which_runs_are_pipeviz_schedules_op_for_op(case):
    d, _, r, rep = case
    same = {row.schedule for row in what_if(rep).rows if row.same_order}
    assert same == ({SAME_ORDER[d.name]} if d.name in SAME_ORDER else set())


V1 = [d for d in DIRS if json.loads((d / "run.json").read_text())["schedule"] == "Interleaved1F1B"
      and json.loads((d / "run.json").read_text())["V"] == 1]


@pytest.mark.parametrize("d", V1, ids=lambda d: d.name)
def test_pytorchs_interleaved_runtime_at_v1_warms_up_twice_as_long_as_1f1b(d):
    """The brief this project began from says 1F1B's order comes from the interleaved runtime at V=1. It does
    not: PyTorch 2.13 runs min(2(P-1-r), m) warm-up forwards there, 1F1B P-1-r, so
    its peak in flight is higher. pipeviz times the order that ran."""
    r = read_traces([str(p) for p in rank_files(d)])
    P, m = r.P, r.m
    for rank in range(P):
        kinds = [r.order.op(i)[0] for i in range(int(r.order.rank_ptr[rank]), int(r.order.rank_ptr[rank + 1]))]
        assert kinds.index("B") == min(2 * (P - 1 - rank) + 1, m)  # warm-up forwards, then one more F before B
    one_f_one_b = run(Config("1f1b", P, m))
    assert r.metrics.peak_chunks.tolist() != one_f_one_b.metrics.peak_chunks.tolist()
