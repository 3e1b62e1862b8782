"""Time any order: as soon as possible, with each rank's order fixed.

An op starts at the latest of the end of its rank's previous op and the end of each
of its dependencies (plus the comm latency when a dependency ran on another rank).
The dependencies (docs/model.md, "Dependencies"), part by part:
  a forward F(mb, s)        after the forward of (mb, s-1); on stage 0 after EF(mb), if any;
  a backward B/I(mb, s)     after the backward of (mb, s+1); on the last stage after F(mb, s);
  W(mb, s)                  after I(mb, s);
  an overlapped F&B         after the dependencies of both of its parts;
  EB(mb)                    after the backward of (mb, 0);
and a segment (prologue, pipeline, epilogue) starts after every op of the one before.

Timing walks the ranks round-robin, advancing each rank through every op whose
dependencies are already timed; a round that advances no rank is a deadlock. The
walk is a compiled loop (numba): a Python or numpy loop pays microseconds of call
overhead per op or per wave, which was most of the cost of a slider update at
interleaved (16, 64, 4). The same loop runs in JavaScript (static/engine.js).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from .costs import Costs
from .errors import ConfigError, DeadlockError, OrderError
from .order import EB, EF, FB, KIND_NAMES, B, F, I, Order, W, check_size

N_KINDS = len(KIND_NAMES)


@dataclass(frozen=True, eq=False)
class Deps:
    """Each op's dependencies, CSR style: op i waits for idx[ptr[i]:ptr[i+1]], each
    with a lag (the comm latency across ranks, 0 otherwise)."""

    ptr: np.ndarray
    idx: np.ndarray
    lag: np.ndarray

    def of(self, i: int) -> np.ndarray:
        return self.idx[self.ptr[i] : self.ptr[i + 1]]


@dataclass(frozen=True, eq=False)
class Timeline:
    order: Order
    costs: Costs
    start: np.ndarray  # (N,) start time of each op
    end: np.ndarray  # (N,) end time of each op
    deps: Deps
    weights: tuple[float, ...] | None = None  # the stage weights it was timed with (None: all 1)

    @property
    def duration(self) -> np.ndarray:
        return self.end - self.start

    @property
    def makespan(self) -> float:
        return float(self.end.max() - self.start.min()) if self.end.size else 0.0


def op_durations(order: Order, costs: Costs, weights=None) -> np.ndarray:
    """(N,) duration of each op: a rank's share of the cost, over its chunks, times
    its stage's weight w_s where stage weights are given (docs/model.md, "Per-stage
    costs")."""
    return _durations(order.kind, order.stage, order.stage2, _per_kind(order, costs), costs.tf, costs.tb + costs.tw,
                      _weights(order, weights), weights is not None)


def _per_kind(order: Order, costs: Costs) -> np.ndarray:
    """Each kind's cost, as a rank's share over its chunks (kind codes index it)."""
    return _kind_costs(costs.tf, costs.tb, costs.tw, costs.fb, order.chunks_per_rank)


@numba.njit(cache=True, nogil=True)
def _kind_costs(tf, tb, tw, fb, chunks):  # pragma: no cover (compiled)
    per_kind = np.array([tf, tb + tw, tb, tw, fb, 0.0, 0.0])
    return per_kind / chunks


# Empty arrays for the kernel's unused inputs, made once (each numpy call costs ~0.5 us).
_NO_FLOATS = np.zeros(0)
_NO_INTS = np.zeros(0, np.int64)
for _a in (_NO_FLOATS, _NO_INTS):
    _a.flags.writeable = False


def _weights(order: Order, weights) -> np.ndarray:
    if weights is None:
        return _NO_FLOATS
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (order.S,):
        raise ConfigError("weights.length", n=int(w.size), S=order.S, name="this order")
    return w


@numba.njit(cache=True, nogil=True)
def _durations(kind, stage, stage2, per_kind, f_part, b_part, w, weighted):  # pragma: no cover (compiled)
    # An overlapped F&B runs the forward of `stage` and the full backward of `stage2`
    # as one op of t_fb. Its parts may sit on stages of different weight, so t_fb is
    # scaled by their weighted mix: each part weighs what it costs alone (f_part = t_f,
    # b_part = t_b + t_w). Equal weights leave t_fb as it is.
    dur = np.empty(kind.size)
    for i in range(kind.size):
        k = kind[i]
        d = per_kind[k]
        if weighted:
            if k == FB:
                d *= (f_part * w[stage[i]] + b_part * w[stage2[i]]) / (f_part + b_part)
            elif stage[i] >= 0:  # encoder ops belong to no stage
                d *= w[stage[i]]
        dur[i] = d
    return dur


