"""The action vocabulary: each rank's ordered ops, as numpy arrays, and its text form.

An op is one of
  F    forward of (mb, stage)
  B    full backward of (mb, stage)
  I    input-gradient backward of (mb, stage) (the backward split; its W follows)
  W    weight-gradient backward of (mb, stage)
  F&B  an overlapped pair: the forward of (mb, stage) and the full backward of
       (mb2, stage2), run together as one op (DualPipe)
  EF   encoder forward of micro-batch mb (independent work; no stage)
  EB   encoder backward of micro-batch mb
Whether a backward is split is a property of each op, not of the order: DualPipe-V
mixes full backwards with I-then-W pairs.

Generators emit an :class:`Order`; one simulator times any order. An order is stored
flat, rank-major (CSR style): the ops of rank r are `kind[rank_ptr[r]:rank_ptr[r+1]]`
in execution order. Nothing here knows about time.

Text form: PyTorch's action notation (torch.distributed.pipelining), one line per
rank, one token per op: `{stage}{kind}{mb}` with kind F, B, I or W (`2F0`, `7I3`);
an overlapped pair is `0F3&5B1`; encoder ops, which PyTorch has no word for, are
`EF3` and `EB3`. `Order.to_text()` prints it and `parse_order` reads it back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numba
import numpy as np

from .config import MAX_OPS
from .errors import OrderError

F, B, I, W, FB, EF, EB = range(7)  # noqa: E741 (I is PyTorch's name for the input-gradient backward)
KIND_NAMES = ("F", "B", "I", "W", "F&B", "EF", "EB")
KIND_CODES = {name: code for code, name in enumerate(KIND_NAMES)}
STAGE_KINDS = (F, B, I, W)  # one (mb, stage) each
PLACEMENTS = ("loop", "v")


def loop_placement(P: int, V: int) -> np.ndarray:
    """Stage s lives on rank s mod P (GPipe, 1F1B, interleaved)."""
    return np.arange(P * V, dtype=np.int64) % P


def v_placement(P: int) -> np.ndarray:
    """S = 2P stages in a V: rank r holds stages r and 2P-1-r (ZB-V, DualPipe-V)."""
    s = np.arange(2 * P, dtype=np.int64)
    return np.where(s < P, s, 2 * P - 1 - s)


def placement(name: str, P: int, V: int) -> np.ndarray:
    return v_placement(P) if name == "v" else loop_placement(P, V)


@dataclass(frozen=True, eq=False)
class Order:
    """Each rank's ops in execution order, flat and rank-major."""

    P: int
    m: int
    stage_to_rank: np.ndarray  # (S,) rank holding each stage
    kind: np.ndarray  # (N,) int8, one of KIND_NAMES
    mb: np.ndarray  # (N,) int64 micro-batch (F&B: of the forward part)
    stage: np.ndarray  # (N,) int64 global stage (F&B: of the forward part; -1 for encoder ops)
    mb2: np.ndarray  # (N,) int64 F&B: micro-batch of the backward part, else -1
    stage2: np.ndarray  # (N,) int64 F&B: stage of the backward part, else -1
    rank_ptr: np.ndarray  # (P+1,) ops of rank r are [rank_ptr[r], rank_ptr[r+1])
    # (N,) int8 segment of each op: 0 prologue, 1 pipeline, 2 epilogue. Segments are
    # barriers: no op of a later segment starts before every op of an earlier one ends.
    # None: one segment.
    segment: np.ndarray | None = None

    @property
    def S(self) -> int:
        return int(self.stage_to_rank.shape[0])

    @property
    def n_ops(self) -> int:
        return int(self.kind.shape[0])

    @property
    def chunks_per_rank(self) -> int:
        """Model chunks each rank holds (V for loop placement, 2 for a V)."""
        return self.S // self.P

    @property
    def rank(self) -> np.ndarray:
        """(N,) rank executing each op."""
        return np.repeat(np.arange(self.P), np.diff(self.rank_ptr))

    @property
    def has_w(self) -> bool:
        """Some backward is split into I and W."""
        return bool((self.kind == W).any())

    @property
    def kinds_used(self) -> tuple[str, ...]:
        return tuple(KIND_NAMES[k] for k in np.unique(self.kind).tolist())

    def op(self, i: int) -> tuple:
        """Op i as a readable tuple: (kind, mb, stage), ("F&B", mb, stage, mb2, stage2)
        or (kind, mb) for encoder ops."""
        k = int(self.kind[i])
        if k == FB:
            return ("F&B", int(self.mb[i]), int(self.stage[i]), int(self.mb2[i]), int(self.stage2[i]))
        if k in (EF, EB):
            return (KIND_NAMES[k], int(self.mb[i]))
        return (KIND_NAMES[k], int(self.mb[i]), int(self.stage[i]))

    def rank_ops(self, r: int) -> list[tuple]:
        """Rank r's ops as tuples (see `op`): for reading and tests."""
        return [self.op(i) for i in range(int(self.rank_ptr[r]), int(self.rank_ptr[r + 1]))]

    def token(self, i: int) -> str:
        """Op i in PyTorch's action notation."""
        return token(self.op(i))

    def to_text(self) -> str:
        """One line per rank, tokens in execution order."""
        return "\n".join(
            " ".join(self.token(i) for i in range(int(self.rank_ptr[r]), int(self.rank_ptr[r + 1])))
            for r in range(self.P)
        )

    @classmethod
    def from_rank_lists(
        cls,
        m: int,
        stage_to_rank: Sequence[int],
        ranks: Sequence[Sequence[tuple]],
        segment: Sequence[Sequence[int]] | None = None,
    ) -> Order:
        """Build an order from readable per-rank lists of op tuples (see `op`)."""
        flat = [op for ops in ranks for op in ops]
        n = len(flat)
        kind = np.empty(n, np.int8)
        mb, stage, mb2, stage2 = (np.full(n, -1, np.int64) for _ in range(4))
        for i, op in enumerate(flat):
            code = KIND_CODES.get(op[0])
            if code is None:
                raise OrderError("order.kind", kind=str(op[0]), valid=", ".join(KIND_NAMES))
            kind[i] = code
            mb[i] = op[1]
            if code in (EF, EB):
                continue
            stage[i] = op[2]
            if code == FB:
                mb2[i], stage2[i] = op[3], op[4]
        seg = None
        if segment is not None:
            seg = np.array([s for segs in segment for s in segs], dtype=np.int8)
        return cls(
            P=len(ranks), m=m, stage_to_rank=np.asarray(stage_to_rank, dtype=np.int64),
            kind=kind, mb=mb, stage=stage, mb2=mb2, stage2=stage2,
            rank_ptr=np.concatenate([[0], np.cumsum([len(o) for o in ranks])]).astype(np.int64),
            segment=seg,
        )


