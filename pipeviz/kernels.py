"""The engine's inner loops, in one module: building an order, checking it, its
dependencies, timing it, measuring it, what a gap waits for, the timeline's level of
detail, the encoder's placement, and the greedy passes that V-Half's, V-Min's and
ZB-H2's orders come from.

This file is plain Python, and runs as such. At install, Cython compiles it into the
extension `pipeviz._kernels` (setup.py), with the C types `kernels.pxd` declares: the
same loops, run as C, with nothing compiled when pipeviz starts. `pipeviz.compiled`
picks the extension when it was built from this very file, else this file.

Each function here takes and returns numpy arrays and numbers only. The rules they
follow (docs/model.md's dependencies, ASAP timing, in-flight counts, ...) are explained in
the module that calls them: order.py, simulate.py, metrics.py, causes.py, view/lod.py,
encoder.py, schedules/building_blocks.py, schedules/zb_h2.py. Written so that compiled
and plain runs agree to the bit: plain loops, no numpy reductions whose summation order
could differ, floats combined in the order the JavaScript twin (static/) combines them.

In the compiled build an array argument is a typed memoryview: a local that holds an
array to return is kept apart (`*_a`) from the view it is filled through. Arrays are
made with np.empty or np.zeros and filled (`.fill`): np.full is Python code, and at
small sizes each call costs as much as the loop.
"""

from __future__ import annotations

import numpy as np

# Op kinds, as pipeviz.order numbers them (it takes them from here).
F, B, I, W, FB, EF, EB = 0, 1, 2, 3, 4, 5, 6  # noqa: E741 (I is PyTorch's name for the input-gradient backward)
KINDS = (F, B, I, W, FB, EF, EB)
N_KINDS = 7

# What check_order finds (the first problem, in this order of checks).
(OK, BAD_PLACEMENT, BAD_RANGE, BAD_RANK, MISSING_F, TWICE_F, MISSING_B, TWICE_B, TWICE_W, MISSING_W, STRAY_W,
 ENCODER_MISSING, ENCODER_TWICE) = range(13)

# What step_events counts. In flight: +1 when a forward starts, -1 when a chunk's last
# backward op ends (B, W, or the backward half of an F&B). Awaiting B: the same, but
# -1 when its B or I ends. Awaiting W only: +1 when an I ends, -1 when its W ends.
INFLIGHT, AWAITING_B, AWAITING_W = 0, 1, 2


def _delta_table():
    """(mode, start 0 / end 1, op kind): what one op adds to the count step_events keeps."""
    table = np.zeros((3, 2, N_KINDS), np.int64)
    for mode in (INFLIGHT, AWAITING_B):
        table[mode, 0, [F, FB]] = 1
    table[INFLIGHT, 1, [B, W, FB]] = -1
    table[AWAITING_B, 1, [B, I, FB]] = -1
    table[AWAITING_W, 1, I] = 1
    table[AWAITING_W, 1, W] = -1
    return table


DELTA = _delta_table()
INT64_MIN = -(2**63)


def floor_int(x):
    """floor(x) as an integer, for x well within int64's range (no math module: the
    compiled build keeps it in C)."""
    t = int(x)
    return t - 1 if t > x else t


# -- building an order (pipeviz.order.OrderBuilder) ----------------------------------


def steps(counts, P):
    """(rank, step) of every step when rank r runs counts[r] steps (counts has P
    entries, or one for every rank; a negative count is none)."""
    one = counts.shape[0] != P
    n = 0
    for r in range(P):
        c = counts[0] if one else counts[r]
        if c > 0:
            n += c
    rank_a = np.empty(n, np.int64)
    step_a = np.empty(n, np.int64)
    rank = rank_a
    step = step_a
    at = 0
    for r in range(P):
        c = counts[0] if one else counts[r]
        for i in range(c):
            rank[at] = r
            step[at] = i
            at += 1
    return rank_a, step_a


def build_order(P, phases, keep_below):
    """OrderBuilder.build: the phases' ops (each phase its steps' ranks and the ops
    one step runs; each op (kind, mb, stage) or (kind, mb, stage, mb2, stage2), every
    value an integer or an array over the steps) laid out as `pack` reads them, then
    packed. Done here rather than with a numpy assignment per value: at small sizes
    each of those cost more than the copy."""
    total = 0
    for rank_steps, ops in phases:
        total += rank_steps.shape[0] * len(ops)
    parts_a = np.empty((6, total), np.int64)
    dims_a = np.empty((len(phases), 2), np.int64)
    parts = parts_a
    dims = dims_a
    base = 0
    p = 0
    for rank_steps, ops in phases:
        rank = rank_steps
        n = rank.shape[0]
        k = len(ops)
        dims[p, 0] = n
        dims[p, 1] = k
        p += 1
        for j in range(k):
            op = ops[j]
            at = base + j * n
            for t in range(n):
                parts[0, at + t] = rank[t]
                parts[4, at + t] = -1
                parts[5, at + t] = -1
            for c in range(len(op)):
                value = op[c]
                if isinstance(value, np.ndarray):
                    column = np.ascontiguousarray(value, dtype=np.int64).reshape(-1)
                    if column.shape[0] == 1:
                        value = column[0]
                    elif column.shape[0] != n:
                        raise ValueError(f"emit: {column.shape[0]} values for {n} steps")
                if isinstance(value, np.ndarray):
                    values = column
                    for t in range(n):
                        parts[1 + c, at + t] = values[t]
                else:
                    one = int(value)
                    for t in range(n):
                        parts[1 + c, at + t] = one
        base += n * k
    return pack(parts_a, dims_a, P, keep_below)


