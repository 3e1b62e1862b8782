"""One profiled step from its traces: one file per rank -> a `Run` (the ops that ran,
when, in which order, and the communication around them).

The rules (docs/reading.md, "A real run"; docs/reading.md, "A real
run"), each failing with one TraceError that says what is wrong:
- Events: complete events (`"ph": "X"`) with numeric `ts` and `dur` (microseconds,
  dur >= 0), named as `names.classify` reads them; every other event is skipped.
- A file with no pipeline op is refused, naming up to three of its annotated regions
  (events of category user_annotation) so the user can write a pattern for them.
- Ranks: `ranks` given, file i is rank ranks[i] (a permutation of 0..P-1). Otherwise
  each file's `distributedInfo.rank`; ranks that are not 0..P-1 but distinct (a
  pipeline inside a larger job: 0, 2, 4, 6) are taken in ascending order; two files
  claiming one rank are refused, and so is a mix of files with and without one.
  Without any, the files' order.
- Clocks: `offsets_ms[r]` is added to every time of rank r (traces of several hosts).
  Times are then ms from the earliest compute start over all ranks:
  start = ((ts + off) - t0) / 1000, end = ((ts + dur) + off - t0) / 1000, off = offset * 1000.
- Each rank's ops in the order they started (ties in file order); two compute ops of
  one rank that overlap in time are refused.
- Placement: S = the highest stage + 1 must be a multiple of P; loop if every op of
  rank r is on a stage s with s mod P = r, else V-shaped if S = 2P and every op is on
  r or 2P-1-r; else refused, naming an op that fits neither.
- The ops must make one whole step: every (micro-batch, stage) forward and backward
  once, on its rank (the simulator's check, `simulate.validate`), and the order must be
  one the simulator can time (not deadlocked), else the ranks' traces disagree.
Communication and bookkeeping (SEND/RECV/UNSHARD/RESHARD/REDUCE_GRAD) are kept beside
the ops (`Comm`), shown but never counted as compute. A send's or receive's peer is
the rank of the neighbouring stage it talks to (-1 where there is none).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..config import MAX_OPS
from ..costs import DEFAULT_COSTS
from ..errors import DeadlockError, OrderError, TraceError
from ..metrics import Metrics, measure
from ..order import Order, check_size
from ..simulate import Timeline, dependencies, simulate
from .names import COMM_KINDS, OWN_STAGE, OverlapError, Pattern, classify
from .stream import file_size, read_trace

MAX_FILES = 1024  # ranks
MAX_KEPT = 4 * MAX_OPS  # ops and communication actions kept over all files
MAX_OFFSET_MS = 1e9  # a clock offset beyond about 11 days is a typing error
# Chrome traces time events in microseconds to the nanosecond; an op that starts less
# than this before the last one ended abuts it (the difference is the rounding of a
# shifted clock: 1e12 us + an offset is exact only to about 1e-4 us), it does not overlap.
ABUT_US = 1e-3
EXAMPLES = 3  # annotated region names shown when a file has no pipeline op


@dataclass(frozen=True, eq=False)
class Comm:
    """Communication and bookkeeping actions, rank-major, each rank's by start time
    (times in ms like the ops'). kind indexes COMM_KINDS; mb is -1 for bookkeeping."""

    rank: np.ndarray
    start: np.ndarray
    end: np.ndarray
    kind: np.ndarray
    mb: np.ndarray
    stage: np.ndarray
    peer: np.ndarray  # the rank the action talks to, or -1
    rank_ptr: np.ndarray  # (P+1,) actions of rank r are [rank_ptr[r], rank_ptr[r+1])

    @property
    def n(self) -> int:
        return int(self.rank.shape[0])

    def token(self, i: int) -> str:
        """Action i in PyTorch's notation ("1RECV_F3", "0UNSHARD")."""
        mb = int(self.mb[i])
        return f"{int(self.stage[i])}{COMM_KINDS[int(self.kind[i])]}{mb if mb >= 0 else ''}"


@dataclass(frozen=True, eq=False)
class Run:
    """A profiled step as pipeviz reads it (see the module docstring). Times in ms."""

    files: tuple[str, ...]  # the file each rank came from
    declared: tuple[int | None, ...]  # the rank each rank's file names (distributedInfo.rank)
    offsets_ms: tuple[float, ...]  # the clock offset added to each rank
    placement: str  # "loop" or "v"
    order: Order  # each rank's ops in the order they ran
    start: np.ndarray  # (N,) each op's start, ms from the first compute start
    end: np.ndarray  # (N,) and end
    names: tuple[str, ...]  # (N,) each op's event name in the trace
    comm: Comm
    t0_us: float  # the first compute start on the (offset) clock, microseconds

    @property
    def P(self) -> int:
        return self.order.P

    @property
    def m(self) -> int:
        return self.order.m

    @property
    def V(self) -> int:
        """Chunks per rank."""
        return self.order.chunks_per_rank

    @cached_property
    def timeline(self) -> Timeline:
        """The measured timeline, with docs/model.md's dependencies (comm 0) for views that
        follow them. Its costs are pipeviz's defaults: the durations are measured."""
        return Timeline(order=self.order, costs=DEFAULT_COSTS, start=self.start, end=self.end,
                        deps=dependencies(self.order, 0.0))

    @cached_property
    def metrics(self) -> Metrics:
        """Makespan, busy and idle per rank, bubble, in flight: as for a schedule."""
        return measure(self.timeline)


class _File:
    """What one file holds: its compute ops and actions, as read."""

    def __init__(self, path: str, pattern: Pattern | None, budget: list[int]):
        self.path, self.pattern, self.budget = path, pattern, budget
        self.ops: list[tuple] = []  # (start_us, end_us, op tuple, name)
        self.comm: list[tuple] = []
        self.examples: list[str] = []

    def on_event(self, ev: dict) -> None:
        if ev.get("ph") != "X":
            return
        name = ev.get("name")
        if not isinstance(name, str):
            return
        try:
            op = classify(name, self.pattern)
        except OverlapError:
            raise TraceError("trace.overlap", file=self.path, name=name) from None
        if op is None:
            if len(self.examples) < EXAMPLES and ev.get("cat") == "user_annotation" and name not in self.examples:
                self.examples.append(name)
            return
        ts, dur = ev.get("ts"), ev.get("dur")
        if not (_number(ts) and _number(dur)) or dur < 0:
            return
        self.budget[0] -= 1
        if self.budget[0] < 0:
            raise TraceError("trace.too_many", max=f"{MAX_KEPT:,}")
        ts, dur = float(ts), float(dur)
        (self.ops if op[0] in _COMPUTE else self.comm).append((ts, ts + dur, op, name))


_COMPUTE = {"F", "B", "I", "W", "F&B"}


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def read_traces(paths: Sequence[str], ranks: Sequence[int] | None = None,
                offsets_ms: Sequence[float] | None = None, pattern: Pattern | None = None,
                progress: Callable[[int, int], None] | None = None) -> Run:
    """Read one step's traces, one file per rank (module docstring). `progress(done,
    total)` is called as the files are read, in bytes as stored."""
    paths = list(paths)
    if not paths:
        raise TraceError("trace.no_files")
    if len(paths) > MAX_FILES:
        raise TraceError("trace.too_many_files", n=len(paths), max=MAX_FILES)
    if ranks is not None:
        _check_ranks(ranks, len(paths))
    if offsets_ms is not None:
        _check_offsets(offsets_ms, len(paths))
    total = sum(file_size(p) for p in paths)
    done = [0]
    budget = [MAX_KEPT]
    files, declared = [], []
    for path in paths:
        f = _File(path, pattern, budget)
        tick = None if progress is None else (lambda n, base=done[0]: progress(base + n, total))
        head = read_trace(path, f.on_event, tick)
        done[0] += file_size(path)
        if not f.ops:
            if not head.has_events:
                raise TraceError("trace.no_events", file=path)
            if f.examples:
                raise TraceError("trace.no_ops_named", file=path, names=", ".join(repr(n) for n in f.examples))
            raise TraceError("trace.no_ops", file=path)
        files.append(f)
        declared.append(head.rank)
    rank_of = list(ranks) if ranks is not None else _ranks(paths, declared)
    by_rank = [0] * len(paths)
    for i, r in enumerate(rank_of):
        by_rank[r] = i
    return _assemble([files[i] for i in by_rank], [declared[i] for i in by_rank],
                     [0.0] * len(paths) if offsets_ms is None else [float(x) for x in offsets_ms])


def _check_ranks(ranks: Sequence[int], n: int) -> None:
    if len(ranks) != n:
        raise TraceError("trace.ranks_count", given=len(ranks), n=n)
    if sorted(ranks) != list(range(n)):
        raise TraceError("trace.ranks_perm", ranks=", ".join(str(r) for r in ranks), last=n - 1)


def _check_offsets(offsets: Sequence[float], n: int) -> None:
    if len(offsets) != n:
        raise TraceError("trace.offsets_count", given=len(offsets), n=n)
    for x in offsets:
        if not _number(x) or abs(x) > MAX_OFFSET_MS:
            raise TraceError("trace.offset", value=repr(float(x)) if _number(x) or isinstance(x, float) else str(x),
                             max=f"{MAX_OFFSET_MS:g}")


def _ranks(paths: list[str], declared: list[int | None]) -> list[int]:
    """Each file's pipeline rank, from what the files say (module docstring)."""
    known = [i for i, d in enumerate(declared) if d is not None]
    if not known:
        return list(range(len(paths)))
    if len(known) < len(paths):
        missing = next(i for i, d in enumerate(declared) if d is None)
        raise TraceError("trace.rank_unknown", file=paths[missing], other=paths[known[0]])
    seen: dict[int, int] = {}
    for i, d in enumerate(declared):
        if d in seen:
            raise TraceError("trace.same_rank", file=paths[seen[d]], other=paths[i], rank=d)
        seen[d] = i
    ascending = sorted(seen)
    return [ascending.index(d) for d in declared]


def _assemble(files: list[_File], declared: list[int | None], offsets: list[float]) -> Run:
    # Shift each rank's clock, then find the first compute start.
    ops, comm = [], []
    for r, f in enumerate(files):
        off = offsets[r] * 1000.0
        ops.append(_shifted(f.ops, off, r))
        comm.append(_shifted(f.comm, off, r))
    t0 = min(o[0][0] for o in ops)
    for r, f in enumerate(files):
        for a, b in zip(ops[r], ops[r][1:]):
            if b[0] < a[1] - ABUT_US:
                raise TraceError("trace.overlap_ops", file=f.path, a=a[3], b=b[3])
    S, placement, s2r = _placement(files, ops)
    mbs = [o[2][1] for r in ops for o in r] + [o[2][3] for r in ops for o in r if o[2][0] == "F&B"]
    m = max(mbs) + 1
    check_size(m, S)
    rank_lists = [[_op_tuple(o[2]) for o in r] for r in ops]
    order = Order.from_rank_lists(m, s2r, rank_lists)
    start = np.array([(o[0] - t0) / 1000.0 for r in ops for o in r])
    end = np.array([(o[1] - t0) / 1000.0 for r in ops for o in r])
    try:
        simulate(order, DEFAULT_COSTS, dur=end - start)  # checks the order, and that it can run
    except OrderError as e:
        raise TraceError("trace.disagree", why=e.msg) from None
    except DeadlockError as e:
        raise TraceError("trace.deadlock", why=e.parts[0]) from None
    return Run(
        files=tuple(f.path for f in files), declared=tuple(declared), offsets_ms=tuple(offsets),
        placement=placement, order=order, start=start, end=end,
        names=tuple(o[3] for r in ops for o in r), comm=_comm(comm, s2r, S, t0), t0_us=t0,
    )


def _shifted(items: list[tuple], off: float, rank: int) -> list[tuple]:
    """Items on the offset clock, by start (ties in file order), OWN_STAGE resolved to `rank`."""
    out = []
    for s, e, op, name in items:
        if op[2] == OWN_STAGE:
            op = (op[0], op[1], rank, op[3], op[4])
        out.append((s + off, e + off, op, name))
    out.sort(key=lambda o: o[0])
    return out


def _op_tuple(op: tuple) -> tuple:
    return op if op[0] == "F&B" else op[:3]


def _placement(files: list[_File], ops: list[list[tuple]]) -> tuple[int, str, np.ndarray]:
    """(S, placement, stage_to_rank) the ranks' stages fit (module docstring)."""
    P = len(files)
    stages = [[s for o in r for s in ((o[2][2], o[2][4]) if o[2][0] == "F&B" else (o[2][2],))] for r in ops]
    S = max(s for r in stages for s in r) + 1
    if S % P:
        raise TraceError("trace.stages", last=S - 1, S=S, P=P)
    V = S // P
    loop_bad = next(((r, s) for r, ss in enumerate(stages) for s in ss if s % P != r), None)
    if loop_bad is None:
        return S, "loop", np.arange(S, dtype=np.int64) % P
    v_home = lambda s: s if s < P else 2 * P - 1 - s  # noqa: E731
    if V != 2:
        r, s = loop_bad
        raise TraceError("trace.placement", file=files[r].path, rank=r, stage=s, home=s % P, P=P)
    neither = next(((r, s) for r, ss in enumerate(stages) for s in ss if s % P != r and v_home(s) != r), None)
    if neither is not None:
        r, s = neither
        raise TraceError("trace.placement_v", file=files[r].path, rank=r, stage=s, home=s % P, home_v=v_home(s))
    v_bad = next(((r, s) for r, ss in enumerate(stages) for s in ss if v_home(s) != r), None)
    if v_bad is None:
        s = np.arange(S, dtype=np.int64)
        return S, "v", np.where(s < P, s, 2 * P - 1 - s)
    (r1, s1), (r2, s2) = loop_bad, v_bad
    raise TraceError("trace.placement_mixed", file=files[r1].path, stage=s1, rank=r1, other=files[r2].path,
                     stage2=s2, rank2=r2)


def _comm(comm: list[list[tuple]], s2r: np.ndarray, S: int, t0: float) -> Comm:
    rank, start, end, kind, mb, stage, peer = [], [], [], [], [], [], []
    codes = {k: i for i, k in enumerate(COMM_KINDS)}
    for r, items in enumerate(comm):
        for s, e, op, _ in items:
            k = op[0]
            toward = 1 if k in ("SEND_F", "RECV_B") else -1 if k in ("RECV_F", "SEND_B") else 0
            nb = op[2] + toward
            rank.append(r)
            start.append((s - t0) / 1000.0)
            end.append((e - t0) / 1000.0)
            kind.append(codes[k])
            mb.append(op[1])
            stage.append(op[2])
            peer.append(int(s2r[nb]) if toward and 0 <= nb < S else -1)
    counts = np.bincount(np.array(rank, dtype=np.int64), minlength=len(comm))
    ints = lambda a: np.array(a, dtype=np.int64)  # noqa: E731
    return Comm(rank=ints(rank), start=np.array(start, dtype=np.float64), end=np.array(end, dtype=np.float64),
                kind=np.array(kind, dtype=np.int8), mb=ints(mb), stage=ints(stage), peer=ints(peer),
                rank_ptr=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64))
