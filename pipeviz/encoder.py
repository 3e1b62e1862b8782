"""Independent work in the bubbles: an encoder (e.g. a vision tower) beside the pipeline.

docs/model.md ("Independent work in the bubbles") states the model. Per micro-batch
i the encoder runs a forward E_F(i) (cost e_f) and, unless frozen, a backward E_B(i) (cost
e_b), on the pipeline's own ranks, one op at a time like any other op. E_F(i) ends
before F(i, stage 0) starts, E_B(i) starts after the backward of (i, stage 0) ends
(+ comm across ranks): the simulator holds those dependencies. What this module
decides is where each encoder op goes in the ranks' orders; the one simulator then
times the result. Three placements:

  stage0     E_F(i) right before the op holding F(i, 0) on its rank, E_B(i) right
             after the op holding the backward of (i, 0): the same timing as
             "F(i, 0) costs + e_f, B(i, 0) costs + e_b" wherever those are ops of
             their own. Inside an overlapped F&B (DualPipe-V) the encoder ops stay
             real ops beside it: E_F(i) may use the F&B's wait for its backward
             input, and the F&B releases its forward result before E_B(i) runs, so
             that timing is at most a heavier F&B's, never later.
  separate   Step 1 (prologue): E_F(i) on rank i mod P, i ascending, ceil(m/P) rounds.
             Step 2: the pipeline.  Step 3 (epilogue): E_B(i) on rank i mod P.
  bubbles    Step 1 (prologue): rank r runs E_F(r), r < min(P, m).
             Step 2: each other E_F(i), i ascending, goes into the pipeline's idle gap
             (any rank) whose own start is earliest among those that hold it whole
             inside its window, ties to the lower rank, as early as the window allows;
             then each other E_B(i) the same way; a gap shrinks (or splits) as it is used.
             Step 3 (epilogue): E_B(max(0, m-P) .. m-1), micro-batch i on rank i mod P
             (any ranks would do; this is `separate`'s rule, so the epilogue
             never holds more on a rank than separate's does).
             What fits nowhere goes into further prologue (forwards) or epilogue
             (backwards) rounds of up to P, the k-th leftover on rank k mod P.

Prologue, pipeline and epilogue are segments (barriers) of the order. Gaps and
windows are read off the pipeline as it runs between its prologue and epilogue
(timed by the simulator): E_F(i) on rank q must lie in [the prologue's end, start of
F(i, 0) - c], E_B(i) in [end of the backward of (i, 0) + c, the pipeline's end], c =
comm when q is not the rank of stage 0. An op placed so delays nothing. At comm = 0
that pipeline is the pipeline alone shifted by e_f, the rule's single pass is the
whole story, and the makespan is the pipeline's + e_f + e_b whenever everything
fits. With comm > 0 the prologue's hops delay the first forwards differently once
there are further rounds, so the placement is made again in the pipeline the rounds
frame until no other op is left over (see `bubbles`).

Encoder durations are e_f and e_b whole: an encoder op is not a chunk of the model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from .config import Encoder
from .order import EB, EF, FB, B, F, I, Order
from .simulate import Timeline, op_durations, simulate
from .text import msg

PROLOGUE, PIPELINE, EPILOGUE = 0, 1, 2


@dataclass(frozen=True, eq=False)
class EncoderRun:
    """The pipeline with its encoder: the order and timeline (what is shown), the
    pipeline timed alone, and the report (docs/model.md)."""

    settings: Encoder
    order: Order
    timeline: Timeline
    pipeline: Timeline  # the pipeline alone, no encoder
    pipeline_idle: float  # its total idle time over the ranks
    hidden: float  # encoder time placed in the pipeline's idle gaps
    in_gaps: tuple[int, int]  # encoder forwards and backwards placed in gaps (bubbles)
    rounds: tuple[int, int]  # prologue and epilogue rounds (e_f and e_b slots)

    @property
    def makespan(self) -> float:
        return self.timeline.makespan

    @property
    def pipeline_makespan(self) -> float:
        return self.pipeline.makespan

    @property
    def exposed(self) -> float:
        """Makespan minus the pipeline's alone: the encoder time nobody hid."""
        return _clean(self.makespan - self.pipeline_makespan, self.makespan)

    @property
    def hidden_share(self) -> float:
        """Encoder time in the pipeline's idle gaps over all encoder time, m(e_f + e_b)."""
        total = self.order.m * self.settings.work
        return self.hidden / total if total > 0 else 0.0

    @property
    def bubble_filled(self) -> float:
        """Encoder time in the pipeline's idle gaps over the pipeline's total idle."""
        return self.hidden / self.pipeline_idle if self.pipeline_idle > 0 else 0.0


