"""Time any order: as soon as possible, with each rank's order fixed.

An op starts at the latest of the end of its rank's previous op and the end of each
of its dependencies (plus the comm latency when a dependency ran on another rank).
The dependencies are SPEC.md's, part by part:
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
from .errors import DeadlockError, OrderError
from .order import EB, EF, FB, KIND_NAMES, B, F, I, Order, W, check_size
from .text import strings


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

    @property
    def duration(self) -> np.ndarray:
        return self.end - self.start

    @property
    def makespan(self) -> float:
        return float(self.end.max() - self.start.min()) if self.end.size else 0.0


def op_durations(order: Order, costs: Costs) -> np.ndarray:
    """(N,) duration of each op: a rank's share of the cost, over its chunks."""
    per_kind = np.zeros(len(KIND_NAMES))
    per_kind[[F, B, I, W, FB]] = np.array([costs.tf, costs.tb + costs.tw, costs.tb, costs.tw, costs.fb])
    per_kind /= order.chunks_per_rank
    return per_kind[order.kind]


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
    half of an F&B); encoder ops once per micro-batch or not at all."""
    P, m, S, N = order.P, order.m, order.S, order.n_ops
    if order.rank_ptr.shape != (P + 1,) or order.rank_ptr[0] != 0 or order.rank_ptr[-1] != N:
        raise OrderError("order.rank_ptr", n=N, P=P)
    if S == 0 or order.stage_to_rank.min() < 0 or order.stage_to_rank.max() >= P:
        raise OrderError("order.stage_to_rank", last=P - 1)
    check_size(m, S)
    kind, rank = order.kind, order.rank
    enc = (kind == EF) | (kind == EB)
    pair = kind == FB
    bad = (kind < 0) | (kind >= len(KIND_NAMES)) | (order.mb < 0) | (order.mb >= m)
    bad |= ~enc & ((order.stage < 0) | (order.stage >= S))
    bad |= pair & ((order.mb2 < 0) | (order.mb2 >= m) | (order.stage2 < 0) | (order.stage2 >= S))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise OrderError("order.range", op=order.token(i), rank=int(rank[i]), last_mb=m - 1, last_stage=S - 1)
    stage_rank = order.stage_to_rank[np.where(enc, 0, order.stage)]
    wrong = ~enc & (stage_rank != rank)
    wrong |= pair & (order.stage_to_rank[np.maximum(order.stage2, 0)] != rank)
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        s = int(order.stage[i]) if stage_rank[i] != rank[i] else int(order.stage2[i])
        raise OrderError("order.wrong_rank", op=order.token(i), rank=int(rank[i]), stage=s,
                         home=int(order.stage_to_rank[s]))
    # Count each role per (mb, stage): forward, backward (B, I or F&B's half), W.
    fwd = _count(order.mb[(kind == F) | pair], order.stage[(kind == F) | pair], m, S)
    bwd = _count(
        np.concatenate([order.mb[(kind == B) | (kind == I)], order.mb2[pair]]),
        np.concatenate([order.stage[(kind == B) | (kind == I)], order.stage2[pair]]), m, S,
    )
    has_i = _count(order.mb[kind == I], order.stage[kind == I], m, S)
    has_w = _count(order.mb[kind == W], order.stage[kind == W], m, S)
    for counts, role in ((fwd, "F"), (bwd, "B")):
        _exactly_once(counts, role)
    if (has_w > 1).any() or (has_w != has_i).any():
        mb, s = np.argwhere((has_w > 1) | (has_w != has_i))[0].tolist()
        if has_w[mb, s] > 1:
            raise OrderError("order.twice", op=f"{s}W{mb}", n=int(has_w[mb, s]))
        if has_i[mb, s]:
            raise OrderError("order.missing_w", op=f"{s}W{mb}", i_op=f"{s}I{mb}")
        raise OrderError("order.stray_w", op=f"{s}W{mb}", i_op=f"{s}I{mb}")
    for k in (EF, EB):
        count = np.bincount(order.mb[kind == k], minlength=m)
        if count.any() and (count != 1).any():
            mb = int(np.flatnonzero(count != 1)[0])
            tok = f"{KIND_NAMES[k]}{mb}"
            if count[mb] == 0:
                raise OrderError("order.encoder_missing", op=tok)
            raise OrderError("order.twice", op=tok, n=int(count[mb]))
    if (kind == EB).any() and not (kind == EF).any():
        raise OrderError("order.encoder_missing", op="EF0")
    if order.segment is not None and order.segment.shape != (N,):
        raise OrderError("order.segment", n=N)


def _count(mb: np.ndarray, stage: np.ndarray, m: int, S: int) -> np.ndarray:
    return np.bincount(mb * S + stage, minlength=m * S).reshape(m, S)


def _exactly_once(counts: np.ndarray, role: str) -> None:
    if (counts != 1).any():
        mb, s = np.argwhere(counts != 1)[0].tolist()
        tok = f"{s}{role}{mb}"
        if counts[mb, s] == 0:
            key = "order.missing_f" if role == "F" else "order.missing_b"
            raise OrderError(key, op=tok, mb=mb, stage=s)
        raise OrderError("order.twice", op=tok, n=int(counts[mb, s]))


def dependencies(order: Order, comm: float) -> Deps:
    """SPEC.md's dependencies of every op (see the module docstring), with lags."""
    m, S, N = order.m, order.S, order.n_ops
    kind, mb, stage, rank = order.kind, order.mb, order.stage, order.rank
    index = np.arange(N)
    pair = kind == FB
    # Which op produces each (mb, stage)'s forward activation and input gradient.
    fwd = np.full((m, S), -1, dtype=np.int64)
    has_f = (kind == F) | pair
    fwd[mb[has_f], stage[has_f]] = index[has_f]
    bwd = np.full((m, S), -1, dtype=np.int64)
    has_b = (kind == B) | (kind == I)
    bwd[mb[has_b], stage[has_b]] = index[has_b]
    bwd[order.mb2[pair], order.stage2[pair]] = index[pair]
    enc_f = np.full(m, -1, dtype=np.int64)
    enc_f[mb[kind == EF]] = index[kind == EF]

    ops, on = [], []

    def need(sel: np.ndarray, dep: np.ndarray) -> None:
        ops.append(index[sel])
        on.append(dep)

    # Forward parts (F, and F&B's first half): the previous stage, or the encoder.
    s_f = stage[has_f]
    need(has_f & (stage > 0), fwd[mb[has_f & (stage > 0)], s_f[s_f > 0] - 1])
    first = has_f & (stage == 0)
    need(first, enc_f[mb[first]])
    # Backward parts (B, I, and F&B's second half): the next stage, or the last forward.
    b_mb = np.where(pair, order.mb2, mb)
    b_st = np.where(pair, order.stage2, stage)
    has_bp = has_b | pair
    inner = has_bp & (b_st < S - 1)
    need(inner, bwd[b_mb[inner], b_st[inner] + 1])
    last = has_bp & (b_st == S - 1)
    need(last, fwd[b_mb[last], S - 1])
    need(kind == W, bwd[mb[kind == W], stage[kind == W]])
    need(kind == EB, bwd[mb[kind == EB], 0])

    op_of = np.concatenate(ops)
    dep_of = np.concatenate(on)
    keep = dep_of >= 0
    op_of, dep_of = op_of[keep], dep_of[keep]
    lag = np.where(rank[dep_of] != rank[op_of], comm, 0.0)
    if order.segment is not None:
        b_op, b_dep = _barriers(order)
        op_of = np.concatenate([op_of, b_op])
        dep_of = np.concatenate([dep_of, b_dep])
        lag = np.concatenate([lag, np.zeros(b_op.size)])
    by_op = np.argsort(op_of, kind="stable")
    ptr = np.concatenate([[0], np.cumsum(np.bincount(op_of, minlength=N))]).astype(np.int64)
    return Deps(ptr=ptr, idx=dep_of[by_op].astype(np.int64), lag=lag[by_op].astype(np.float64))