def token(op: tuple) -> str:
    kind = op[0]
    if kind == "F&B":
        return f"{op[2]}F{op[1]}&{op[4]}B{op[3]}"
    if kind in ("EF", "EB"):
        return f"{kind}{op[1]}"
    return f"{op[2]}{kind}{op[1]}"


# A stage or micro-batch is written with ASCII digits, at most 9 of them: any other
# decimal digit (`\d` would read '٣' as 3) is not an op, and a longer number would
# overflow the order's int64 arrays.
_N = r"([0-9]{1,9})"
_TOKEN = re.compile(_N + r"([FBIW])" + _N)
_PAIR = re.compile(_N + "F" + _N + "&" + _N + "B" + _N)
_ENCODER = re.compile(r"E([FB])" + _N)
# PyTorch's communication and sharding actions: pipeviz models communication as a
# latency on each cross-rank dependency, so these are read and left out.
_COMM = re.compile(r"[0-9]+(SEND_F|RECV_F|SEND_B|RECV_B|UNSHARD|RESHARD|REDUCE_GRAD)[0-9]*")


def parse_token(text: str) -> tuple | None:
    """One token as an op tuple, () for a communication action, None if not a token."""
    if found := _TOKEN.fullmatch(text):
        return (found.group(2), int(found.group(3)), int(found.group(1)))
    if found := _PAIR.fullmatch(text):
        return ("F&B", int(found.group(2)), int(found.group(1)), int(found.group(4)), int(found.group(3)))
    if found := _ENCODER.fullmatch(text):
        return ("E" + found.group(1), int(found.group(2)))
    if _COMM.fullmatch(text):
        return ()
    return None