def pack(parts, phases, P, keep_below):
    """The steps' ops rank by rank, each rank's in emission order (a stable counting
    sort), dropping ops of micro-batches >= keep_below (if keep_below >= 0).
    parts: rows rank, kind, mb, stage, mb2, stage2; phase by phase, a block of k
    rows of n steps (`emit`), so op j of step t is at column j * n + t."""
    n_all = parts.shape[1]
    src_a = np.empty(n_all, np.int64)  # columns in emission order
    src = src_a
    at = 0
    base = 0
    for p in range(phases.shape[0]):
        n = phases[p, 0]
        k = phases[p, 1]
        for t in range(n):
            for j in range(k):
                src[at] = base + j * n + t
                at += 1
        base += n * k
    keep_a = np.ones(n_all, np.uint8)
    keep = keep_a
    if keep_below >= 0:
        for i in range(n_all):
            keep[i] = parts[2, i] < keep_below and parts[4, i] < keep_below
    rank_ptr_a = np.zeros(P + 1, np.int64)
    rank_ptr = rank_ptr_a
    for i in range(n_all):
        if keep[i]:
            rank_ptr[parts[0, i] + 1] += 1
    for r in range(P):
        rank_ptr[r + 1] += rank_ptr[r]
    nxt_a = np.empty(P, np.int64)
    nxt = nxt_a
    for r in range(P):
        nxt[r] = rank_ptr[r]
    total = rank_ptr[P]
    kind_a = np.empty(total, np.int8)
    mb_a = np.empty(total, np.int64)
    stage_a = np.empty(total, np.int64)
    mb2_a = np.empty(total, np.int64)
    stage2_a = np.empty(total, np.int64)
    o_kind = kind_a
    o_mb = mb_a
    o_stage = stage_a
    o_mb2 = mb2_a
    o_stage2 = stage2_a
    for e in range(n_all):
        i = src[e]
        if keep[i]:
            r = parts[0, i]
            j = nxt[r]
            nxt[r] = j + 1
            o_kind[j] = parts[1, i]
            o_mb[j] = parts[2, i]
            o_stage[j] = parts[3, i]
            o_mb2[j] = parts[4, i]
            o_stage2[j] = parts[5, i]
    return kind_a, mb_a, stage_a, mb2_a, stage2_a, rank_ptr_a


# -- checking and timing an order (pipeviz.simulate) ---------------------------------


def kind_costs(tf, tb, tw, fb, chunks):
    """Each kind's cost, as a rank's share over its chunks (kind codes index it)."""
    per_kind_a = np.empty(N_KINDS)
    per_kind = per_kind_a
    per_kind[F] = tf / chunks
    per_kind[B] = (tb + tw) / chunks
    per_kind[I] = tb / chunks
    per_kind[W] = tw / chunks
    per_kind[FB] = fb / chunks
    per_kind[EF] = 0.0 / chunks
    per_kind[EB] = 0.0 / chunks
    return per_kind_a


def durations(kind, stage, stage2, per_kind, f_part, b_part, w, weighted):
    """(N,) duration of each op. An overlapped F&B runs the forward of `stage` and the
    full backward of `stage2` as one op of t_fb. Its parts may sit on stages of
    different weight, so t_fb is scaled by their weighted mix: each part weighs what
    it costs alone (f_part = t_f, b_part = t_b + t_w). Equal weights leave t_fb as it is."""
    n = kind.shape[0]
    dur_a = np.empty(n)
    dur = dur_a
    for i in range(n):
        k = kind[i]
        d = per_kind[k]
        if weighted:
            if k == FB:
                d *= (f_part * w[stage[i]] + b_part * w[stage2[i]]) / (f_part + b_part)
            elif stage[i] >= 0:  # encoder ops belong to no stage
                d *= w[stage[i]]
        dur[i] = d
    return dur_a


def check_order(kind, mb, stage, mb2, stage2, rank_ptr, stage_to_rank, m):
    """(problem, op, mb, stage, count) of the first problem, or (OK, ...): ops in
    index order for range and placement, then (mb, stage) in row-major order for the
    counts of each role, then micro-batches for the encoder ops."""
    S = stage_to_rank.shape[0]
    N = kind.shape[0]
    P = rank_ptr.shape[0] - 1
    for s in range(S):
        if stage_to_rank[s] < 0 or stage_to_rank[s] >= P:
            return BAD_PLACEMENT, -1, 0, s, 0
    for r in range(P):
        for i in range(rank_ptr[r], rank_ptr[r + 1]):
            k = kind[i]
            enc = k == EF or k == EB
            bad = k < 0 or k >= N_KINDS or mb[i] < 0 or mb[i] >= m
            if not enc and (stage[i] < 0 or stage[i] >= S):
                bad = True
            if k == FB and (mb2[i] < 0 or mb2[i] >= m or stage2[i] < 0 or stage2[i] >= S):
                bad = True
            if bad:
                return BAD_RANGE, i, 0, 0, 0
    for r in range(P):
        for i in range(rank_ptr[r], rank_ptr[r + 1]):
            k = kind[i]
            if k == EF or k == EB:
                continue
            if stage_to_rank[stage[i]] != r:
                return BAD_RANK, i, 0, stage[i], 0
            if k == FB and stage_to_rank[stage2[i]] != r:
                return BAD_RANK, i, 0, stage2[i], 0
    fwd_a = np.zeros(m * S, np.int64)
    bwd_a = np.zeros(m * S, np.int64)
    has_i_a = np.zeros(m * S, np.int64)
    has_w_a = np.zeros(m * S, np.int64)
    enc_a = np.zeros((2, m), np.int64)
    fwd = fwd_a
    bwd = bwd_a
    has_i = has_i_a
    has_w = has_w_a
    enc_n = enc_a
    for i in range(N):
        k = kind[i]
        j = mb[i] * S + stage[i]
        if k == F:
            fwd[j] += 1
        elif k == B:
            bwd[j] += 1
        elif k == I:
            bwd[j] += 1
            has_i[j] += 1
        elif k == W:
            has_w[j] += 1
        elif k == FB:
            fwd[j] += 1
            bwd[mb2[i] * S + stage2[i]] += 1
        else:
            enc_n[k - EF, mb[i]] += 1
    for j in range(m * S):
        if fwd[j] != 1:
            return (MISSING_F if fwd[j] == 0 else TWICE_F), -1, j // S, j % S, fwd[j]
    for j in range(m * S):
        if bwd[j] != 1:
            return (MISSING_B if bwd[j] == 0 else TWICE_B), -1, j // S, j % S, bwd[j]
    for j in range(m * S):
        if has_w[j] > 1:
            return TWICE_W, -1, j // S, j % S, has_w[j]
        if has_w[j] != has_i[j]:
            return (MISSING_W if has_i[j] else STRAY_W), -1, j // S, j % S, has_w[j]
    any_ef = False
    any_eb = False
    for e in range(2):
        used = False
        for b in range(m):
            used = used or enc_n[e, b] != 0
        if e == 0:
            any_ef = used
        else:
            any_eb = used
        if used:
            for b in range(m):
                if enc_n[e, b] != 1:
                    return (ENCODER_MISSING if enc_n[e, b] == 0 else ENCODER_TWICE), -1, b, EF + e, enc_n[e, b]
    if not any_ef and any_eb:
        return ENCODER_MISSING, -1, 0, EF, 0
    return OK, -1, 0, 0, 0


