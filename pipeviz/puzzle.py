"""Learn by building: a student schedules the pipeline by hand (docs/model.md, "Puzzles").

A puzzle is a goal (`Goal`: which schedule is par, whether the backward is split into I
and W, whether encoder ops are placed too) at a size (`Setup`: P, m, V, a cap on the
activations in flight per rank, the costs). The student places ops one at a time,
each as its rank's next op; the simulator times the order placed so far, each op as
soon as possible after its dependency and its rank's previous op. An op is refused,
with the reason as a message, when it is

  not an op of the puzzle   a kind the puzzle does not use, or out of its range
  placed already
  waiting                   its dependency (simulate.py's) is not placed yet
  over the cap              a forward that would hold more activations on its rank
                            than the cap allows (in chunks; a rank's count rises at
                            each forward and falls at each last backward: B, or W
                            where the backward is split)

A board (`replay`) is the placed order read back from its moves: every move in turn,
stopping at the first refused one. The moves are text, comma-separated tokens in
PyTorch's action notation (`0F3`); an encoder op, which has no stage, names its rank
(`EF3@2`). Everything else is a function of a board: each rank's next ops
(`candidates`), a hint (`hint`), the score against par (`score`), and what the
explorer draws (`result`). static/puzzle.js is the twin.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from .config import PLACES, Config, Encoder
from .costs import Costs
from .custom import CUSTOM, ENTRIES, OrderResult
from .encoder import durations as encoder_durations
from .engine import Result, run
from .errors import ConfigError
from .metrics import Metrics, measure
from .order import KIND_CODES, KIND_NAMES, Order, loop_placement
from .registry import NAMES as SCHEDULE_NAMES
from .registry import SCHEDULES
from .simulate import Deps, Timeline, op_durations, simulate
from .text import Msg, msg

OFF = "off"  # no puzzle: the explorer shows the schedules
PAR_PLACE = "bubbles"  # the encoder goal's par places the encoder in the bubbles (pipeviz/encoder.py)


@dataclass(frozen=True)
class Goal:
    """A guided puzzle: its name (the URL's value), the schedule that is par, and what
    is placed."""

    name: str
    known: str  # the schedule it is measured against
    split: bool = False  # each backward is I, then W
    encoder: bool = False  # encoder ops EF and EB are placed too (pipeviz/encoder.py)
    V: tuple[int, int] = (1, 1)  # the chunks per rank it allows (its default the first)
    cap: str = "none"  # the cap it opens with
    holds_all: bool = False  # solved only if every rank held all its activations at once (GPipe)


# In the article's order: GPipe's memory, 1F1B under a cap, V chunks, the split backward,
# independent work in the bubbles.
GOALS: dict[str, Goal] = {g.name: g for g in (
    Goal("gpipe", "gpipe", holds_all=True),
    Goal("1f1b", "1f1b", cap="P-r"),
    Goal("interleaved", "interleaved", V=(2, 4)),
    Goal("zb", "zb-h1", split=True, cap="P"),
    Goal("encoder", "1f1b", encoder=True),
)}
NAMES = (OFF, *GOALS)
# Placed by hand: at most this many ranks and micro-batches (interleaved at V = 4: 1,024 ops).
P_MAX, M_MAX = 8, 16
CAP_MAX = 32
# The caps: none, P - r on rank r (1F1B's), P on every rank, or a number on every rank.
CAPS = ("none", "P-r", "P", *(str(n) for n in range(1, CAP_MAX + 1)))
SEP = ","  # between moves in their text (and the URL)
MOVES_MAX = 8192  # characters: every move of the largest puzzle, with room to spare
DIFF_SHOWN = 3  # differences from par named in the score


# -- moves ---------------------------------------------------------------------------------

# A move: (kind, mb, stage, rank); an encoder op's stage is -1.
_STAGE_OP = re.compile(r"([0-9]{1,9})([FBIW])([0-9]{1,9})")
_ENCODER_OP = re.compile(r"E([FB])([0-9]{1,9})(?:@([0-9]{1,9}))?")
ENCODER_KINDS = ("EF", "EB")


def move_text(mv: tuple) -> str:
    kind, mb, stage, rank = mv
    return f"{kind}{mb}@{rank}" if kind in ENCODER_KINDS else f"{stage}{kind}{mb}"


def op_msg(mv: tuple) -> Msg:
    """'F(mb 3, stage 1)', 'EF(mb 3)', in the reader's language."""
    kind, mb, stage, _ = mv
    if kind in ENCODER_KINDS:
        return msg("op.encoder", kind=kind, mb=mb)
    return msg("op.desc", kind=kind, mb=mb, stage=stage)


def split_moves(text: str) -> list[str]:
    return [t for t in re.split(r"[,\s]+", text) if t]


@dataclass(frozen=True)
class Setup:
    """One puzzle at one size."""

    goal: Goal
    P: int
    m: int
    V: int
    cap: str
    costs: Costs
    encoder: Encoder | None = None  # the encoder goal's e_f, e_b and frozen (placed in the bubbles for par)

    @property
    def S(self) -> int:
        return self.P * self.V

    @property
    def kinds(self) -> tuple[str, ...]:
        stage = ("F", "I", "W") if self.goal.split else ("F", "B")
        if not self.goal.encoder:
            return stage
        return stage + (("EF",) if self.encoder is not None and self.encoder.frozen else ENCODER_KINDS)

    @property
    def total(self) -> int:
        """Every op of the puzzle."""
        per = 3 if self.goal.split else 2
        enc = len([k for k in self.kinds if k in ENCODER_KINDS])
        return self.m * self.S * per + self.m * enc

    def cap_of(self, rank: int) -> int | None:
        """The most activations rank `rank` may hold, or None."""
        if self.cap == "none":
            return None
        if self.cap == "P-r":
            return self.P - rank
        if self.cap == "P":
            return self.P
        return int(self.cap)

    def back(self) -> str:
        """The backward that passes the gradient on: I where split, else B."""
        return "I" if self.goal.split else "B"

    def parse(self, text: str, rank: int | None = None) -> tuple | Msg:
        """The move `text` names (an encoder op without its rank goes on `rank`), or why
        it names none."""
        t = text.strip()
        if found := _STAGE_OP.fullmatch(t):
            stage = int(found.group(1))
            return (found.group(2), int(found.group(3)), stage, stage % self.P)
        found = _ENCODER_OP.fullmatch(t)
        if found and (found.group(3) is not None or rank is not None):
            on = int(found.group(3)) if found.group(3) is not None else rank
            return ("E" + found.group(1), int(found.group(2)), -1, on)
        return msg("puzzle.not_op", text=t[:20], kinds=", ".join(self.kinds))

    def dependency(self, mv: tuple) -> tuple | None:
        """The op `mv` waits for (simulate.py's dependencies; each op here has at most
        one), as a move whose rank is its stage's (an EF's: -1, any rank)."""
        kind, mb, stage, _ = mv
        S, P = self.S, self.P
        if kind == "F":
            if stage > 0:
                return ("F", mb, stage - 1, (stage - 1) % P)
            return ("EF", mb, -1, -1) if self.goal.encoder else None
        if kind in ("B", "I"):
            if stage < S - 1:
                return (kind, mb, stage + 1, (stage + 1) % P)
            return ("F", mb, S - 1, (S - 1) % P)
        if kind == "W":
            return ("I", mb, stage, stage % P)
        if kind == "EB":
            return (self.back(), mb, 0, 0)
        return None  # EF


def setup_of(goal: str, P: int, m: int, V: int, cap: str, costs: Costs, encoder: Encoder | None = None) -> Setup:
    g = GOALS[goal]
    return Setup(g, P, m, V, cap, costs, encoder if g.encoder else None)


# -- the board -----------------------------------------------------------------------------

N_KINDS = len(KIND_NAMES)


@dataclass(frozen=True, eq=False)
class Board:
    """The order placed so far, read back from its moves (`replay`)."""

    setup: Setup
    moves: tuple[tuple, ...]  # the moves placed, in the order they were placed
    refused: tuple[int, str, Msg] | None  # the first move replay refused: (index, its text, why)
    placed_on: np.ndarray  # (kinds, m, stages) the rank each op is placed on, -1 if not (encoder ops at stage 0)
    held: np.ndarray  # (P,) activations each rank holds now (chunks)

    @cached_property
    def ranks(self) -> list[list[tuple]]:
        out: list[list[tuple]] = [[] for _ in range(self.setup.P)]
        for mv in self.moves:
            out[mv[3]].append(mv)
        return out

    @cached_property
    def order(self) -> Order:
        s = self.setup
        ops = [[(k, mb) if k in ENCODER_KINDS else (k, mb, st) for k, mb, st, _ in r] for r in self.ranks]
        return Order.from_rank_lists(s.m, loop_placement(s.P, s.V), ops)

    @cached_property
    def timeline(self) -> Timeline:
        """The placed ops timed by the simulator (the order is incomplete: unchecked)."""
        s, order = self.setup, self.order
        dur = encoder_durations(order, s.costs, s.encoder) if s.encoder is not None else op_durations(order, s.costs)
        return simulate(order, s.costs, dur, check=False)

    @cached_property
    def metrics(self) -> Metrics:
        return measure(self.timeline)

    @cached_property
    def index(self) -> np.ndarray:
        """(kinds, m, stages) each placed op's index in the order (rank-major), -1 if not placed."""
        out = np.full(self.placed_on.shape, -1, dtype=np.int64)
        ptr = self.order.rank_ptr
        for r, ops in enumerate(self.ranks):
            for j, (k, mb, st, _) in enumerate(ops):
                out[KIND_CODES[k], mb, max(st, 0)] = ptr[r] + j
        return out

    @property
    def complete(self) -> bool:
        return len(self.moves) == self.setup.total

    def rank_of(self, mv: tuple) -> int:
        kind, mb, stage, _ = mv
        return int(self.placed_on[KIND_CODES[kind], mb, max(stage, 0)])

    def free(self, rank: int) -> float:
        """When rank `rank`'s next op could start at the earliest: its last op's end."""
        ptr = self.order.rank_ptr
        return float(self.timeline.end[ptr[rank + 1] - 1]) if ptr[rank + 1] > ptr[rank] else 0.0

    def why_not(self, mv: tuple) -> Msg | None:
        """Why `mv` cannot be placed now, or None (the checks in the module's docstring, in order)."""
        s = self.setup
        kind, mb, stage, rank = mv
        text = move_text(mv)
        if kind not in s.kinds:
            if kind == "B" and s.goal.split:
                return msg("puzzle.split_b", text=text)
            if kind in ("I", "W") and not s.goal.split:
                return msg("puzzle.whole_b", text=text)
            return msg("puzzle.frozen" if s.goal.encoder else "puzzle.no_encoder", text=text)
        if not (mb < s.m and stage < s.S and 0 <= rank < s.P):
            return msg("puzzle.range", text=text, last_mb=s.m - 1, last_stage=s.S - 1, last_rank=s.P - 1)
        if self.rank_of(mv) >= 0:
            return msg("puzzle.placed", op=op_msg(mv), rank=self.rank_of(mv))
        dep = s.dependency(mv)
        if dep is not None and self.rank_of(dep) < 0:
            if dep[0] == "EF":
                return msg("puzzle.waits_encoder", op=op_msg(mv), dep=op_msg(dep))
            return msg("puzzle.waits", op=op_msg(mv), dep=op_msg(dep), rank=dep[3])
        cap = s.cap_of(rank)
        if kind == "F" and cap is not None and int(self.held[rank]) + 1 > cap:
            return msg("puzzle.cap", rank=rank, n=int(self.held[rank]) + 1, cap=cap)
        return None

    def start_if(self, mv: tuple) -> float:
        """When `mv` would start if placed now (as the simulator would time it)."""
        kind, mb, stage, rank = mv
        t = self.free(rank)
        dep = self.setup.dependency(mv)
        if dep is not None:
            i = int(self.index[KIND_CODES[dep[0]], mb, max(dep[2], 0)])
            lag = self.setup.costs.comm if self.rank_of(dep) != rank else 0.0
            at = float(self.timeline.end[i]) + lag
            if at > t:
                t = at
        return t

    def candidates(self, rank: int) -> list[tuple[tuple, Msg | None]]:
        """Rank `rank`'s next ops: for each of its stages and each kind, the first
        micro-batch that can be placed now, else the first not placed (with why not);
        then the encoder's, if any."""
        s = self.setup
        slots = [(k, c * s.P + rank) for c in range(s.V) for k in s.kinds if k not in ENCODER_KINDS]
        slots += [(k, -1) for k in s.kinds if k in ENCODER_KINDS]
        out = []
        for kind, stage in slots:
            first = None
            for mb in range(s.m):
                mv = (kind, mb, stage, rank)
                if self.rank_of(mv) >= 0:
                    continue
                why = self.why_not(mv)
                if why is None:
                    first = (mv, None)
                    break
                if first is None:
                    first = (mv, why)
            if first is not None:
                out.append(first)
        return out


def replay(setup: Setup, text: str) -> Board:
    """The board the moves `text` make, stopping at the first refused one."""
    s = setup
    placed_on = np.full((N_KINDS, s.m, max(s.S, 1)), -1, dtype=np.int64)
    held = np.zeros(s.P, dtype=np.int64)
    board = Board(s, (), None, placed_on, held)
    moves: list[tuple] = []
    refused = None
    back_end = "W" if s.goal.split else "B"  # the op that frees an activation
    for i, tok in enumerate(split_moves(text)):
        mv = s.parse(tok)
        why = mv if isinstance(mv, Msg) else board.why_not(mv)
        if why is not None:
            refused = (i, tok[:20], why)
            break
        kind, mb, stage, rank = mv
        placed_on[KIND_CODES[kind], mb, max(stage, 0)] = rank
        held[rank] += 1 if kind == "F" else -1 if kind == back_end else 0
        moves.append(mv)
    return Board(s, tuple(moves), refused, placed_on, held)


@lru_cache(maxsize=64)
def replay_cached(setup: Setup, text: str) -> Board:
    """Shared by the explorer's sessions: a board depends only on its arguments."""
    return replay(setup, text)


def moves_text(moves) -> str:
    return SEP.join(move_text(mv) for mv in moves)


# -- actions: what a click or a key does ---------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """An action's new moves and redo stack (None: unchanged) and what it did, in words."""

    moves: str | None
    redo: str | None
    said: Msg


def place(setup: Setup, moves: str, redo: str, text: str, rank: int | None = None) -> Outcome:
    """Place the op `text` (an encoder op without its rank goes on `rank`), or say why not."""
    board = replay_cached(setup, moves)
    mv = setup.parse(text, rank)
    why = mv if isinstance(mv, Msg) else board.why_not(mv)
    if why is not None:
        return Outcome(None, None, msg("puzzle.refused", why=why))
    new = moves_text(board.moves + (mv,))
    after = replay_cached(setup, new)
    i = int(after.index[KIND_CODES[mv[0]], mv[1], max(mv[2], 0)])
    stack = split_moves(redo)
    rest = SEP.join(stack[1:]) if stack and setup.parse(stack[0]) == mv else ""  # the next redo, or a new line
    said = msg("puzzle.placed_at", op=op_msg(mv), rank=mv[3], start=float(after.timeline.start[i]),
               end=float(after.timeline.end[i]))
    if not after.complete and not any(why is None for r in range(setup.P) for _, why in after.candidates(r)):
        said = msg("puzzle.and", first=said, then=msg("puzzle.hint_stuck"))
    return Outcome(new, rest, said)


def undo(setup: Setup, moves: str, redo: str) -> Outcome:
    board = replay_cached(setup, moves)
    if not board.moves:
        return Outcome(None, None, msg("puzzle.no_undo"))
    last = board.moves[-1]
    return Outcome(moves_text(board.moves[:-1]), SEP.join([move_text(last), *split_moves(redo)]),
                   msg("puzzle.undone", op=op_msg(last), rank=last[3]))


def redo_move(setup: Setup, moves: str, redo: str) -> Outcome:
    stack = split_moves(redo)
    if not stack:
        return Outcome(None, None, msg("puzzle.no_redo"))
    return place(setup, moves, redo, stack[0])


def clear(setup: Setup, moves: str, redo: str) -> Outcome:
    """Empty the timeline; redo puts the moves back one at a time."""
    board = replay_cached(setup, moves)
    return Outcome("", SEP.join([move_text(mv) for mv in board.moves] + split_moves(redo)), msg("puzzle.cleared"))


# -- par, the hint, the score --------------------------------------------------------------


def config_of(setup: Setup, name: str, place: str | None = None) -> Config:
    """Schedule `name` at the puzzle's size (its own V where fixed), with the puzzle's
    encoder placed by `place`."""
    s = setup
    enc = None if s.encoder is None else Encoder(s.encoder.ef, s.encoder.eb, place or PAR_PLACE, s.encoder.frozen)
    return Config(name, s.P, s.m, SCHEDULES[name].fixed_V or s.V, s.costs, encoder=enc)


@lru_cache(maxsize=64)
def par(setup: Setup) -> Result | Msg:
    """The goal's schedule at the puzzle's size (the encoder's in the bubbles), or why
    there is none."""
    try:
        return run(config_of(setup, setup.goal.known))
    except ConfigError as e:
        return e.msg


def par_name(setup: Setup, name: str | None = None, place: str | None = None) -> Msg:
    """A known schedule's name in words (with its encoder placement, if any)."""
    title = Msg(f"sched.{name or setup.goal.known}.title")
    if setup.encoder is None:
        return title
    return msg("puzzle.with_encoder", name=title, place=Msg(f"choice.encoder.{place or PAR_PLACE}"))


def tokens(order: Order, r: int) -> list[str]:
    return [order.token(i) for i in range(int(order.rank_ptr[r]), int(order.rank_ptr[r + 1]))]


def hint(board: Board) -> Msg:
    """One good next op and why: par's next op on a rank whose ops so far are par's
    (the one that starts earliest), else the op that starts earliest of those that can
    be placed."""
    s = board.setup
    if board.complete:
        return msg("puzzle.hint_done")
    known = par(s)
    best = None
    if isinstance(known, Result):
        for r in range(s.P):
            mine, theirs = tokens(board.order, r), tokens(known.order, r)
            if len(mine) < len(theirs) and theirs[: len(mine)] == mine:
                mv = s.parse(theirs[len(mine)], r)
                if isinstance(mv, tuple) and board.why_not(mv) is None:
                    t = board.start_if(mv)
                    if best is None or t < best[0]:
                        best = (t, mv)
    if best is not None:
        return msg("puzzle.hint_par", op=op_msg(best[1]), rank=best[1][3], name=par_name(s), start=best[0])
    for r in range(s.P):
        for mv, why in board.candidates(r):
            if why is None:
                t = board.start_if(mv)
                if best is None or t < best[0]:
                    best = (t, mv)
    if best is None:
        return msg("puzzle.hint_stuck")
    return msg("puzzle.hint_ready", op=op_msg(best[1]), rank=best[1][3], start=best[0])


def same_order(a: Order, b: Order) -> bool:
    return a.P == b.P and all(tokens(a, r) == tokens(b, r) for r in range(a.P))


@lru_cache(maxsize=16)
def _known(setup: Setup) -> tuple[tuple[str, str | None, Result], ...]:
    """Every known schedule at the puzzle's size and placement: (name, encoder
    placement, result)."""
    out = []
    places = PLACES if setup.encoder is not None else (None,)
    for name in SCHEDULE_NAMES:
        spec = SCHEDULES[name]
        if spec.placement != "loop" or (spec.fixed_V or setup.V) != setup.V:
            continue
        for place in places:
            try:
                out.append((name, place, run(config_of(setup, name, place))))
            except ConfigError:
                pass
    return tuple(out)


def equals(board: Board) -> tuple[str, str | None, Result] | None:
    """The first known schedule the complete order is, op for op, or None."""
    if not board.complete:
        return None
    return next((k for k in _known(board.setup) if same_order(board.order, k[2].order)), None)


def differences(board: Board, known: Result) -> list[tuple[int, int, str, str]]:
    """Where the order and `known` differ, rank by rank, slot by slot: (rank, slot,
    yours, theirs); '' where one rank has no op at that slot."""
    out = []
    for r in range(board.setup.P):
        mine, theirs = tokens(board.order, r), tokens(known.order, r)
        for j in range(max(len(mine), len(theirs))):
            a = mine[j] if j < len(mine) else ""
            b = theirs[j] if j < len(theirs) else ""
            if a != b:
                out.append((r, j, a, b))
    return out


def num(x: float) -> str:
    return f"{x:.6g}"


def pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def score(board: Board) -> dict:
    """The score beside par, and once complete, whether the goal is met, which known
    schedule the order is, and how it differs from par (if it does)."""
    s, mt = board.setup, board.metrics
    known = par(s)
    peaks = [int(x) for x in mt.peak_chunks]
    out = {
        "placed": len(board.moves), "total": s.total, "makespan": num(mt.makespan), "bubble": pct(mt.bubble_fraction),
        "peak": peaks, "par": None, "no_par": None, "complete": board.complete, "solved": False, "verdict": None,
        "equals": None, "differs": None,
    }
    if isinstance(known, Result):
        out["par"] = {"name": par_name(s), "makespan": num(known.metrics.makespan),
                      "bubble": pct(known.metrics.bubble_fraction), "peak": [int(x) for x in known.metrics.peak_chunks]}
    else:
        out["no_par"] = known
    if not board.complete:
        out["verdict"] = msg("puzzle.todo", left=s.total - len(board.moves))
        return out
    slower = isinstance(known, Result) and mt.makespan > known.metrics.makespan * (1 + 1e-9)
    short = next((r for r, p in enumerate(peaks) if p < s.m * s.V), None) if s.goal.holds_all else None
    if short is not None:
        out["verdict"] = msg("puzzle.not_all", rank=short, peak=peaks[short], n=s.m * s.V)
    elif slower:
        out["verdict"] = msg("puzzle.slower", makespan=num(mt.makespan), par=num(known.metrics.makespan))
    else:
        out["solved"] = True
        out["verdict"] = (msg("puzzle.solved", makespan=num(mt.makespan), par=num(known.metrics.makespan))
                          if isinstance(known, Result) else msg("puzzle.solved_free", makespan=num(mt.makespan)))
    found = equals(board)
    if found is not None:
        out["equals"] = par_name(s, found[0], found[1])
    if isinstance(known, Result) and not same_order(board.order, known.order):
        diff = differences(board, known)
        first = [msg("puzzle.diff_item", rank=r, slot=j, yours=a or Msg("puzzle.nothing"),
                     theirs=b or Msg("puzzle.nothing"), name=par_name(s)) for r, j, a, b in diff[:DIFF_SHOWN]]
        out["differs"] = {"name": par_name(s), "n": len(diff), "total": s.total, "first": first}
    return out


# -- what the explorer draws ---------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PuzzleResult(OrderResult):
    """A puzzle shown in the explorer: the order placed so far, or, once complete and
    other than par, both on one time axis (`yours`: the student's own, whose numbers
    the readouts report). `label` says which in words."""

    label: Msg | None = None
    yours: Result | None = None

    @property
    def bubble_parts(self):
        return None  # the parts time the order again with other costs; a puzzle is the student's timing


def own_result(board: Board) -> PuzzleResult:
    s = board.setup
    label = msg("puzzle.shown", placed=len(board.moves), total=s.total, P=s.P, m=s.m, V=s.V)
    return PuzzleResult(Config(CUSTOM, s.P, s.m, s.V, s.costs), ENTRIES["loop"], board.order, board.timeline,
                        board.metrics, None, label=label)


def result(board: Board) -> Result:
    """What the explorer draws: par itself when the complete order is par's with par's
    very timeline (the same chart and readout as choosing it), both on one time axis
    when the complete order is another, else the order placed so far."""
    mine = own_result(board)
    if not board.complete:
        return mine
    known = par(board.setup)
    if not isinstance(known, Result):
        return mine
    if same_order(board.order, known.order):
        tl = known.timeline
        same_times = np.array_equal(tl.start, board.timeline.start) and np.array_equal(tl.end, board.timeline.end)
        return known if same_times else mine
    return compared(mine, known, board.setup)


def compared(mine: Result, known: Result, setup: Setup) -> PuzzleResult:
    """`mine` on ranks 0..P-1 and `known` on ranks P..2P-1 of one order with 2P ranks,
    each timed as it was: stage cP + r of rank r is stage 2cP + r, of rank P + r 2cP + P + r."""
    P, V = setup.P, setup.V
    a, b = mine.order, known.order

    def stages(o: Order, shift: int) -> np.ndarray:
        st = o.stage
        return np.where(st >= 0, (st // P) * 2 * P + shift + st % P, st)

    order = Order(
        P=2 * P, m=a.m, stage_to_rank=loop_placement(2 * P, V),
        kind=np.concatenate([a.kind, b.kind]), mb=np.concatenate([a.mb, b.mb]),
        stage=np.concatenate([stages(a, 0), stages(b, P)]),
        mb2=np.concatenate([a.mb2, b.mb2]), stage2=np.concatenate([a.stage2, b.stage2]),
        rank_ptr=np.concatenate([a.rank_ptr, b.rank_ptr[1:] + a.n_ops]),
    )
    ta, tb = mine.timeline.deps, known.timeline.deps
    deps = Deps(ptr=np.concatenate([ta.ptr, tb.ptr[1:] + ta.idx.size]), idx=np.concatenate([ta.idx, tb.idx + a.n_ops]),
                lag=np.concatenate([ta.lag, tb.lag]))
    tl = Timeline(order=order, costs=setup.costs, start=np.concatenate([mine.timeline.start, known.timeline.start]),
                  end=np.concatenate([mine.timeline.end, known.timeline.end]), deps=deps)
    label = msg("puzzle.shown_compare", name=par_name(setup))
    return PuzzleResult(Config(CUSTOM, 2 * P, a.m, V, setup.costs), ENTRIES["loop"], order, tl, measure(tl), None,
                        label=label, yours=mine)