def _clean(x: float, scale: float) -> float:
    return 0.0 if abs(x) <= 1e-12 * max(1.0, abs(scale)) else float(x)


def first_ops(order: Order) -> tuple[np.ndarray, np.ndarray]:
    """(m,) index of the op holding F(i, 0) and of the op holding the backward of (i, 0)."""
    kind, mb, stage = order.kind, order.mb, order.stage
    fwd = np.full(order.m, -1, dtype=np.int64)
    sel = ((kind == F) | (kind == FB)) & (stage == 0)
    fwd[mb[sel]] = np.flatnonzero(sel)
    bwd = np.full(order.m, -1, dtype=np.int64)
    sel = ((kind == B) | (kind == I)) & (stage == 0)
    bwd[mb[sel]] = np.flatnonzero(sel)
    sel = (kind == FB) & (order.stage2 == 0)
    bwd[order.mb2[sel]] = np.flatnonzero(sel)
    return fwd, bwd


@dataclass
class _Inserts:
    """Encoder ops to put into a pipeline order. Each sorts within its rank by
    (segment, position, sub, key): a pipeline op j of the rank is (1, j, 1, 0); an
    op in the gap before it (1, j, 0, planned start); right after it (1, j, 2, 0);
    prologue and epilogue ops (0 or 2, 0, 0, micro-batch)."""

    rank: list
    kind: list
    mb: list
    segment: list
    pos: list
    sub: list
    key: list

    @classmethod
    def empty(cls) -> _Inserts:
        return cls([], [], [], [], [], [], [])

    def add(self, rank, kind, mb, segment, pos=0, sub=0, key=0.0) -> None:
        """Ops of one kind and segment; rank, mb, pos and key are arrays or scalars."""
        n = np.size(mb)
        for name, v in (("rank", rank), ("kind", kind), ("mb", mb), ("segment", segment), ("pos", pos),
                        ("sub", sub), ("key", key)):
            getattr(self, name).append(v if np.ndim(v) else np.full(n, v))

    def cat(self, name: str, dtype) -> np.ndarray:
        parts = getattr(self, name)
        return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype)


def insert(order: Order, ins: _Inserts, with_index: bool = False):
    """The pipeline order with the encoder ops in their places, rank by rank (and,
    with_index, where each pipeline op went).

    The pipeline's ops keep their order, so only the encoder ops are sorted (by rank,
    segment, position, sub, key) and each goes in before a pipeline op: the rank's
    first for the prologue, op `pos` of the rank for a gap (sub 0), the op after it
    for "right after" (sub 2), the rank's end for the epilogue. Encoder ops that go
    in at the same place keep their sorted order."""
    P, n, ptr = order.P, order.n_ops, order.rank_ptr
    e_rank, seg = ins.cat("rank", np.int64), ins.cat("segment", np.int64)
    pos, sub, key = ins.cat("pos", np.int64), ins.cat("sub", np.int64), ins.cat("key", np.float64)
    k = e_rank.size
    by = np.lexsort((key, sub, pos, seg, e_rank))
    e_rank, seg, pos, sub = e_rank[by], seg[by], pos[by], sub[by]
    at = np.where(seg == PROLOGUE, ptr[e_rank], np.where(seg == EPILOGUE, ptr[e_rank + 1],
                                                         ptr[e_rank] + pos + (sub == 2)))
    # Sorted, so the j-th encoder op lands at at[j] + j; the pipeline's ops fill the rest in order.
    enc = np.zeros(n + k, dtype=bool)
    enc[at + np.arange(k)] = True

    def merged(pipe: np.ndarray, extra) -> np.ndarray:
        out = np.empty(n + k, dtype=pipe.dtype)
        out[~enc] = pipe
        out[enc] = extra
        return out

    kind = merged(order.kind, ins.cat("kind", np.int8)[by])
    mb = merged(order.mb, ins.cat("mb", np.int64)[by])
    stage, mb2, stage2 = (merged(a, -1) for a in (order.stage, order.mb2, order.stage2))
    segment = merged(np.full(n, PIPELINE, np.int8), seg)
    counts = np.diff(ptr) + np.bincount(e_rank, minlength=P)
    out = Order(
        P=P, m=order.m, stage_to_rank=order.stage_to_rank, kind=kind, mb=mb, stage=stage, mb2=mb2, stage2=stage2,
        rank_ptr=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        segment=segment if (segment != PIPELINE).any() else None,
    )
    if not with_index:
        return out
    return out, np.flatnonzero(~enc)


