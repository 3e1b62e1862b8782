"""Schedules built from a repeating building block, as V-Half and V-Min are (Qi et al.,
"Pipeline Parallelism with Controllable Memory", arXiv 2405.15362).

The paper's framework: a schedule is one micro-batch's building block, the times at
which each rank runs that micro-batch's ops, repeated every 6 units for the next
micro-batch (two chunks per rank, each with an F, a B and a W of one unit: 6 units
of work per micro-batch). The block's lifespan on a rank, from its first F to its
last W, fixes the rank's peak memory; a block whose ops are spread out holds less at
once and leaves gaps. Each rank holds two chunks in a V (chunk 0 of rank r is stage
r, chunk 1 is stage 2P-1-r), and each of its micro-batches passes four lanes:

    F0  the forward of chunk 0 (on the way down)    F1  the forward of chunk 1 (back up)
    B1  the backward of chunk 1 (down again)        B0  the backward of chunk 0 (back up)

(B is the input-gradient part, PyTorch's I; each B leaves a W.) V-Half and V-Min
differ only in their block, `pattern`: when micro-batch 0 runs each lane on each
rank. The rest is what sail-sg's reference (`zbv_greedy.py`) does to the repeated
blocks, in six steps, all at unit cost:

  Step 1: repeat   lane L of micro-batch i on rank r runs at pattern[r, L] + 6i
  Step 2: squeeze  the W's into the first gaps after their B's; then every op, in
                   time order, to the earliest free slot after its inputs that does not
                   raise the rank's peak above the peak of the worst rank, except between
                   the first micro-batch's last backward (rank 0's B0) and the last
                   forward's start (F0 of micro-batch m-1): the block's steady state
  Step 3: compact  each rank's order as soon as possible
  Step 4: squeeze  the cool-down again (after that steady state), without the W's:
                   an idle slot is where a pending W would run
  Step 5: compact  with the W's again in the first gaps after their B's
  Step 6: the W's  into the gaps of that order, chunk 1's first, the rest at the end;
                   each rank's ops in time order are the schedule

Steps 2 and 4 are greedy rules, not formulas: what they give is the reference's
output, held to it op for op at every P in 1..8 and m in 1..4P
(tests/data/orders/sailsg-v-*.json.gz). They run compiled; each pass visits the ops
in time order (ties: lower rank, then lane, then micro-batch), so a dependency has
always been placed before the op that needs it.
"""

from __future__ import annotations

from functools import lru_cache

import numba
import numpy as np

from ..order import F, I, Order, OrderBuilder, W, v_placement

# Lanes, in the order the passes break ties in; during the squeezes one lane holds the
# W's of both chunks (the k-th W follows the k-th B in time), at the end two do.
F0, F1, B1, B0, W1, W0 = range(6)
WS = 4  # the lane of every W, before step 6
PERIOD = 6  # units between one micro-batch's block and the next's


def v_schedule(P: int, m: int, pattern: np.ndarray) -> Order:
    """The order of a V-shaped building-block schedule: `pattern[r]` holds when rank r
    runs micro-batch 0's F0, F1, B1 and B0."""
    kind, mb, stage, count = _schedule(P, m, pattern.astype(np.int64).tobytes())
    order = OrderBuilder(P, m, v_placement(P))
    r, t = np.nonzero(np.arange(kind.shape[1]) < count[:, None])  # each rank's ops in time order
    order.emit(r, (kind[r, t], mb[r, t], stage[r, t]))
    return order.build()


@lru_cache(maxsize=64)
def _schedule(P: int, m: int, pattern: bytes):
    block = np.frombuffer(pattern, dtype=np.int64).reshape(P, 4)
    lanes = np.full((P, 6, 2 * m), -1, dtype=np.int64)  # lanes[r, L, i]: when rank r runs lane L of the i-th op
    lanes[:, :4, :m] = block[:, :, None] + PERIOD * np.arange(m)  # Step 1: repeat the block
    _place_ws(lanes, m, False)  # Step 2: the W's into the gaps, then squeeze
    _squeeze(lanes, m, True)
    lanes = _compact(lanes, m, True)  # Step 3
    lanes[:, WS:] = -1  # Step 4: squeeze the cool-down without the W's
    _squeeze(lanes, m, False)
    _place_ws(lanes, m, False)  # Step 5: compact with the W's in the gaps
    lanes = _compact(lanes, m, True)
    lanes[:, WS:] = -1  # Step 6: the W's into the gaps, chunk 1's first
    _place_ws(lanes, m, True)
    return _ops(lanes, m)


@numba.njit(cache=True, nogil=True)
def _size(lane, m):  # pragma: no cover (compiled)
    """Ops in a lane before step 6: m, or 2m in the lane of every W."""
    return m if lane < WS else 2 * m