def dependencies(kind, mb, stage, mb2, stage2, rank_ptr, m, S, comm, seg, has_seg):
    """Each op's dependencies, CSR style (ptr, idx, lag): its forward part's, then its
    backward part's, then the segment barriers (see pipeviz.simulate)."""
    N = kind.shape[0]
    P = rank_ptr.shape[0] - 1
    rank_a = np.empty(N, np.int64)
    rank = rank_a
    for r in range(P):
        for i in range(rank_ptr[r], rank_ptr[r + 1]):
            rank[i] = r
    # Which op produces each (mb, stage)'s forward activation and input gradient.
    fwd_a = np.empty(m * S, np.int64)
    fwd_a.fill(-1)
    bwd_a = np.empty(m * S, np.int64)
    bwd_a.fill(-1)
    enc_f_a = np.empty(m, np.int64)
    enc_f_a.fill(-1)
    fwd = fwd_a
    bwd = bwd_a
    enc_f = enc_f_a
    for i in range(N):
        k = kind[i]
        if k == F or k == FB:
            fwd[mb[i] * S + stage[i]] = i
        if k == B or k == I:
            bwd[mb[i] * S + stage[i]] = i
        if k == EF:
            enc_f[mb[i]] = i
    for i in range(N):
        if kind[i] == FB:
            bwd[mb2[i] * S + stage2[i]] = i
    # Segment barriers: the first op of segment k on a rank waits for the last op of
    # the earlier segments on every rank that has one.
    lo = 0
    n_seg = 0
    if has_seg and N > 0:
        lo = seg[0]
        hi = seg[0]
        for i in range(N):
            if seg[i] < lo:
                lo = seg[i]
            if seg[i] > hi:
                hi = seg[i]
        n_seg = hi - lo + 1
    first_a = np.empty((P, n_seg), np.int64)  # first op of segment k on rank r
    first_a.fill(-1)
    last_lt_a = np.empty((P, n_seg), np.int64)  # last op of the segments before k on rank r
    last_lt_a.fill(-1)
    first = first_a
    last_lt = last_lt_a
    if n_seg > 0:
        last_eq_a = np.empty((P, n_seg), np.int64)
        last_eq_a.fill(-1)
        last_eq = last_eq_a
        for i in range(N):
            k = seg[i] - lo
            if first[rank[i], k] < 0:
                first[rank[i], k] = i
            last_eq[rank[i], k] = i
        for r in range(P):
            for k in range(1, n_seg):
                last_lt[r, k] = max(last_lt[r, k - 1], last_eq[r, k - 1])
    cap = 2 * N + P * P * n_seg
    ptr_a = np.zeros(N + 1, np.int64)
    idx_a = np.empty(cap, np.int64)
    lag_a = np.empty(cap, np.float64)
    ptr = ptr_a
    idx = idx_a
    lag = lag_a
    n = 0
    for i in range(N):
        k = kind[i]
        if k == F or k == FB:  # forward part: the previous stage, or the encoder
            d = fwd[mb[i] * S + stage[i] - 1] if stage[i] > 0 else enc_f[mb[i]]
            if d >= 0:
                idx[n] = d
                lag[n] = comm if rank[d] != rank[i] else 0.0
                n += 1
        if k == B or k == I or k == FB:  # backward part: the next stage, or the last forward
            b_mb = mb2[i] if k == FB else mb[i]
            b_st = stage2[i] if k == FB else stage[i]
            d = bwd[b_mb * S + b_st + 1] if b_st < S - 1 else fwd[b_mb * S + S - 1]
            if d >= 0:
                idx[n] = d
                lag[n] = comm if rank[d] != rank[i] else 0.0
                n += 1
        if k == W or k == EB:  # W after its I; EB after the backward of stage 0
            d = bwd[mb[i] * S + stage[i]] if k == W else bwd[mb[i] * S]
            if d >= 0:
                idx[n] = d
                lag[n] = comm if rank[d] != rank[i] else 0.0
                n += 1
        if n_seg > 0:
            ks = seg[i] - lo
            if first[rank[i], ks] == i:
                for r in range(P):
                    if last_lt[r, ks] >= 0 and n < cap:  # P*P*n_seg bounds it
                        idx[n] = last_lt[r, ks]
                        lag[n] = 0.0
                        n += 1
        ptr[i + 1] = n
    return ptr_a, idx_a[:n].copy(), lag_a[:n].copy()


def asap(rank_ptr, dur, dep_ptr, dep_idx, dep_lag, start, end):
    """Fill start and end, walking the ranks round-robin; return each rank's next
    untimed op (its end if done)."""
    P = rank_ptr.shape[0] - 1
    nxt_a = np.empty(P, np.int64)
    nxt = nxt_a
    for r in range(P):
        nxt[r] = rank_ptr[r]
    free_a = np.zeros(P)
    free = free_a
    timed_a = np.zeros(dur.shape[0], np.uint8)
    timed = timed_a
    left = dur.shape[0]
    while left > 0:
        moved = False
        for r in range(P):
            i = nxt[r]
            hi = rank_ptr[r + 1]
            t_free = free[r]
            while i < hi:
                t = t_free
                ready = True
                for k in range(dep_ptr[i], dep_ptr[i + 1]):
                    d = dep_idx[k]
                    if not timed[d]:
                        ready = False
                        break
                    at = end[d] + dep_lag[k]
                    if at > t:
                        t = at
                if not ready:
                    break
                start[i] = t
                t_free = t + dur[i]
                end[i] = t_free
                timed[i] = 1
                i += 1
            if i != nxt[r]:
                moved = True
                left -= i - nxt[r]
                nxt[r] = i
                free[r] = t_free
        if not moved:
            break
    return nxt_a


