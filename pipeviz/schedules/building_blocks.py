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
(tests/data/orders/sailsg-v-*.json.gz). They are the engine's loops (pipeviz/kernels.py,
`bb_*`), compiled at install; each pass visits the ops
in time order (ties: lower rank, then lane, then micro-batch), so a dependency has
always been placed before the op that needs it.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..compiled import K
from ..order import Order, OrderBuilder, v_placement

# Lanes, in the order the passes break ties in; during the squeezes one lane holds the
# W's of both chunks (the k-th W follows the k-th B in time), at the end two do. The
# passes are loops in pipeviz/kernels.py (`bb_*`), which number the lanes the same.
F0, F1, B1, B0, W1, W0 = K.BB_LANES
WS = W1  # the lane of every W, before step 6
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
    K.bb_place_ws(lanes, m, False)  # Step 2: the W's into the gaps, then squeeze
    K.bb_squeeze(lanes, m, True)
    lanes = K.bb_compact(lanes, m, True)  # Step 3
    lanes[:, WS:] = -1  # Step 4: squeeze the cool-down without the W's
    K.bb_squeeze(lanes, m, False)
    K.bb_place_ws(lanes, m, False)  # Step 5: compact with the W's in the gaps
    lanes = K.bb_compact(lanes, m, True)
    lanes[:, WS:] = -1  # Step 6: the W's into the gaps, chunk 1's first
    K.bb_place_ws(lanes, m, True)
    return K.bb_ops(lanes, m)