def _barriers(order: Order) -> tuple[np.ndarray, np.ndarray]:
    """The first op of each segment on each rank waits for the last op of every
    earlier segment on every rank."""
    seg, rank = order.segment.astype(np.int64), order.rank
    P = order.P
    ops, deps = [], []
    for k in np.unique(seg).tolist():
        earlier = np.flatnonzero(seg < k)
        if earlier.size == 0:
            continue
        # The last op of the earlier segments on each rank that has one.
        lasts = np.array([earlier[rank[earlier] == r].max() for r in range(P) if (rank[earlier] == r).any()], dtype=np.int64)
        firsts = np.array([np.flatnonzero((seg == k) & (rank == r))[0] for r in range(P) if ((seg == k) & (rank == r)).any()],
                          dtype=np.int64)
        ops.append(np.repeat(firsts, lasts.size))
        deps.append(np.tile(lasts, firsts.size))
    if not ops:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(ops), np.concatenate(deps)


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


def simulate(order: Order, costs: Costs, dur: np.ndarray | None = None) -> Timeline:
    """Time `order` with `costs` (or with the given per-op durations)."""
    validate(order)
    deps = dependencies(order, costs.comm)
    if dur is None:
        dur = op_durations(order, costs)
    start = np.zeros(order.n_ops)
    end = np.zeros(order.n_ops)
    nxt = _asap(order.rank_ptr, np.ascontiguousarray(dur, dtype=np.float64), deps.ptr, deps.idx, deps.lag, start, end)
    stuck = np.flatnonzero(nxt < order.rank_ptr[1:])
    if stuck.size:
        raise _deadlock(order, deps, nxt, stuck, end)
    return Timeline(order=order, costs=costs, start=start, end=end, deps=deps)