def describe_op(order: Order, i: int) -> str:
    """'F(mb 3, stage 2)', 'F&B(mb 3, stage 0 + mb 1, stage 5)', 'EF(mb 3)'."""
    op = order.op(i)
    if op[0] == "F&B":
        return f"F&B(mb {op[1]}, stage {op[2]} + mb {op[3]}, stage {op[4]})"
    if len(op) == 2:
        return f"{op[0]}(mb {op[1]})"
    return f"{op[0]}(mb {op[1]}, stage {op[2]})"


def validate(order: Order) -> None:
    """Every op in range and on the rank holding its stage; every (mb, stage) has
    one forward and one backward (a full B, an I followed by its W, or the backward
    half of an F&B); encoder ops once per micro-batch or not at all. The checks run
    in one compiled pass (`_check`); this names the first problem found."""
    _check_shape(order)
    _raise_problem(order, *_check(order.kind, order.mb, order.stage, order.mb2, order.stage2, order.rank_ptr,
                                  order.stage_to_rank, order.m))


def _check_shape(order: Order) -> None:
    """What the compiled passes index by: the rank pointers, a placement of at least
    one stage (its range is `_check`'s), the segments, and a size that fits."""
    P, m, S, N = order.P, order.m, order.S, order.n_ops
    if order.rank_ptr.shape != (P + 1,) or order.rank_ptr[0] != 0 or order.rank_ptr[-1] != N:
        raise OrderError("order.rank_ptr", n=N, P=P)
    if S == 0:  # the placement's range is checked in `_check`: numpy's min and max cost more
        raise OrderError("order.stage_to_rank", last=P - 1)
    if order.segment is not None and order.segment.shape != (N,):
        raise OrderError("order.segment", n=N)
    check_size(m, S)


def _raise_problem(order: Order, problem: int, i: int, mb: int, s: int, n: int) -> None:
    """Raise what `_check` found, if anything."""
    if problem == OK:
        return
    if problem == BAD_PLACEMENT:
        raise OrderError("order.stage_to_rank", last=order.P - 1)
    if problem == BAD_RANGE:
        raise OrderError("order.range", op=order.token(i), rank=_rank_of(order, i), last_mb=order.m - 1,
                         last_stage=order.S - 1)
    if problem == BAD_RANK:
        raise OrderError("order.wrong_rank", op=order.token(i), rank=_rank_of(order, i), stage=s,
                         home=int(order.stage_to_rank[s]))
    role = {MISSING_F: "F", TWICE_F: "F", MISSING_B: "B", TWICE_B: "B"}.get(problem)
    if problem in (MISSING_F, MISSING_B):
        key = "order.missing_f" if role == "F" else "order.missing_b"
        raise OrderError(key, op=f"{s}{role}{mb}", mb=mb, stage=s)
    if problem in (TWICE_F, TWICE_B):
        raise OrderError("order.twice", op=f"{s}{role}{mb}", n=n)
    if problem == TWICE_W:
        raise OrderError("order.twice", op=f"{s}W{mb}", n=n)
    if problem == MISSING_W:
        raise OrderError("order.missing_w", op=f"{s}W{mb}", i_op=f"{s}I{mb}")
    if problem == STRAY_W:
        raise OrderError("order.stray_w", op=f"{s}W{mb}", i_op=f"{s}I{mb}")
    tok = f"{KIND_NAMES[s]}{mb}"  # encoder ops: s is the kind
    if problem == ENCODER_MISSING:
        raise OrderError("order.encoder_missing", op=tok)
    raise OrderError("order.twice", op=tok, n=n)  # ENCODER_TWICE


def _rank_of(order: Order, i: int) -> int:
    return int(np.searchsorted(order.rank_ptr, i, side="right") - 1)


# What _check found (the first problem, in this order of checks).
(OK, BAD_PLACEMENT, BAD_RANGE, BAD_RANK, MISSING_F, TWICE_F, MISSING_B, TWICE_B, TWICE_W, MISSING_W, STRAY_W,
 ENCODER_MISSING, ENCODER_TWICE) = range(13)