def time_order(kind, mb, stage, mb2, stage2, rank_ptr, stage_to_rank, m, check, comm, seg, has_seg,
               given, has_given, tf, tb, tw, fb, chunks, w, weighted):
    """`simulate` in one call: (problem, deps ptr, idx, lag, start, end, each rank's
    next untimed op, whether some rank is stuck); on a problem, empty arrays. Ops are
    priced from the costs (tf .. chunks) unless durations are given."""
    N = kind.shape[0]
    problem = (OK, -1, 0, 0, 0)
    if check:
        problem = check_order(kind, mb, stage, mb2, stage2, rank_ptr, stage_to_rank, m)
    if problem[0] != OK:
        none = np.zeros(0, np.int64)
        no_time = np.zeros(0)
        return problem, none, none, no_time, no_time, no_time, none, False
    ptr, idx, lag = dependencies(kind, mb, stage, mb2, stage2, rank_ptr, m, stage_to_rank.shape[0], comm, seg,
                                 has_seg)
    if has_given:
        dur = given
    else:
        dur = durations(kind, stage, stage2, kind_costs(tf, tb, tw, fb, chunks), tf, tb + tw, w, weighted)
    start_a = np.zeros(N)
    end_a = np.zeros(N)
    nxt_a = asap(rank_ptr, dur, ptr, idx, lag, start_a, end_a)
    nxt = nxt_a
    stuck = False
    for r in range(rank_ptr.shape[0] - 1):
        stuck = stuck or nxt[r] < rank_ptr[r + 1]
    return problem, ptr, idx, lag, start_a, end_a, nxt_a, stuck


# -- measuring a timeline (pipeviz.metrics) ------------------------------------------


def measure_timeline(kind, start, end, ptr, chunks):
    """`measure`'s numbers and arrays: makespan, the longest span, busy, idle and span
    per rank, the idle intervals, in-flight chunks (steps, peak in chunks and in
    micro-batches, the event of the peak) and, where some backward is split (a W
    op), `awaiting`'s; else None."""
    n = start.shape[0]
    makespan = 0.0
    if n > 0:
        hi = end[0]
        lo = start[0]
        for i in range(n):
            if end[i] > hi:
                hi = end[i]
            if start[i] < lo:
                lo = start[i]
        makespan = hi - lo
    busy_a, span_a = busy_span(start, end, ptr)
    bubbles = idle_gaps(start, end, ptr, makespan, 1e-9 * max(makespan, 1.0))
    _, rank, time, value, peak_a, at_peak = step_events(kind, INFLIGHT, start, end, ptr)
    P = ptr.shape[0] - 1
    busy = busy_a
    span = span_a
    peak = peak_a
    longest = 0.0
    if P > 0:
        longest = span[0]
        for r in range(P):
            if span[r] > longest:
                longest = span[r]
    idle_a = np.empty(P)
    peak_mb_a = np.empty(P)
    idle = idle_a
    peak_mb = peak_mb_a
    for r in range(P):
        idle[r] = makespan - busy[r]
        peak_mb[r] = peak[r] / chunks
    split = False
    for i in range(kind.shape[0]):
        if kind[i] == W:
            split = True
            break
    waits = awaiting(kind, start, end, ptr, at_peak) if split else None
    return makespan, longest, busy_a, idle_a, span_a, bubbles, (rank, time, value), peak_a, peak_mb_a, waits


def awaiting(kind, start, end, ptr, at_peak):
    """For a split backward: the steps of the chunks awaiting B and awaiting W, and
    their counts at each rank's in-flight peak."""
    c_b_a, rank_b, time_b, value_b, _, _ = step_events(kind, AWAITING_B, start, end, ptr)
    c_w_a, rank_w, time_w, value_w, _, _ = step_events(kind, AWAITING_W, start, end, ptr)
    P = at_peak.shape[0]
    at_b_a = np.empty(P, np.int64)
    at_w_a = np.empty(P, np.int64)
    c_b = c_b_a
    c_w = c_w_a
    at_b = at_b_a
    at_w = at_w_a
    for r in range(P):
        at_b[r] = c_b[at_peak[r]]
        at_w[r] = c_w[at_peak[r]]
    return (rank_b, time_b, value_b), (rank_w, time_w, value_w), at_b_a, at_w_a


def busy_span(start, end, ptr):
    """(P,) busy time (durations summed in op order) and span (first start to last end) per rank."""
    P = ptr.shape[0] - 1
    busy_a = np.zeros(P)
    span_a = np.zeros(P)
    busy = busy_a
    span = span_a
    for r in range(P):
        for i in range(ptr[r], ptr[r + 1]):
            busy[r] += end[i] - start[i]
        if ptr[r + 1] > ptr[r]:
            span[r] = end[ptr[r + 1] - 1] - start[ptr[r]]
    return busy_a, span_a


def idle_gaps(start, end, ptr, makespan, tol):
    """(rank, start, end) of every idle gap longer than tol. A rank's ops run in order,
    so its gaps come out in time order: before each op (from the previous op's end,
    or 0), then after its last op until the makespan."""
    P = ptr.shape[0] - 1
    n = start.shape[0] + P
    who_a = np.empty(n, np.int64)
    lo_a = np.empty(n)
    hi_a = np.empty(n)
    who = who_a
    lo = lo_a
    hi = hi_a
    k = 0
    for r in range(P):
        prev = 0.0
        for i in range(ptr[r], ptr[r + 1]):
            if start[i] - prev > tol:
                who[k] = r
                lo[k] = prev
                hi[k] = start[i]
                k += 1
            prev = end[i]
        if makespan - prev > tol:
            who[k] = r
            lo[k] = prev
            hi[k] = makespan
            k += 1
    return who_a[:k].copy(), lo_a[:k].copy(), hi_a[:k].copy()


