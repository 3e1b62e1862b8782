"""Bring your own order: read one, check it, time it and measure it like any schedule.

An order comes as text, one line per rank in PyTorch's action notation (docs/interfaces.md,
"Orders as text"; `order.parse_order`), or as the JSON export's `ops` (the whole
export object or its list). P is the number of ranks in the order and m is read
from it; the placement (loop or v) and the costs are the reader's. The checks are
the simulator's (every op exactly once, on the rank holding its stage), and each
refusal is one message naming the first problem.

An order that cannot finish is still shown: the result then holds the ops that ran,
timed, and `stuck`: each stuck rank's next op, drawn after the rank's last op that
ran, with the op it waits for. There is no closed form for an order of one's own
(`theory` is None).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from .config import Config
from .costs import Costs
from .engine import Result
from .errors import DeadlockError, OrderError
from .metrics import measure
from .order import KIND_CODES, PLACEMENTS, Order, order_from_ranks, parse_order
from .schedule import Schedule
from .simulate import Timeline, dependencies, describe_op, op_durations, simulate

CUSTOM = "custom"  # the schedule name an order of one's own is shown and exported under
MAX_TEXT = 64_000_000  # characters: about ten times the text of the largest order pipeviz times


def _no_generator(cfg: Config):  # pragma: no cover (an order of one's own is read, not generated)
    raise OrderError("order.empty")


ENTRIES = {
    p: Schedule(name=CUSTOM, position=10_000, placement=p, fixed_V=None, ops_per_chunk=3,
                generate=_no_generator, closed_form=_no_generator)
    for p in PLACEMENTS
}


def read(text: str, placement: str = "loop", P: int | None = None) -> Order:
    """An order from text: the action notation, or JSON (starting with { or [)."""
    if placement not in PLACEMENTS:
        raise OrderError("order.placement", placement=str(placement), valid=", ".join(PLACEMENTS))
    if text.lstrip()[:1] in ("{", "["):
        return from_json(text, placement, P)
    return parse_order(text, placement, P)


MAX_DEPTH = 32  # the export nests 4 deep; a deeper JSON is refused before it is parsed
MAX_NUMBER = 999_999_999  # as in the text form: at most 9 digits
_STRING = re.compile(r'"(?:[^"\\]|\\[\s\S])*"')


def from_json(text: str, placement: str = "loop", P: int | None = None) -> Order:
    """An order from the JSON export (docs/interfaces.md): its `ops`, each rank's in execution
    order. An input-gradient backward is a B with "backward": "input". Read as
    strictly as a browser reads JSON (no NaN or Infinity), and no deeper than
    MAX_DEPTH, so that the page's twin says the same of any text."""
    depth = 0
    for c in re.sub(r"[^\[\]{}]", "", _STRING.sub("", text)):
        depth += 1 if c in "[{" else -1
        if depth > MAX_DEPTH:
            raise OrderError("order.json_deep", depth=MAX_DEPTH)
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise OrderError("order.json") from None
    ops = data.get("ops") if isinstance(data, dict) else data
    if not isinstance(ops, list) or not ops:
        raise OrderError("order.json_ops")
    by_rank: dict[int, list[tuple]] = {}
    for n, op in enumerate(ops):
        rank, tup = _json_op(op, n)
        by_rank.setdefault(rank, []).append(tup)
    ranks = max(by_rank) + 1
    if ranks > len(by_rank):  # a rank with no ops cannot run the stages it holds
        empty = next(r for r in range(ranks) if r not in by_rank)
        raise OrderError("order.json_empty_rank", rank=empty)
    if P is not None and ranks != P:
        raise OrderError("order.json_ranks", ranks=ranks, P=P)
    return order_from_ranks([by_rank[r] for r in range(ranks)], placement)


def _no_constant(name: str):
    raise ValueError(name)  # NaN and Infinity are not JSON


def _whole(op: dict, key: str, n: int) -> int:
    value = op.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_NUMBER:
        raise OrderError("order.json_number", n=n, key=key, max=MAX_NUMBER)
    return value


def _json_op(op, n: int) -> tuple[int, tuple]:
    if not isinstance(op, dict):
        raise OrderError("order.json_op", n=n)
    rank = _whole(op, "rank", n)
    kind = op.get("kind")
    if kind == "F&B":
        parts = op.get("parts")
        if not (isinstance(parts, list) and len(parts) == 2 and all(isinstance(p, dict) for p in parts)
                and parts[0].get("kind") == "F" and parts[1].get("kind") == "B"):
            raise OrderError("order.json_pair", n=n)
        f, b = parts
        return rank, ("F&B", _whole(f, "mb", n), _whole(f, "stage", n), _whole(b, "mb", n), _whole(b, "stage", n))
    if kind in ("EF", "EB"):
        return rank, (kind, _whole(op, "mb", n))
    if kind == "B" and op.get("backward") == "input":
        kind = "I"
    if not isinstance(kind, str) or kind not in KIND_CODES:
        raise OrderError("order.json_kind", n=n)
    return rank, (kind, _whole(op, "mb", n), _whole(op, "stage", n))


@dataclass(frozen=True, eq=False)
class Stuck:
    """The op each stuck rank is stuck at, and the op that one waits for."""

    rank: np.ndarray  # (k,) the stuck ranks
    left: np.ndarray  # (k,) where the stuck op is drawn: from its rank's last end (or 0)
    right: np.ndarray  # (k,) ... for its duration
    op: list[str]  # 'F(mb 1, stage 1)'
    waits: list[str]  # 'F(mb 1, stage 0)'
    waits_rank: np.ndarray  # (k,) the rank of the op waited for
    token: list[str]  # the stuck op in the action notation, '1F1'
    waits_token: list[str]  # the op it waits for, '0F1'
    kind: np.ndarray  # (k,) the stuck op's kind (its colour)
    stage: np.ndarray  # (k,) and stage (its chunk's shade)


@dataclass(frozen=True, eq=False)
class OrderResult(Result):
    """An order of one's own, timed and measured (`theory` is None). When it deadlocks,
    `order` and `timeline` hold the ops that ran, and `deadlock` and `stuck` say
    where it stuck."""

    placement: str = "loop"
    deadlock: DeadlockError | None = None
    stuck: Stuck | None = None

    @property
    def bubble_agrees(self) -> bool:
        return False

    @property
    def steady_agrees(self) -> bool:
        return False

    @property
    def peak_agrees(self) -> bool:
        return False

    @cached_property
    def bubble_parts(self):
        """The parts of the bubble, as a schedule's result has them; None for an order
        that deadlocked (its ops that ran are not an iteration to time again)."""
        return None if self.deadlock is not None else super().bubble_parts


def run_order(order: Order, costs: Costs, placement: str) -> OrderResult:
    """Time and measure `order` (an OrderError if it is not a valid order)."""
    cfg = Config(CUSTOM, order.P, order.m, order.chunks_per_rank, costs)
    entry = ENTRIES[placement]
    try:
        tl = simulate(order, costs)
    except OrderError as e:
        other = "v" if placement == "loop" else "loop"
        if e.msg.key == "order.wrong_rank" and _fits(order, other):
            raise OrderError("order.wrong_placement", **e.msg.args, placement=placement, other=other) from None
        raise
    except DeadlockError as e:
        ran = _ran(order, e.timed)
        tl = Timeline(order=ran, costs=costs, start=e.start[e.timed], end=e.end[e.timed],
                      deps=dependencies(ran, costs.comm))
        return OrderResult(cfg, entry, ran, tl, measure(tl), None, placement=placement, deadlock=e,
                           stuck=_stuck(order, costs, e))
    return OrderResult(cfg, entry, order, tl, measure(tl), None, placement=placement)


def run_text(text: str, placement: str, costs: Costs, P: int | None = None) -> OrderResult:
    return run_order(read(text, placement, P), costs, placement)


@lru_cache(maxsize=16)
def read_cached(text: str, placement: str) -> Order:
    return read(text, placement)


@lru_cache(maxsize=16)
def run_cached(text: str, placement: str, costs: Costs) -> OrderResult:
    """Shared by the explorer's sessions: a result depends only on its arguments."""
    return run_order(read_cached(text, placement), costs, placement)


def _fits(order: Order, placement: str) -> bool:
    """Every op is on the rank `placement` puts its stage on."""
    P = order.P
    stages = np.concatenate([order.stage, order.stage2[order.stage2 >= 0]])
    ranks = np.concatenate([order.rank, order.rank[order.stage2 >= 0]])
    on = stages >= 0
    stages, ranks = stages[on], ranks[on]
    if placement == "v":
        home = np.where(stages < P, stages, 2 * P - 1 - stages)
        return bool((stages < 2 * P).all() and (home == ranks).all())
    return bool((stages % P == ranks).all())


def _ran(order: Order, timed: np.ndarray) -> Order:
    """The sub-order of the ops that ran, each rank's in its order."""
    counts = np.bincount(order.rank[timed], minlength=order.P)
    return Order(
        P=order.P, m=order.m, stage_to_rank=order.stage_to_rank,
        kind=order.kind[timed], mb=order.mb[timed], stage=order.stage[timed],
        mb2=order.mb2[timed], stage2=order.stage2[timed],
        rank_ptr=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        segment=None if order.segment is None else order.segment[timed],
    )


def _stuck(order: Order, costs: Costs, e: DeadlockError) -> Stuck:
    rank = np.array([b[0] for b in e.blocked], dtype=np.int64)
    ops = np.array([b[1] for b in e.blocked], dtype=np.int64)
    ends = np.where(e.timed, e.end, 0.0)
    # Each stuck rank's last op that ran ends where its stuck op would start.
    last_end = np.zeros(order.P)
    np.maximum.at(last_end, order.rank, ends)
    left = last_end[rank]
    dur = op_durations(order, costs)[ops]
    return Stuck(
        rank=rank, left=left, right=left + dur,
        op=[describe_op(order, int(i)) for i in ops],
        waits=[b[4] for b in e.blocked],
        waits_rank=np.array([b[5] for b in e.blocked], dtype=np.int64),
        token=[order.token(int(i)) for i in ops],
        waits_token=[order.token(int(b[3])) for b in e.blocked],
        kind=order.kind[ops].astype(np.int64),
        stage=order.stage[ops],
    )