@numba.njit(cache=True, nogil=True)
def _check(kind, mb, stage, mb2, stage2, rank_ptr, stage_to_rank, m):  # pragma: no cover (compiled)
    """(problem, op, mb, stage, count) of the first problem, or (OK, ...): ops in
    index order for range and placement, then (mb, stage) in row-major order for the
    counts of each role, then micro-batches for the encoder ops."""
    S = stage_to_rank.size
    N = kind.size
    for s in range(S):
        if stage_to_rank[s] < 0 or stage_to_rank[s] >= rank_ptr.size - 1:
            return BAD_PLACEMENT, -1, 0, s, 0
    for r in range(rank_ptr.size - 1):
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
    for r in range(rank_ptr.size - 1):
        for i in range(rank_ptr[r], rank_ptr[r + 1]):
            k = kind[i]
            if k == EF or k == EB:
                continue
            if stage_to_rank[stage[i]] != r:
                return BAD_RANK, i, 0, stage[i], 0
            if k == FB and stage_to_rank[stage2[i]] != r:
                return BAD_RANK, i, 0, stage2[i], 0
    fwd = np.zeros(m * S, np.int64)
    bwd = np.zeros(m * S, np.int64)
    has_i = np.zeros(m * S, np.int64)
    has_w = np.zeros(m * S, np.int64)
    enc = np.zeros((2, m), np.int64)
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
            enc[k - EF, mb[i]] += 1
    for counts, missing, twice in ((fwd, MISSING_F, TWICE_F), (bwd, MISSING_B, TWICE_B)):
        for j in range(m * S):
            if counts[j] != 1:
                return (missing if counts[j] == 0 else twice), -1, j // S, j % S, counts[j]
    for j in range(m * S):
        if has_w[j] > 1:
            return TWICE_W, -1, j // S, j % S, has_w[j]
        if has_w[j] != has_i[j]:
            return (MISSING_W if has_i[j] else STRAY_W), -1, j // S, j % S, has_w[j]
    for e in range(2):
        used = False
        for b in range(m):
            used = used or enc[e, b] != 0
        if used:
            for b in range(m):
                if enc[e, b] != 1:
                    return (ENCODER_MISSING if enc[e, b] == 0 else ENCODER_TWICE), -1, b, EF + e, enc[e, b]
    if not enc[0].any() and enc[1].any():
        return ENCODER_MISSING, -1, 0, EF, 0
    return OK, -1, 0, 0, 0


def dependencies(order: Order, comm: float) -> Deps:
    """The dependencies of every op (see the module docstring), with lags; for
    each op, its forward part's dependency, then its backward part's, then the
    segment barriers. Built in one compiled pass (`_deps`)."""
    seg, has_seg = _segments(order)
    ptr, idx, lag = _deps(order.kind, order.mb, order.stage, order.mb2, order.stage2, order.rank_ptr,
                          order.m, order.S, float(comm), seg, has_seg)
    return Deps(ptr=ptr, idx=idx, lag=lag)


def _segments(order: Order) -> tuple[np.ndarray, bool]:
    """The order's segments as the compiled passes take them, and whether it has any."""
    seg = order.segment
    return (_NO_INTS, False) if seg is None else (seg.astype(np.int64), True)


@numba.njit(cache=True, nogil=True)
def _deps(kind, mb, stage, mb2, stage2, rank_ptr, m, S, comm, seg, has_seg):  # pragma: no cover (compiled)
    N = kind.size
    P = rank_ptr.size - 1
    rank = np.empty(N, np.int64)
    for r in range(P):
        rank[rank_ptr[r]:rank_ptr[r + 1]] = r
    # Which op produces each (mb, stage)'s forward activation and input gradient.
    fwd = np.full(m * S, -1, np.int64)
    bwd = np.full(m * S, -1, np.int64)
    enc_f = np.full(m, -1, np.int64)
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
        lo = seg.min()
        n_seg = seg.max() - lo + 1
    first = np.full((P, n_seg), -1, np.int64)  # first op of segment k on rank r
    last_lt = np.full((P, n_seg), -1, np.int64)  # last op of the segments before k on rank r
    if n_seg > 0:
        last_eq = np.full((P, n_seg), -1, np.int64)
        for i in range(N):
            k = seg[i] - lo
            if first[rank[i], k] < 0:
                first[rank[i], k] = i
            last_eq[rank[i], k] = i
        for r in range(P):
            for k in range(1, n_seg):
                last_lt[r, k] = max(last_lt[r, k - 1], last_eq[r, k - 1])
    ptr = np.zeros(N + 1, np.int64)
    idx = np.empty(2 * N + P * P * n_seg, np.int64)
    lag = np.empty(idx.size, np.float64)
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
                    if last_lt[r, ks] >= 0:
                        if n >= idx.size:  # pragma: no cover (cannot happen: P*P*n_seg bounds it)
                            break
                        idx[n] = last_lt[r, ks]
                        lag[n] = 0.0
                        n += 1
        ptr[i + 1] = n
    return ptr, idx[:n].copy(), lag[:n].copy()