def parse_rank_lists(text: str) -> list[list[tuple]]:
    """Each non-comment line's tokens as op tuples (OrderError naming the first bad token)."""
    lines = [line.split("#", 1)[0].replace(",", " ").split() for line in text.splitlines()]
    n = sum(len(toks) for toks in lines)
    if n > MAX_OPS:
        raise OrderError("order.too_many", n=f"{n:,}", max=f"{MAX_OPS:,}")
    ranks = []
    for line_no, toks in enumerate(lines, start=1):
        if not toks:
            continue
        ops = []
        for tok in toks:
            op = parse_token(tok)
            if op is None:
                raise OrderError("order.token", token=tok, line=line_no)
            if op:
                ops.append(op)
        ranks.append(ops)
    return ranks


def parse_order(text: str, placement_name: str = "loop", P: int | None = None) -> Order:
    """An order from its text form: one line per rank (lines starting with # are
    comments). See `order_from_ranks`."""
    if placement_name not in PLACEMENTS:
        raise OrderError("order.placement", placement=placement_name, valid=", ".join(PLACEMENTS))
    return order_from_ranks(parse_rank_lists(text), placement_name, P)


def order_from_ranks(ranks: list[list[tuple]], placement_name: str = "loop", P: int | None = None) -> Order:
    """An order from each rank's op tuples (see `Order.op`). m is read from the order;
    the stage count from the placement and the highest stage used. Validity (each
    op once, on its rank) is the simulator's check, so an order may still be refused
    there; what is refused here is an order too large to time (`check_size`)."""
    if placement_name not in PLACEMENTS:
        raise OrderError("order.placement", placement=placement_name, valid=", ".join(PLACEMENTS))
    if not ranks:
        raise OrderError("order.empty")
    if P is not None and len(ranks) != P:
        raise OrderError("order.lines", lines=len(ranks), P=P)
    P = len(ranks)
    ops = [op for r in ranks for op in r]
    mbs = [op[1] for op in ops] + [op[3] for op in ops if op[0] == "F&B"]
    stages = [op[2] for op in ops if len(op) > 2] + [op[4] for op in ops if op[0] == "F&B"]
    if not stages:
        raise OrderError("order.empty")
    m = max(mbs) + 1
    S = 2 * P if placement_name == "v" else P * -(-(max(stages) + 1) // P)
    check_size(m, S)  # before anything of size S or m * S is allocated
    s2r = v_placement(P) if placement_name == "v" else loop_placement(P, S // P)
    return Order.from_rank_lists(m, s2r, ranks)


def check_size(m: int, S: int) -> None:
    """An order with m micro-batches on S stages holds a forward and a backward of
    each (mb, stage): 2mS ops at least. Past MAX_OPS it is refused before any
    (m, S) table is built (a pasted '0F999999999' would ask for gigabytes)."""
    if 2 * m * S > MAX_OPS:
        raise OrderError("order.too_big", last_mb=m - 1, last_stage=S - 1, n=f"{2 * m * S:,}", max=f"{MAX_OPS:,}")


class OrderBuilder:
    """Builds an Order phase by phase, for all ranks at once.

    A generator names each phase and its closed-form step count per rank, then says
    which ops one step runs:

        r, i = order.steps(m - w)                  # Step 2: m - w_r steady steps
        order.emit(r, (F, w[r] + i, r), (B, i, r))  # each runs F(w+i), then B(i)

    `steps(counts)` returns, flat over every rank's steps, the rank r and the step
    index i within the phase; `emit` appends the ops of every step, in order. An op
    is (kind, mb, stage), or (F&B, mb, stage, mb2, stage2); mb and stage are arrays
    over the steps or scalars. Phases land on each rank in the order they are
    emitted, so a generator reads as its list of named phases (docs/model.md,
    "Schedules"), and costs a few numpy calls per phase whatever P is.
    """

    def __init__(self, P: int, m: int, stage_to_rank: np.ndarray):
        self.P, self.m = P, m
        self.stage_to_rank = stage_to_rank
        self._parts: list[np.ndarray] = []  # per phase, rows rank, kind, mb, stage, mb2, stage2
        self._phases: list[tuple[int, int]] = []  # per phase, (steps, ops per step)

    def steps(self, counts) -> tuple[np.ndarray, np.ndarray]:
        """(rank, step) of every step when rank r runs counts[r] steps (counts may be a scalar)."""
        counts = np.asarray(counts, dtype=np.int64).reshape(-1)
        if counts.size not in (1, self.P):
            raise ValueError(f"steps: {counts.size} counts for {self.P} ranks")
        return _steps(counts, self.P)

    def emit(self, rank: np.ndarray, *ops: tuple) -> None:
        """Each step runs `ops` in order."""
        n, k = rank.size, len(ops)
        if n == 0:
            return
        # One (6, k, n) block per phase, op-major so every write is one contiguous row
        # (a numpy call costs about a microsecond, as much as the arithmetic of a small
        # order); `_pack` reads it back step by step, each step's ops in order.
        part = np.empty((6, k, n), dtype=np.int64)
        part[0] = rank
        part[4:] = -1
        for j, op in enumerate(ops):
            for c, value in enumerate(op):
                part[1 + c, j] = value
        self._parts.append(part.reshape(6, k * n))
        self._phases.append((n, k))

    def build(self, keep_mb_below: int | None = None) -> Order:
        """Pack the phases rank by rank. `keep_mb_below` drops padding micro-batches
        (a generator may write its phases for more micro-batches than m)."""
        parts = np.concatenate(self._parts, axis=1) if self._parts else np.zeros((6, 0), np.int64)
        keep_below = -1 if keep_mb_below is None else int(keep_mb_below)
        phases = np.array(self._phases, dtype=np.int64).reshape(-1, 2)
        kind, mb, stage, mb2, stage2, rank_ptr = _pack(parts, phases, self.P, keep_below)
        return Order(P=self.P, m=self.m, stage_to_rank=self.stage_to_rank,
                     kind=kind, mb=mb, stage=stage, mb2=mb2, stage2=stage2, rank_ptr=rank_ptr)


@numba.njit(cache=True, nogil=True)
def _steps(counts, P):  # pragma: no cover (compiled)
    """OrderBuilder.steps: counts has P entries, or one for every rank; a negative count is none."""
    per = np.maximum(counts if counts.size == P else np.full(P, counts[0]), 0)
    n = per.sum()
    rank = np.empty(n, np.int64)
    step = np.empty(n, np.int64)
    at = 0
    for r in range(P):
        for i in range(per[r]):
            rank[at], step[at] = r, i
            at += 1
    return rank, step


@numba.njit(cache=True, nogil=True)
def _pack(parts, phases, P, keep_below):  # pragma: no cover (compiled)
    """The steps' ops rank by rank, each rank's in emission order (a stable counting
    sort), dropping ops of micro-batches >= keep_below (if keep_below >= 0).
    parts: rows rank, kind, mb, stage, mb2, stage2; phase by phase, a block of k
    rows of n steps (`emit`), so op j of step t is at column j * n + t."""
    rank, kind, mb, stage, mb2, stage2 = parts[0], parts[1], parts[2], parts[3], parts[4], parts[5]
    n_all = rank.size
    src = np.empty(n_all, np.int64)  # columns in emission order
    at = 0
    base = 0
    for p in range(phases.shape[0]):
        n, k = phases[p, 0], phases[p, 1]
        for t in range(n):
            for j in range(k):
                src[at] = base + j * n + t
                at += 1
        base += n * k
    keep = np.ones(n_all, np.bool_)
    if keep_below >= 0:
        for i in range(n_all):
            keep[i] = mb[i] < keep_below and mb2[i] < keep_below
    rank_ptr = np.zeros(P + 1, np.int64)
    for i in range(n_all):
        if keep[i]:
            rank_ptr[rank[i] + 1] += 1
    for r in range(P):
        rank_ptr[r + 1] += rank_ptr[r]
    nxt = rank_ptr[:-1].copy()
    total = rank_ptr[P]
    o_kind = np.empty(total, np.int8)
    o_mb = np.empty(total, np.int64)
    o_stage = np.empty(total, np.int64)
    o_mb2 = np.empty(total, np.int64)
    o_stage2 = np.empty(total, np.int64)
    for e in range(n_all):
        i = src[e]
        if keep[i]:
            j = nxt[rank[i]]
            nxt[rank[i]] = j + 1
            o_kind[j], o_mb[j], o_stage[j], o_mb2[j], o_stage2[j] = kind[i], mb[i], stage[i], mb2[i], stage2[i]
    return o_kind, o_mb, o_stage, o_mb2, o_stage2, rank_ptr
