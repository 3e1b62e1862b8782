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
walk is a compiled loop (`pipeviz.kernels`, compiled at install): a Python or numpy
loop pays microseconds of call overhead per op or per wave, which was most of the
cost of a slider update at interleaved (16, 64, 4). The same loop runs in JavaScript
(static/engine.js).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .compiled import K
from .costs import Costs
from .errors import ConfigError, DeadlockError, OrderError
from .order import KIND_NAMES, Order, check_size


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
    return K.durations(order.kind, order.stage, order.stage2, _per_kind(order, costs), costs.tf, costs.tb + costs.tw,
                       _weights(order, weights), weights is not None)


def _per_kind(order: Order, costs: Costs) -> np.ndarray:
    """Each kind's cost, as a rank's share over its chunks (kind codes index it)."""
    return K.kind_costs(costs.tf, costs.tb, costs.tw, costs.fb, order.chunks_per_rank)


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
    in one compiled pass (`kernels.check_order`); this names the first problem found."""
    _check_shape(order)
    _raise_problem(order, *K.check_order(order.kind, order.mb, order.stage, order.mb2, order.stage2, order.rank_ptr,
                                         order.stage_to_rank, order.m))


def _check_shape(order: Order) -> None:
    """What the compiled passes index by: the rank pointers, a placement of at least
    one stage (its range is `kernels.check_order`'s), the segments, and a size that fits."""
    P, m, S, N = order.P, order.m, order.S, order.n_ops
    if order.rank_ptr.shape != (P + 1,) or order.rank_ptr[0] != 0 or order.rank_ptr[-1] != N:
        raise OrderError("order.rank_ptr", n=N, P=P)
    if S == 0:  # the placement's range is checked in `kernels.check_order`: numpy's min and max cost more
        raise OrderError("order.stage_to_rank", last=P - 1)
    if order.segment is not None and order.segment.shape != (N,):
        raise OrderError("order.segment", n=N)
    check_size(m, S)


def _raise_problem(order: Order, problem: int, i: int, mb: int, s: int, n: int) -> None:
    """Raise what `kernels.check_order` found, if anything."""
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


# What kernels.check_order finds (the first problem, in this order of checks).
(OK, BAD_PLACEMENT, BAD_RANGE, BAD_RANK, MISSING_F, TWICE_F, MISSING_B, TWICE_B, TWICE_W, MISSING_W, STRAY_W,
 ENCODER_MISSING, ENCODER_TWICE) = (K.OK, K.BAD_PLACEMENT, K.BAD_RANGE, K.BAD_RANK, K.MISSING_F, K.TWICE_F, K.MISSING_B,
                                    K.TWICE_B, K.TWICE_W, K.MISSING_W, K.STRAY_W, K.ENCODER_MISSING, K.ENCODER_TWICE)


def dependencies(order: Order, comm: float) -> Deps:
    """The dependencies of every op (see the module docstring), with lags; for
    each op, its forward part's dependency, then its backward part's, then the
    segment barriers. Built in one compiled pass (`kernels.dependencies`)."""
    seg, has_seg = _segments(order)
    ptr, idx, lag = K.dependencies(order.kind, order.mb, order.stage, order.mb2, order.stage2, order.rank_ptr,
                                   order.m, order.S, float(comm), seg, has_seg)
    return Deps(ptr=ptr, idx=idx, lag=lag)


def _segments(order: Order) -> tuple[np.ndarray, bool]:
    """The order's segments as the compiled passes take them, and whether it has any."""
    seg = order.segment
    return (_NO_INTS, False) if seg is None else (seg.astype(np.int64), True)


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
        given = _NO_FLOATS  # the kernel prices the ops (`kernels.kind_costs`)
    else:
        w, given = _NO_FLOATS, np.ascontiguousarray(dur, dtype=np.float64)
    seg, has_seg = _segments(order)
    # One compiled call checks, finds the dependencies, prices and times the ops: at
    # small sizes each call into compiled code costs as much as the work in it.
    problem, ptr, idx, lag, start, end, nxt, stuck = K.time_order(
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