@numba.njit(cache=True, nogil=True)
def _asap(rank_ptr, dur, dep_ptr, dep_idx, dep_lag, start, end):  # pragma: no cover (compiled)
    """Fill start and end; return each rank's next untimed op (its end if done)."""
    P = rank_ptr.size - 1
    nxt = rank_ptr[:-1].copy()
    free = np.zeros(P)
    timed = np.zeros(dur.size, np.bool_)
    left = dur.size
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
                timed[i] = True
                i += 1
            if i != nxt[r]:
                moved = True
                left -= i - nxt[r]
                nxt[r] = i
                free[r] = t_free
        if not moved:
            break
    return nxt


def simulate(order: Order, costs: Costs, dur: np.ndarray | None = None, check: bool = True,
             weights=None) -> Timeline:
    """Time `order` with `costs` and stage `weights` (None: all 1), or with the given
    per-op durations. check=False skips `validate` for an order its builder vouches
    for that validate would refuse: pipeviz.encoder times the pipeline with only some
    encoder ops while placing the rest. The timeline keeps the weights (the encoder
    times its ops beside the pipeline's with them)."""
    if check:
        _check_shape(order)
    if dur is None:
        try:
            w = _weights(order, weights)
        except ConfigError:
            if check:  # a wrong order is named before wrong weights
                validate(order)
            raise
        given = _NO_FLOATS  # the kernel prices the ops (`_kind_costs`)
    else:
        w, given = _NO_FLOATS, np.ascontiguousarray(dur, dtype=np.float64)
    seg, has_seg = _segments(order)
    # One compiled call checks, finds the dependencies, prices and times the ops: at
    # small sizes each call into compiled code costs as much as the work in it.
    problem, ptr, idx, lag, start, end, nxt, stuck = _time(
        order.kind, order.mb, order.stage, order.mb2, order.stage2, order.rank_ptr, order.stage_to_rank,
        order.m, check, float(costs.comm), seg, has_seg,
        given, dur is not None, float(costs.tf), float(costs.tb), float(costs.tw), float(costs.fb),
        order.chunks_per_rank, w, weights is not None)
    _raise_problem(order, *problem)
    deps = Deps(ptr=ptr, idx=idx, lag=lag)
    if stuck:
        raise _deadlock(order, deps, nxt, np.flatnonzero(nxt < order.rank_ptr[1:]), start, end)
    return Timeline(order=order, costs=costs, start=start, end=end, deps=deps,
                    weights=None if weights is None else tuple(float(w) for w in weights))


@numba.njit(cache=True, nogil=True)
def _time(kind, mb, stage, mb2, stage2, rank_ptr, stage_to_rank, m, check, comm, seg, has_seg,
          given, has_given, tf, tb, tw, fb, chunks, w, weighted):  # pragma: no cover (compiled)
    """`simulate` in one call: (problem, deps ptr, idx, lag, start, end, each rank's
    next untimed op, whether some rank is stuck); on a problem, empty arrays. Ops are
    priced from the costs (tf .. chunks) unless durations are given."""
    N = kind.size
    problem = (OK, -1, 0, 0, 0)
    if check:
        problem = _check(kind, mb, stage, mb2, stage2, rank_ptr, stage_to_rank, m)
    if problem[0] != OK:
        none, no_time = np.zeros(0, np.int64), np.zeros(0)
        return problem, none, none, no_time, no_time, no_time, none, False
    ptr, idx, lag = _deps(kind, mb, stage, mb2, stage2, rank_ptr, m, stage_to_rank.size, comm, seg, has_seg)
    if has_given:
        dur = given
    else:
        dur = _durations(kind, stage, stage2, _kind_costs(tf, tb, tw, fb, chunks), tf, tb + tw, w, weighted)
    start = np.zeros(N)
    end = np.zeros(N)
    nxt = _asap(rank_ptr, dur, ptr, idx, lag, start, end)
    stuck = False
    for r in range(nxt.size):
        stuck = stuck or nxt[r] < rank_ptr[r + 1]
    return problem, ptr, idx, lag, start, end, nxt, stuck


def _deadlock(order: Order, deps: Deps, nxt: np.ndarray, stuck: np.ndarray, start: np.ndarray,
              end: np.ndarray) -> DeadlockError:
    rank = order.rank
    # An op is timed iff it comes before its rank's next untimed op.
    timed = np.arange(order.n_ops) < nxt[rank]
    blocked = []
    for r in stuck.tolist():
        i = int(nxt[r])
        waits = [int(d) for d in deps.of(i) if not timed[d]]
        d = waits[0]
        blocked.append((r, i, describe_op(order, i), d, describe_op(order, d), int(rank[d])))
    return DeadlockError(blocked, timed=timed, start=np.where(timed, start, np.nan), end=np.where(timed, end, np.nan))