def durations(order: Order, costs, enc: Encoder, weights=None) -> np.ndarray:
    """Per-op durations: the pipeline's ops as usual (times their stage's weight, where
    the stages are weighted), encoder ops e_f and e_b whole."""
    dur = op_durations(order, costs, weights)
    dur[order.kind == EF] = enc.ef
    dur[order.kind == EB] = enc.eb
    return dur


# -- the three placements ---------------------------------------------------------

def stage0(order: Order, enc: Encoder) -> _Inserts:
    """E_F(i) right before the op holding F(i, 0), E_B(i) right after the op holding its backward."""
    fwd, bwd = first_ops(order)
    rank = order.rank
    local = np.arange(order.n_ops) - order.rank_ptr[rank]
    mbs = np.arange(order.m)
    ins = _Inserts.empty()
    ins.add(rank[fwd], EF, mbs, PIPELINE, local[fwd], 0)
    if not enc.frozen:
        ins.add(rank[bwd], EB, mbs, PIPELINE, local[bwd], 2)
    return ins


def separate(order: Order, enc: Encoder) -> _Inserts:
    """Every E_F before the pipeline and every E_B after it, micro-batch i on rank i mod P."""
    mbs = np.arange(order.m)
    ins = _Inserts.empty()
    ins.add(mbs % order.P, EF, mbs, PROLOGUE, key=mbs)
    if not enc.frozen:
        ins.add(mbs % order.P, EB, mbs, EPILOGUE, key=mbs)
    return ins


@dataclass(frozen=True, eq=False)
class Gaps:
    """Idle gaps of a timed pipeline: gap k is [start[k], end[k]) on rank[k], before
    the rank's pipeline op number pos[k] (its op count for the trailing gap)."""

    rank: np.ndarray
    start: np.ndarray
    end: np.ndarray
    pos: np.ndarray


def gaps(order: Order, start: np.ndarray, end: np.ndarray, t0: float, t1: float) -> Gaps:
    """Every non-empty idle interval of every rank of the pipeline `order` (its ops
    timed `start`, `end`) within [t0, t1], ordered by (start, rank)."""
    P, ptr, n = order.P, order.rank_ptr, order.n_ops
    rank = order.rank
    prev_end = np.empty(n)
    prev_end[1:] = end[:-1]
    firsts = ptr[:-1][ptr[:-1] < ptr[1:]]
    prev_end[firsts] = t0
    nonempty = ptr[1:] > ptr[:-1]
    last_end = np.full(P, t0)
    last_end[nonempty] = end[ptr[1:][nonempty] - 1]
    lo = np.concatenate([prev_end, last_end])
    hi = np.concatenate([start, np.full(P, t1)])
    who = np.concatenate([rank, np.arange(P)])
    pos = np.concatenate([np.arange(n) - ptr[rank], np.diff(ptr)])
    keep = np.flatnonzero(hi - lo > 0)
    keep = keep[np.lexsort((who[keep], lo[keep]))]
    return Gaps(rank=who[keep], start=lo[keep], end=hi[keep], pos=pos[keep])


@dataclass(frozen=True, eq=False)
class Plan:
    """Where `bubbles` puts the encoder ops that are not in the first prologue or
    epilogue slot: per op its kind (EF, EB), micro-batch, rank, gap position and
    planned start, and the leftovers for further rounds."""

    kind: np.ndarray
    mb: np.ndarray
    rank: np.ndarray
    pos: np.ndarray
    start: np.ndarray
    left_f: np.ndarray  # micro-batches of the forwards that fit nowhere, ascending
    left_b: np.ndarray