def step_events(kind, count_of, start, end, ptr):
    """Per op, a start event then an end event (`DELTA` of what is counted), rank by
    rank: the running count after each event; the step function of the changes, keeping
    the last of simultaneous ones on a rank (a chunk freed and the next taken at the
    same instant is no dip); each rank's peak (at least 0) and the event where the
    rank first reaches it."""
    P = ptr.shape[0] - 1
    n = 2 * start.shape[0]
    count_a = np.empty(n, np.int64)
    s_rank_a = np.empty(n, np.int64)
    s_time_a = np.empty(n)
    s_value_a = np.empty(n, np.int64)
    peak_a = np.zeros(P, np.int64)
    at_peak_a = np.zeros(P, np.int64)
    count = count_a
    s_rank = s_rank_a
    s_time = s_time_a
    s_value = s_value_a
    peak = peak_a
    at_peak = at_peak_a
    delta = DELTA
    k = 0
    for r in range(P):
        c = 0  # each rank from 0: a full order ends every rank at 0, the ops that ran of a deadlocked one need not
        best = INT64_MIN
        for i in range(ptr[r], ptr[r + 1]):
            for h in range(2):  # the op's start event, then its end event
                e = 2 * i + h
                d = delta[count_of, h, kind[i]]
                t = start[i] if h == 0 else end[i]
                c += d
                count[e] = c
                if c > best:
                    best = c
                    at_peak[r] = e
                if d != 0:
                    if k > 0 and s_rank[k - 1] == r and s_time[k - 1] == t:
                        k -= 1  # simultaneous with the last change: keep only the later one
                    s_rank[k] = r
                    s_time[k] = t
                    s_value[k] = c
                    k += 1
        if ptr[r + 1] > ptr[r]:
            peak[r] = max(best, 0)
    return count_a, s_rank_a[:k].copy(), s_time_a[:k].copy(), s_value_a[:k].copy(), peak_a, at_peak_a


# -- why the timeline looks as it does (pipeviz.causes) ------------------------------

NONE = -1