@numba.njit(cache=True, nogil=True)
def _place_ws(lanes, m, split):  # pragma: no cover (compiled)
    """Each rank's W's, from its F and B lanes: scanning its slots in time, each B
    leaves a pending W, and each free slot runs one pending W (chunk 1's before chunk
    0's when split, else the oldest); the W's still pending follow the last op, one
    unit apart. One lane for all W's (2m), or lanes W1 and W0 (m each) when split."""
    P = lanes.shape[0]
    for r in range(P):
        bound = 0
        for lane in range(WS):
            bound = max(bound, lanes[r, lane, m - 1])
        slot = np.full(bound + 1, -1, np.int64)
        for lane in range(WS):
            for i in range(m):
                slot[lanes[r, lane, i]] = lane
        pending = np.zeros(2, np.int64)
        placed = np.zeros(2, np.int64)
        for t in range(bound + 1):
            lane = slot[t]
            if lane == B1:
                pending[0] += 1
            elif lane == B0:
                pending[1 if split else 0] += 1
            elif lane < 0:
                for w in range(2):
                    if pending[w] > 0:
                        lanes[r, WS + w, placed[w]] = t
                        placed[w] += 1
                        pending[w] -= 1
                        break
        t = bound
        for w in range(2):
            while pending[w] > 0:
                t += 1
                lanes[r, WS + w, placed[w]] = t
                placed[w] += 1
                pending[w] -= 1


@numba.njit(cache=True, nogil=True)
def _time_order(lanes, m, with_w):  # pragma: no cover (compiled)
    """Every op as (rank, lane, index), sorted by (time, rank, lane, index): a
    counting sort on time, filled in (rank, lane, index) order."""
    P = lanes.shape[0]
    n_lanes = WS + 1 if with_w else WS
    horizon = lanes.max() + 1  # a pass's left-out lanes are -1
    count = np.zeros(horizon + 1, np.int64)
    for r in range(P):
        for lane in range(n_lanes):
            for i in range(_size(lane, m)):
                count[lanes[r, lane, i] + 1] += 1
    for t in range(horizon):
        count[t + 1] += count[t]
    who = np.empty((count[horizon], 3), np.int64)
    for r in range(P):
        for lane in range(n_lanes):
            for i in range(_size(lane, m)):
                at = count[lanes[r, lane, i]]
                count[lanes[r, lane, i]] += 1
                who[at, 0], who[at, 1], who[at, 2] = r, lane, i
    return who


@numba.njit(cache=True, nogil=True)
def _levels(slot, implicit_w, level, pending, start, cap, write):  # pragma: no cover (compiled)
    """A rank's chunks in flight after each slot from `start` on (level), from what
    runs in each slot: an F adds one, a W takes one away; with the W's left out
    (implicit_w), each B leaves a pending W and each free slot runs one (pending:
    how many wait after each slot). Reads level and pending at start-1, writes them
    from `start` on if `write`; returns False as soon as a level passes cap."""
    cur = level[start - 1] if start > 0 else 0
    wait = pending[start - 1] if start > 0 else 0
    for t in range(start, slot.shape[0]):
        lane = slot[t]
        if lane == F0 or lane == F1:
            cur += 1
        elif lane == B1 or lane == B0:
            wait += 1
        elif lane == WS:
            cur -= 1
        elif implicit_w and wait > 0:
            cur -= 1
            wait -= 1
        if cur > cap:
            return False
        if write:
            level[t] = cur
            pending[t] = wait
    return True