def plan(order: Order, start: np.ndarray, end: np.ndarray, t0: float, t1: float, enc: Encoder,
         comm: float, jobs: list[tuple[int, int]]) -> Plan:
    """The placement rule (docs/model.md) for the encoder ops `jobs`, (EF, i) ascending
    then (EB, i) ascending (see the module docstring). `start` and `end` time the pipeline's ops
    as they run between the prologue and the epilogue, from t0 (the prologue's end) to t1."""
    fwd, bwd = first_ops(order)
    g = gaps(order, start, end, t0, t1)
    kind = np.array([k for k, _ in jobs], dtype=np.int8)
    mb = np.array([i for _, i in jobs], dtype=np.int64)
    is_f = kind == EF
    # Where each job's window is bounded by the pipeline: F(i, 0)'s start, or the end
    # of the backward of (i, 0).
    bound = np.where(is_f, start[fwd[mb]], end[bwd[np.where(is_f, 0, mb)]])
    cost = np.where(is_f, enc.ef, enc.eb)
    placed, rank, pos, at = _place(g.start, g.end, g.rank, g.pos, is_f, bound, cost, float(t0), float(t1),
                                   float(comm), int(order.stage_to_rank[0]), 1e-9 * max(1.0, t1))
    return Plan(
        kind=kind[placed], mb=mb[placed], rank=rank[placed], pos=pos[placed], start=at[placed],
        left_f=mb[~placed & is_f], left_b=mb[~placed & ~is_f],
    )


@numba.njit(cache=True, nogil=True)
def _place(g_lo, g_hi, g_rank, g_pos, is_f, bound, cost, t0, t1, comm, r0, tol):  # pragma: no cover (compiled)
    """For each job in turn: the live gap with the earliest (start, rank) that holds
    `cost` inside the job's window, the op placed as early as the window allows there;
    the gap keeps its left piece in place and gains its right piece at the end."""
    n_jobs = is_f.size
    cap = g_lo.size + n_jobs
    lo_, hi_ = np.empty(cap), np.empty(cap)
    rank_, pos_ = np.empty(cap, np.int64), np.empty(cap, np.int64)
    alive = np.zeros(cap, np.bool_)
    n = g_lo.size
    lo_[:n], hi_[:n], rank_[:n], pos_[:n] = g_lo, g_hi, g_rank, g_pos
    alive[:n] = True
    placed = np.zeros(n_jobs, np.bool_)
    rank, pos, at = np.full(n_jobs, -1, np.int64), np.full(n_jobs, -1, np.int64), np.zeros(n_jobs)
    for j in range(n_jobs):
        e = cost[j]
        best = -1
        for k in range(n):
            if not alive[k]:
                continue
            lag = comm if rank_[k] != r0 else 0.0
            if is_f[j]:
                w_lo, w_hi = t0, bound[j] - lag
            else:
                w_lo, w_hi = bound[j] + lag, t1
            lo = max(lo_[k], w_lo)
            if min(hi_[k], w_hi) - lo < e - tol:
                continue
            if best < 0 or lo_[k] < lo_[best] or (lo_[k] == lo_[best] and rank_[k] < rank_[best]):
                best = k
                at[j] = lo
        if best < 0:
            continue
        placed[j] = True
        rank[j], pos[j] = rank_[best], pos_[best]
        s = at[j]
        right_lo, right_hi = s + e, hi_[best]
        if s - lo_[best] > 0:
            hi_[best] = s  # the left piece stays
        else:
            alive[best] = False
        if right_hi - right_lo > 0:
            lo_[n], hi_[n], rank_[n], pos_[n], alive[n] = right_lo, right_hi, rank_[best], pos_[best], True
            n += 1
    return placed, rank, pos, at