def gap_waits(rank_ptr, op_rank, start, end, dep_ptr, dep_idx, dep_lag, gap_rank, gap_end, tol):
    """For each gap (its rank and end), the op it waits for: the dependency on another
    rank whose end plus lag is latest, else the op after the gap; NONE for a trailing gap."""
    n_gaps = gap_rank.shape[0]
    out_a = np.empty(n_gaps, np.int64)
    out_a.fill(NONE)
    out = out_a
    for g in range(n_gaps):
        r = gap_rank[g]
        # The first op of the rank starting at or after the gap's end (less tol): a
        # rank's starts ascend, so a binary search (numpy's searchsorted, side left).
        x = gap_end[g] - tol
        lo = rank_ptr[r]
        hi = rank_ptr[r + 1]
        while lo < hi:
            mid = (lo + hi) // 2
            if start[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        i = lo
        if i >= rank_ptr[r + 1]:
            continue  # a trailing gap: it waits for the iteration's end
        out[g] = i
        found = False
        best = 0.0
        for k in range(dep_ptr[i], dep_ptr[i + 1]):
            dep = dep_idx[k]
            if op_rank[dep] != op_rank[i] and (not found or end[dep] + dep_lag[k] > best):
                found = True
                best = end[dep] + dep_lag[k]
                out[g] = dep
    return out_a


def walk_back(rank_ptr, rank, start, end, dep_ptr, dep_idx, dep_lag, last, tol):
    """One critical path from op `last` back to time 0, in time order."""
    path_a = np.empty(end.shape[0], np.int64)
    path = path_a
    n = 0
    i = last
    while True:
        path[n] = i
        n += 1
        if start[i] <= tol or n >= end.shape[0]:
            break
        nxt = -1
        for k in range(dep_ptr[i], dep_ptr[i + 1]):
            d = dep_idx[k]
            if abs(end[d] + dep_lag[k] - start[i]) <= tol:
                nxt = d
                break
        if nxt < 0 and i > rank_ptr[rank[i]] and abs(end[i - 1] - start[i]) <= tol:
            nxt = i - 1
        if nxt < 0:  # cannot happen in an ASAP timeline; stop rather than loop
            break
        i = nxt
    return path_a[:n][::-1].copy()


# -- the timeline's level of detail (pipeviz.view.lod) -------------------------------


def thin(x, y, lo, hi, unit):
    """Indices of the vertices kept: per column `unit` wide from lo, the first, lowest,
    highest and last; outside [lo, hi], only the vertex next to it on either side."""
    n = x.shape[0]
    keep_a = np.empty(n, np.int64)
    keep = keep_a
    k = 0
    i = 0
    while i < n and x[i] < lo:
        i += 1
    if i > 0:
        keep[0] = i - 1
        k = 1
    while i < n and x[i] <= hi:
        c = floor_int((x[i] - lo) / unit)
        low = i
        high = i
        j = i + 1
        while j < n and x[j] <= hi and floor_int((x[j] - lo) / unit) == c:
            if y[j] < y[low]:
                low = j
            if y[j] > y[high]:
                high = j
            j += 1
        for h in range(4):
            if h == 0:
                v = i
            elif h == 1:
                v = min(low, high)
            elif h == 2:
                v = max(low, high)
            else:
                v = j - 1
            if k == 0 or keep[k - 1] != v:
                keep[k] = v
                k += 1
        i = j
    if i < n:
        keep[k] = i
        k += 1
    return keep_a[:k].copy()


def level(start, end, rank_ptr, color, n_colors, lo, hi, unit):
    """The boxes (rep, left, right, color, count) for the window [lo, hi] with bins
    `unit` wide: wide ops alone, narrow ones binned and merged into runs of a colour."""
    n = start.shape[0]
    rep_a = np.empty(n, np.int64)
    left_a = np.empty(n)
    right_a = np.empty(n)
    col_a = np.empty(n, np.int64)
    count_a = np.empty(n, np.int64)
    sums_a = np.zeros(n_colors)
    rep = rep_a
    left = left_a
    right = right_a
    col = col_a
    count = count_a
    sums = sums_a
    k = 0
    for r in range(rank_ptr.shape[0] - 1):
        in_bin = False  # a bin of narrow ops is being filled
        b_idx = 0
        b_first = 0
        b_last = 0
        b_count = 0
        run_open = False  # the last box emitted is a run of bins that may grow
        run_bin = 0
        for i in range(rank_ptr[r], rank_ptr[r + 1] + 1):
            last = i == rank_ptr[r + 1]
            skip = last or end[i] < lo or start[i] > hi
            wide = not skip and end[i] - start[i] >= unit
            b = 0 if skip or wide else floor_int((start[i] - lo) / unit)
            if in_bin and (skip or wide or b != b_idx):  # close the bin
                best = 0
                for c in range(1, n_colors):
                    if sums[c] > sums[best]:
                        best = c
                first = b_first
                for j in range(b_first, b_last + 1):
                    if color[j] == best:
                        first = j
                        break
                if run_open and run_bin == b_idx - 1 and col[k - 1] == best:
                    right[k - 1] = end[b_last]
                    count[k - 1] += b_count
                else:
                    rep[k] = first
                    left[k] = start[b_first]
                    right[k] = end[b_last]
                    col[k] = best
                    count[k] = b_count
                    k += 1
                run_open = True
                run_bin = b_idx
                for j in range(b_first, b_last + 1):
                    sums[color[j]] = 0.0
                in_bin = False
            if last:
                break
            if skip:
                run_open = False
                continue
            if wide:
                rep[k] = i
                left[k] = start[i]
                right[k] = end[i]
                col[k] = color[i]
                count[k] = 1
                k += 1
                run_open = False
                continue
            if not in_bin:
                in_bin = True
                b_idx = b
                b_first = i
                b_count = 0
            sums[color[i]] += end[i] - start[i]
            b_last = i
            b_count += 1
    return rep_a[:k].copy(), left_a[:k].copy(), right_a[:k].copy(), col_a[:k].copy(), count_a[:k].copy()


# -- an encoder in the bubbles (pipeviz.encoder) -------------------------------------


def place_jobs(g_lo, g_hi, g_rank, g_pos, is_f, bound, cost, t0, t1, comm, r0, tol):
    """For each job in turn: the live gap with the earliest (start, rank) that holds
    `cost` inside the job's window, the op placed as early as the window allows there;
    the gap keeps its left piece in place and gains its right piece at the end.
    is_f: 1 for an encoder forward, 0 for a backward."""
    n_jobs = is_f.shape[0]
    n = g_lo.shape[0]
    cap = n + n_jobs
    lo_a = np.empty(cap)
    hi_a = np.empty(cap)
    rank_a = np.empty(cap, np.int64)
    pos_a = np.empty(cap, np.int64)
    alive_a = np.zeros(cap, np.uint8)
    lo_ = lo_a
    hi_ = hi_a
    rank_ = rank_a
    pos_ = pos_a
    alive = alive_a
    for k in range(n):
        lo_[k] = g_lo[k]
        hi_[k] = g_hi[k]
        rank_[k] = g_rank[k]
        pos_[k] = g_pos[k]
        alive[k] = 1
    placed_a = np.zeros(n_jobs, np.bool_)
    placed = placed_a.view(np.uint8)
    out_rank_a = np.empty(n_jobs, np.int64)
    out_rank_a.fill(-1)
    out_pos_a = np.empty(n_jobs, np.int64)
    out_pos_a.fill(-1)
    at_a = np.zeros(n_jobs)
    out_rank = out_rank_a
    out_pos = out_pos_a
    at = at_a
    for j in range(n_jobs):
        e = cost[j]
        best = -1
        for k in range(n):
            if not alive[k]:
                continue
            lag = comm if rank_[k] != r0 else 0.0
            if is_f[j]:
                w_lo = t0
                w_hi = bound[j] - lag
            else:
                w_lo = bound[j] + lag
                w_hi = t1
            lo = max(lo_[k], w_lo)
            if min(hi_[k], w_hi) - lo < e - tol:
                continue
            if best < 0 or lo_[k] < lo_[best] or (lo_[k] == lo_[best] and rank_[k] < rank_[best]):
                best = k
                at[j] = lo
        if best < 0:
            continue
        placed[j] = 1
        out_rank[j] = rank_[best]
        out_pos[j] = pos_[best]
        s = at[j]
        right_lo = s + e
        right_hi = hi_[best]
        if s - lo_[best] > 0:
            hi_[best] = s  # the left piece stays
        else:
            alive[best] = 0
        if right_hi - right_lo > 0:
            lo_[n] = right_lo
            hi_[n] = right_hi
            rank_[n] = rank_[best]
            pos_[n] = pos_[best]
            alive[n] = 1
            n += 1
    return placed_a, out_rank_a, out_pos_a, at_a


# -- schedules built by greedy passes (pipeviz.schedules) ----------------------------
# V-Half and V-Min's building-block passes (pipeviz.schedules.building_blocks, whose
# docstring names the six steps and the lanes), then ZB-H2's greedy rule
# (pipeviz.schedules.zb_h2, step 2). Integers only, so both builds agree trivially; the
# orders are held op for op to the reference's (tests/test_orders.py).

# building_blocks' lanes: F0, F1, B1, B0, then the W's (one lane WS for all of them
# during the squeezes, two at the end: W1, W0).
BB_F0, BB_F1, BB_B1, BB_B0, BB_W1, BB_W0 = 0, 1, 2, 3, 4, 5
BB_LANES = (BB_F0, BB_F1, BB_B1, BB_B0, BB_W1, BB_W0)  # building_blocks takes them from here
BB_WS = BB_W1


def bb_size(lane, m):
    """Ops in a lane before step 6: m, or 2m in the lane of every W."""
    return m if lane < BB_WS else 2 * m


def bb_horizon(lanes):
    """One past the latest slot of any op (a pass's left-out lanes are -1)."""
    top = -1
    for r in range(lanes.shape[0]):
        for lane in range(lanes.shape[1]):
            for i in range(lanes.shape[2]):
                if lanes[r, lane, i] > top:
                    top = lanes[r, lane, i]
    return top + 1


def bb_place_ws(lanes, m, split):
    """Each rank's W's, from its F and B lanes: scanning its slots in time, each B
    leaves a pending W, and each free slot runs one pending W (chunk 1's before chunk
    0's when split, else the oldest); the W's still pending follow the last op, one
    unit apart. One lane for all W's (2m), or lanes W1 and W0 (m each) when split."""
    P = lanes.shape[0]
    pending_a = np.zeros(2, np.int64)
    placed_a = np.zeros(2, np.int64)
    pending = pending_a
    placed = placed_a
    for r in range(P):
        bound = 0
        for lane in range(BB_WS):
            bound = max(bound, lanes[r, lane, m - 1])
        slot_a = np.empty(bound + 1, np.int64)
        slot_a.fill(-1)
        slot = slot_a
        for lane in range(BB_WS):
            for i in range(m):
                slot[lanes[r, lane, i]] = lane
        for w in range(2):
            pending[w] = 0
            placed[w] = 0
        for t in range(bound + 1):
            lane = slot[t]
            if lane == BB_B1:
                pending[0] += 1
            elif lane == BB_B0:
                pending[1 if split else 0] += 1
            elif lane < 0:
                for w in range(2):
                    if pending[w] > 0:
                        lanes[r, BB_WS + w, placed[w]] = t
                        placed[w] += 1
                        pending[w] -= 1
                        break
        t = bound
        for w in range(2):
            while pending[w] > 0:
                t += 1
                lanes[r, BB_WS + w, placed[w]] = t
                placed[w] += 1
                pending[w] -= 1


def bb_time_order(lanes, m, with_w):
    """Every op as (rank, lane, index), sorted by (time, rank, lane, index): a
    counting sort on time, filled in (rank, lane, index) order."""
    P = lanes.shape[0]
    n_lanes = BB_WS + 1 if with_w else BB_WS
    horizon = bb_horizon(lanes)
    count_a = np.zeros(horizon + 1, np.int64)
    count = count_a
    for r in range(P):
        for lane in range(n_lanes):
            for i in range(bb_size(lane, m)):
                count[lanes[r, lane, i] + 1] += 1
    for t in range(horizon):
        count[t + 1] += count[t]
    who_a = np.empty((count[horizon], 3), np.int64)
    who = who_a
    for r in range(P):
        for lane in range(n_lanes):
            for i in range(bb_size(lane, m)):
                t = lanes[r, lane, i]
                at = count[t]
                count[t] += 1
                who[at, 0] = r
                who[at, 1] = lane
                who[at, 2] = i
    return who_a


def bb_levels(slot, level, pending, r, implicit_w, start, cap, write):
    """Rank r's chunks in flight after each slot from `start` on (level[r]), from what
    runs in each slot (slot[r]): an F adds one, a W takes one away; with the W's left
    out (implicit_w), each B leaves a pending W and each free slot runs one (pending[r]:
    how many wait after each slot). Reads level and pending at start-1, writes them
    from `start` on if `write`; returns False as soon as a level passes cap."""
    cur = level[r, start - 1] if start > 0 else 0
    wait = pending[r, start - 1] if start > 0 else 0
    for t in range(start, slot.shape[1]):
        lane = slot[r, t]
        if lane == BB_F0 or lane == BB_F1:
            cur += 1
        elif lane == BB_B1 or lane == BB_B0:
            wait += 1
        elif lane == BB_WS:
            cur -= 1
        elif implicit_w and wait > 0:
            cur -= 1
            wait -= 1
        if cur > cap:
            return False
        if write:
            level[r, t] = cur
            pending[r, t] = wait
    return True


def bb_squeeze(lanes, m, with_w):
    """Steps 2 and 4: move each op, in time order, to the earliest free slot after its
    inputs where its rank's peak stays at most the worst rank's peak before the
    squeeze. The steady state is left as it is: from rank 0's first B0 to the first
    F0 of micro-batch m-1 (both included); before it only with the W's (step 2).

    A rank's peak is the highest of its levels (`bb_levels`), all at most the cap
    before a move. With the W's in their lanes (step 2), moving an op earlier
    changes the levels only between its new slot and its old one: an F's raise them
    by one there (it fits where none of them is at the cap yet), a B's leave them
    and a W's lower them. Without them (step 4), where the pending W's run depends on
    which slots are free, so the levels are run again from the new slot."""
    P = lanes.shape[0]
    n_lanes = BB_WS + 1 if with_w else BB_WS
    implicit_w = not with_w
    horizon = bb_horizon(lanes)
    slot_a = np.empty((P, horizon), np.int64)
    slot_a.fill(-1)
    slot = slot_a
    for r in range(P):
        for lane in range(n_lanes):
            for i in range(bb_size(lane, m)):
                slot[r, lanes[r, lane, i]] = lane
    level_a = np.zeros((P, horizon), np.int64)
    pending_a = np.zeros((P, horizon), np.int64)
    level = level_a
    pending = pending_a
    cap = 0
    for r in range(P):
        bb_levels(slot, level, pending, r, implicit_w, 0, horizon, True)
        for t in range(horizon):
            cap = max(cap, level[r, t])
    placed_a = np.zeros((P, horizon), np.uint8)
    placed = placed_a
    phase = 0  # 0 warm-up, 1 steady state (kept), 2 cool-down
    todo = bb_time_order(lanes, m, with_w)
    for j in range(todo.shape[0]):
        r = todo[j, 0]
        lane = todo[j, 1]
        i = todo[j, 2]
        now = lanes[r, lane, i]
        if phase == 0 and lane == BB_B0 and r == 0:
            phase = 1
        if phase == 1 or (phase == 0 and not with_w):
            if phase == 1 and lane == BB_F0 and i == m - 1:
                phase = 2
            placed[r, now] = 1
            continue
        ready = -1  # the latest slot of its inputs
        if (lane == BB_F0 or lane == BB_B1) and r > 0:
            ready = max(ready, lanes[r - 1, lane, i])
        if (lane == BB_F1 or lane == BB_B0) and r < P - 1:
            ready = max(ready, lanes[r + 1, lane, i])
        if BB_F0 < lane < BB_WS:
            ready = max(ready, lanes[r, lane - 1, i])
        if lane == BB_WS:  # the i-th B in time, of either chunk
            a = 0
            b = 0
            last = -1
            for _k in range(i + 1):
                if b >= m or (a < m and lanes[r, BB_B1, a] < lanes[r, BB_B0, b]):
                    last = lanes[r, BB_B1, a]
                    a += 1
                else:
                    last = lanes[r, BB_B0, b]
                    b += 1
            ready = max(ready, last)
        if i > 0:
            ready = max(ready, lanes[r, lane, i - 1])
        to = now
        if with_w:
            # An F fits from the slot after the last one at the cap before its old one.
            low = ready + 1
            if lane == BB_F0 or lane == BB_F1:
                t = now - 1
                while t >= low and level[r, t] < cap:
                    t -= 1
                low = t + 1
            for t in range(low, now):  # the first free slot from there
                if not placed[r, t]:
                    to = t
                    break
            step = 1 if lane == BB_F0 or lane == BB_F1 else -1 if lane == BB_WS else 0
            for t in range(to, now):
                level[r, t] += step
        else:
            slot[r, now] = -1
            for t in range(ready + 1, now):
                if placed[r, t]:
                    continue
                slot[r, t] = lane
                if bb_levels(slot, level, pending, r, True, t, cap, False):
                    to = t
                    break
                slot[r, t] = -1
            slot[r, now] = lane if to == now else -1
            if to < now:
                bb_levels(slot, level, pending, r, True, to, horizon, True)
        if with_w:
            slot[r, now] = -1
            slot[r, to] = lane
        lanes[r, lane, i] = to
        placed[r, to] = 1


def bb_compact(lanes, m, with_w):
    """Steps 3 and 5: each op as soon as its inputs and its rank's previous op have
    ended, every op one unit long, in the order of the slots it held (a new array)."""
    P = lanes.shape[0]
    out_a = np.empty((lanes.shape[0], lanes.shape[1], lanes.shape[2]), np.int64)
    end_a = np.empty((lanes.shape[0], lanes.shape[1], lanes.shape[2]), np.int64)
    out_a.fill(-1)
    end_a.fill(-1)
    free_a = np.zeros(P, np.int64)
    out = out_a
    end = end_a
    free = free_a
    todo = bb_time_order(lanes, m, with_w)
    for j in range(todo.shape[0]):
        r = todo[j, 0]
        lane = todo[j, 1]
        i = todo[j, 2]
        start = free[r]
        if (lane == BB_F0 or lane == BB_B1) and r > 0:
            start = max(start, end[r - 1, lane, i])
        if (lane == BB_F1 or lane == BB_B0) and r < P - 1:
            start = max(start, end[r + 1, lane, i])
        if BB_F0 < lane < BB_WS:
            start = max(start, end[r, lane - 1, i])
        if i > 0:
            start = max(start, end[r, lane, i - 1])
        out[r, lane, i] = start
        end[r, lane, i] = start + 1
        free[r] = start + 1
    return out_a


def bb_ops(lanes, m):
    """Each rank's ops in time order as (kind, mb, stage), from the six lanes (m ops
    each), and how many each rank has. A rank's ops hold distinct slots; a stable
    counting sort on the slot orders them (ties, were there any: lane, then index)."""
    P = lanes.shape[0]
    n = 6 * m
    kind_a = np.empty((P, n), np.int64)
    mb_a = np.empty((P, n), np.int64)
    stage_a = np.empty((P, n), np.int64)
    count_a = np.zeros(P, np.int64)
    kind = kind_a
    mb = mb_a
    stage = stage_a
    count = count_a
    horizon = bb_horizon(lanes)
    first_a = np.empty(horizon + 1, np.int64)
    first = first_a
    for r in range(P):
        for t in range(horizon + 1):
            first[t] = 0
        for lane in range(6):
            for i in range(m):
                first[lanes[r, lane, i] + 1] += 1
        for t in range(horizon):
            first[t + 1] += first[t]
        for lane in range(6):
            for i in range(m):
                t = lanes[r, lane, i]
                c = first[t]
                first[t] += 1
                kind[r, c] = F if lane <= BB_F1 else I if lane <= BB_B0 else W
                mb[r, c] = i
                # chunk 0 (F0, B0, W0) is stage r; chunk 1 (F1, B1, W1) is stage 2P-1-r
                stage[r, c] = r if lane == BB_F0 or lane == BB_B0 or lane == BB_W0 else 2 * P - 1 - r
        count[r] = n
    return kind_a, mb_a, stage_a, count_a


def zbh2_rule(P, m, warm):
    """ZB-H2's greedy rule (pipeviz.schedules.zb_h2, step 2), one unit of time per
    step, every rank at once, from time 0; each step reads the counters as they were
    before it. Its invariant, IN ORDER AT UNIT COST, is what lets three counters per
    rank stand for the whole state: every op lasts one unit, so whatever ran at an
    earlier step has ended, and each rank runs its F's, its B's and its W's each in
    micro-batch order. So B(nb[r]) is ready once nb[r] < nf[r] (its F ran here) and
    nb[r] < nb[r+1] (its B ran on the next rank); F(nf[r]) once nf[r] < nf[r-1]; the
    oldest pending W is W(nw[r]); an op's micro-batch is its kind's counter. Rank -1
    "ran" all m forwards, rank P all m+1 backwards. The first warm[r] picks of rank r
    are step 1's forwards and are not kept; a rank stops at its last B (step 3
    follows). Returns (kind, mb, count): rank r's kept picks are the first count[r]."""
    cap = 2 * P - 1
    nf_a = np.zeros(P, np.int64)
    nb_a = np.zeros(P, np.int64)
    nw_a = np.zeros(P, np.int64)
    picked_a = np.zeros(P, np.int64)  # picks so far, warm-up included
    pick_a = np.empty(P, np.int64)
    kind_a = np.empty((P, 3 * m), np.int64)
    mb_a = np.empty((P, 3 * m), np.int64)
    count_a = np.zeros(P, np.int64)  # picks kept
    nf = nf_a
    nb = nb_a
    nw = nw_a
    picked = picked_a
    pick = pick_a
    kind = kind_a
    mb = mb_a
    count = count_a
    busy = P > 0 and m > 0  # some rank has a B to run
    while busy:
        for r in range(P):
            nf_prev = nf[r - 1] if r > 0 else m
            nb_next = nb[r + 1] if r < P - 1 else m + 1
            if nb[r] < nf[r] and nb[r] < nb_next:
                pick[r] = I  # its F ran here and its B ran on the next rank
            elif nf[r] < nf_prev and nf[r] - nw[r] < cap:
                pick[r] = F  # arrived, and room in flight
            elif nw[r] < nb[r] < m:
                pick[r] = W  # the oldest pending W (past its last B, a rank is in step 3)
            else:
                pick[r] = -1
        for r in range(P):
            k = pick[r]
            if k < 0:
                continue
            if k == I:
                i = nb[r]
                nb[r] += 1
            elif k == F:
                i = nf[r]
                nf[r] += 1
            else:
                i = nw[r]
                nw[r] += 1
            if picked[r] >= warm[r]:
                kind[r, count[r]] = k
                mb[r, count[r]] = i
                count[r] += 1
            picked[r] += 1
        busy = False  # until every rank has run its last B
        for r in range(P):
            if nb[r] < m:
                busy = True
    return kind_a, mb_a, count_a