@numba.njit(cache=True, nogil=True)
def _squeeze(lanes, m, with_w):  # pragma: no cover (compiled)
    """Steps 2 and 4: move each op, in time order, to the earliest free slot after its
    inputs where its rank's peak stays at most the worst rank's peak before the
    squeeze. The steady state is left as it is: from rank 0's first B0 to the first
    F0 of micro-batch m-1 (both included); before it only with the W's (step 2).

    A rank's peak is the highest of its levels (`_levels`), all at most the cap
    before a move. With the W's in their lanes (step 2), moving an op earlier
    changes the levels only between its new slot and its old one: an F's raise them
    by one there (it fits where none of them is at the cap yet), a B's leave them
    and a W's lower them. Without them (step 4), where the pending W's run depends on
    which slots are free, so the levels are run again from the new slot."""
    P = lanes.shape[0]
    n_lanes = WS + 1 if with_w else WS
    implicit_w = not with_w
    horizon = lanes.max() + 1  # a pass's left-out lanes are -1
    slot = np.full((P, horizon), -1, np.int64)
    for r in range(P):
        for lane in range(n_lanes):
            for i in range(_size(lane, m)):
                slot[r, lanes[r, lane, i]] = lane
    level = np.zeros((P, horizon), np.int64)
    pending = np.zeros((P, horizon), np.int64)
    cap = 0
    for r in range(P):
        _levels(slot[r], implicit_w, level[r], pending[r], 0, horizon, True)
        cap = max(cap, level[r].max())
    placed = np.zeros((P, horizon), np.bool_)
    phase = 0  # 0 warm-up, 1 steady state (kept), 2 cool-down
    todo = _time_order(lanes, m, with_w)
    for j in range(todo.shape[0]):
        r, lane, i = todo[j, 0], todo[j, 1], todo[j, 2]
        now = lanes[r, lane, i]
        if phase == 0 and lane == B0 and r == 0:
            phase = 1
        if phase == 1 or (phase == 0 and not with_w):
            if phase == 1 and lane == F0 and i == m - 1:
                phase = 2
            placed[r, now] = True
            continue
        ready = -1  # the latest slot of its inputs
        if (lane == F0 or lane == B1) and r > 0:
            ready = max(ready, lanes[r - 1, lane, i])
        if (lane == F1 or lane == B0) and r < P - 1:
            ready = max(ready, lanes[r + 1, lane, i])
        if F0 < lane < WS:
            ready = max(ready, lanes[r, lane - 1, i])
        if lane == WS:  # the i-th B in time, of either chunk
            a, b, last = 0, 0, -1
            for _ in range(i + 1):
                if b >= m or (a < m and lanes[r, B1, a] < lanes[r, B0, b]):
                    last = lanes[r, B1, a]
                    a += 1
                else:
                    last = lanes[r, B0, b]
                    b += 1
            ready = max(ready, last)
        if i > 0:
            ready = max(ready, lanes[r, lane, i - 1])
        to = now
        if with_w:
            # An F fits from the slot after the last one at the cap before its old one.
            low = ready + 1
            if lane == F0 or lane == F1:
                t = now - 1
                while t >= low and level[r, t] < cap:
                    t -= 1
                low = t + 1
            for t in range(low, now):  # the first free slot from there
                if not placed[r, t]:
                    to = t
                    break
            step = 1 if lane == F0 or lane == F1 else -1 if lane == WS else 0
            for t in range(to, now):
                level[r, t] += step
        else:
            slot[r, now] = -1
            for t in range(ready + 1, now):
                if placed[r, t]:
                    continue
                slot[r, t] = lane
                if _levels(slot[r], True, level[r], pending[r], t, cap, False):
                    to = t
                    break
                slot[r, t] = -1
            slot[r, now] = lane if to == now else -1
            if to < now:
                _levels(slot[r], True, level[r], pending[r], to, horizon, True)
        if with_w:
            slot[r, now] = -1
            slot[r, to] = lane
        lanes[r, lane, i] = to
        placed[r, to] = True


@numba.njit(cache=True, nogil=True)
def _compact(lanes, m, with_w):  # pragma: no cover (compiled)
    """Steps 3 and 5: each op as soon as its inputs and its rank's previous op have
    ended, every op one unit long, in the order of the slots it held."""
    P = lanes.shape[0]
    out = np.full(lanes.shape, -1, np.int64)
    end = np.full(lanes.shape, -1, np.int64)
    free = np.zeros(P, np.int64)
    todo = _time_order(lanes, m, with_w)
    for j in range(todo.shape[0]):
        r, lane, i = todo[j, 0], todo[j, 1], todo[j, 2]
        start = free[r]
        if (lane == F0 or lane == B1) and r > 0:
            start = max(start, end[r - 1, lane, i])
        if (lane == F1 or lane == B0) and r < P - 1:
            start = max(start, end[r + 1, lane, i])
        if F0 < lane < WS:
            start = max(start, end[r, lane - 1, i])
        if i > 0:
            start = max(start, end[r, lane, i - 1])
        out[r, lane, i] = start
        end[r, lane, i] = start + 1
        free[r] = start + 1
    return out


@numba.njit(cache=True, nogil=True)
def _ops(lanes, m):  # pragma: no cover (compiled)
    """Each rank's ops in time order as (kind, mb, stage), from the six lanes."""
    P = lanes.shape[0]
    n = 6 * m
    kind = np.empty((P, n), np.int64)
    mb = np.empty((P, n), np.int64)
    stage = np.empty((P, n), np.int64)
    count = np.zeros(P, np.int64)
    kinds = np.array([F, F, I, I, W, W])
    for r in range(P):
        key = np.empty(n, np.int64)
        who = np.empty((n, 2), np.int64)
        at = 0
        for lane in range(6):
            for i in range(m):
                key[at] = lanes[r, lane, i]
                who[at, 0], who[at, 1] = lane, i
                at += 1
        for j in np.argsort(key):
            lane, i = who[j, 0], who[j, 1]
            c = count[r]
            kind[r, c] = kinds[lane]
            mb[r, c] = i
            # chunk 0 (F0, B0, W0) is stage r; chunk 1 (F1, B1, W1) is stage 2P-1-r
            stage[r, c] = r if lane == F0 or lane == B0 or lane == W0 else 2 * P - 1 - r
            count[r] += 1
    return kind, mb, stage, count