def rounds(first: np.ndarray, left: np.ndarray, P: int) -> tuple[np.ndarray, np.ndarray, int]:
    """(micro-batches, ranks, rounds) of a prologue or epilogue: the first slot's
    micro-batch i on rank i mod P (as `separate` places it), then the leftovers, the
    k-th on rank k mod P."""
    mbs = np.concatenate([first, left]).astype(np.int64)
    ranks = np.concatenate([first % P, np.arange(left.size) % P]).astype(np.int64)
    n_rounds = (1 if first.size else 0) + -(-left.size // P)
    return mbs, ranks, n_rounds


def slots(m: int, P: int, enc: Encoder, left_f=(), left_b=()) -> tuple[_Inserts, tuple[int, int]]:
    """The prologue (rank r runs E_F(r)) and epilogue (E_B(m-P..m-1), micro-batch i on
    rank i mod P), with the leftovers' rounds."""
    ins = _Inserts.empty()
    f_mb, f_rank, f_rounds = rounds(np.arange(min(P, m)), np.asarray(left_f, np.int64), P)
    ins.add(f_rank, EF, f_mb, PROLOGUE, key=f_mb)
    b_rounds = 0
    if not enc.frozen:
        b_mb, b_rank, b_rounds = rounds(np.arange(max(0, m - P), m), np.asarray(left_b, np.int64), P)
        ins.add(b_rank, EB, b_mb, EPILOGUE, key=b_mb)
    return ins, (f_rounds, b_rounds)


def bubbles(order: Order, costs, enc: Encoder, weights=None) -> tuple[_Inserts, Plan | None, tuple[int, int]]:
    """Steps 1 and 3 first: the pipeline between the prologue and the epilogue, timed
    by the simulator, gives the gaps and the windows. Step 2 places the other ops into
    those gaps, where they delay nothing; what fits nowhere joins further rounds, and
    the placement is made again in the pipeline those rounds frame, until no other op
    is left over. At comm = 0 a round shifts the whole pipeline by e_f (or e_b after
    it), so the first pass is the last; with comm > 0 the prologue's hops may delay
    the first forwards, differently for each round."""
    P, m = order.P, order.m
    jobs = [(EF, i) for i in range(P, m)] + ([] if enc.frozen else [(EB, i) for i in range(0, m - P)])
    left_f, left_b = [], []
    while True:
        frame, n_rounds = slots(m, P, enc, left_f, left_b)
        if not jobs:
            return frame, None, n_rounds
        framed, where = insert(order, frame, with_index=True)
        # Only some encoder ops are in yet, which validate would refuse.
        tl = simulate(framed, costs, durations(framed, costs, enc, weights), check=False)
        start, end = tl.start[where], tl.end[where]
        pre = framed.segment == PROLOGUE
        t0 = float(tl.end[pre].max()) if pre.any() else 0.0
        pl = plan(order, start, end, t0, float(end.max()), enc, costs.comm, jobs)
        if pl.left_f.size == 0 and pl.left_b.size == 0:
            break
        left_f = sorted(left_f + pl.left_f.tolist())
        left_b = sorted(left_b + pl.left_b.tolist())
        jobs = [(k, i) for k, i in jobs if i not in (pl.left_f if k == EF else pl.left_b)]
    frame.add(pl.rank, pl.kind, pl.mb, PIPELINE, pl.pos, 0, pl.start)
    return frame, Plan(pl.kind, pl.mb, pl.rank, pl.pos, pl.start, np.array(left_f, np.int64),
                       np.array(left_b, np.int64)), n_rounds


def with_encoder(pipeline: Timeline, enc: Encoder) -> EncoderRun:
    """The pipeline `pipeline` (timed alone) with the encoder `enc`, timed by the simulator."""
    order, costs = pipeline.order, pipeline.costs
    P, m = order.P, order.m
    hidden, in_gaps = 0.0, (0, 0)
    if enc.place == "stage0":
        ins, n_rounds = stage0(order, enc), (0, 0)
    elif enc.place == "separate":
        per = -(-m // P)
        ins, n_rounds = separate(order, enc), (per, 0 if enc.frozen else per)
    else:
        ins, pl, n_rounds = bubbles(order, costs, enc, pipeline.weights)
        if pl is not None:
            in_gaps = (int((pl.kind == EF).sum()), int((pl.kind == EB).sum()))
            hidden = in_gaps[0] * enc.ef + in_gaps[1] * enc.eb
    full = insert(order, ins)
    tl = simulate(full, costs, durations(full, costs, enc, pipeline.weights), weights=pipeline.weights)
    busy = float(np.sum(pipeline.duration))
    idle = _clean(P * pipeline.makespan - busy, P * pipeline.makespan)
    return EncoderRun(settings=enc, order=full, timeline=tl, pipeline=pipeline, pipeline_idle=max(idle, 0.0),
                      hidden=hidden, in_gaps=in_gaps, rounds=n_rounds)


def theory_caveat():
    """Why the closed form (the pipeline's) differs from a run with an encoder."""
    return msg("encoder.caveat")