def _deadlock(order: Order, deps: Deps, nxt: np.ndarray, stuck: np.ndarray, end: np.ndarray) -> DeadlockError:
    rank = order.rank
    # An op is timed iff it comes before its rank's next untimed op.
    timed = np.arange(order.n_ops) < nxt[rank]
    blocked = []
    for r in stuck.tolist():
        i = int(nxt[r])
        waits = [int(d) for d in deps.of(i) if not timed[d]]
        d = waits[0]
        blocked.append((r, i, describe_op(order, i), d, describe_op(order, d), int(rank[d])))
    return DeadlockError(blocked)


strings({
    "order.rank_ptr": ("rank_ptr must run from 0 to {n} over {P} ranks", "rank_ptr 必须在 {P} 个 rank 上从 0 走到 {n}"),
    "order.stage_to_rank": ("stage_to_rank must map each stage to a rank in 0..{last}",
                            "stage_to_rank 必须把每个段映射到 0..{last} 中的一个 rank"),
    "order.range": (
        "{op} on rank {rank} is out of range: micro-batches are 0..{last_mb} and stages 0..{last_stage}",
        "rank {rank} 上的 {op} 超出范围：微批次为 0..{last_mb}，段为 0..{last_stage}",
    ),
    "order.wrong_rank": (
        "{op} is on rank {rank}, but stage {stage} lives on rank {home}",
        "{op} 在 rank {rank} 上，但第 {stage} 段在 rank {home} 上",
    ),
    "order.missing_f": (
        "{op} is missing: every micro-batch needs a forward on every stage (here mb {mb}, stage {stage})",
        "缺少 {op}：每个微批次在每一段都要有一次前向（这里是微批次 {mb}，第 {stage} 段）",
    ),
    "order.missing_b": (
        "the backward of mb {mb} on stage {stage} is missing: write {op}, or I then W, or an F&B pair holding it",
        "缺少微批次 {mb} 在第 {stage} 段的反向：写 {op}，或先 I 再 W，或放进一个 F&B 对",
    ),
    "order.twice": ("{op} appears {n} times; every op must appear exactly once", "{op} 出现了 {n} 次；每个操作只能出现一次"),
    "order.missing_w": ("{op} is missing: {i_op} splits the backward, so its W must follow",
                        "缺少 {op}：{i_op} 拆分了反向，所以必须有对应的 W"),
    "order.stray_w": ("{op} has no {i_op} before it: a W follows the I of a split backward",
                      "{op} 之前没有 {i_op}：W 只能跟在拆分反向的 I 之后"),
    "order.encoder_missing": ("{op} is missing: encoder ops come once per micro-batch, or not at all",
                              "缺少 {op}：编码器操作要么每个微批次一次，要么都没有"),
    "order.segment": ("segment must give one segment per op ({n})", "segment 必须为每个操作（共 {n} 个）给出所在阶段"),
})
