"""The action vocabulary: each rank's ordered ops (kind, micro-batch, stage).

Generators emit an :class:`Order`; one simulator times any order. An order is
stored flat, rank-major, as numpy arrays (CSR style): the ops of rank r are
``kind[rank_ptr[r]:rank_ptr[r+1]]`` in execution order. Nothing here knows
about time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

F, B, W = 0, 1, 2
KIND_NAMES = ("F", "B", "W")


def loop_placement(P: int, V: int) -> np.ndarray:
    """Stage s lives on rank s mod P (GPipe, 1F1B, interleaved)."""
    return np.arange(P * V, dtype=np.int64) % P


def v_placement(P: int) -> np.ndarray:
    """S = 2P stages in a V: rank r holds stages r and 2P-1-r (ZB-V)."""
    s = np.arange(2 * P, dtype=np.int64)
    return np.where(s < P, s, 2 * P - 1 - s)


@dataclass(frozen=True, eq=False)
class Order:
    """Each rank's ops in execution order, flat and rank-major."""

    P: int
    m: int
    stage_to_rank: np.ndarray  # (S,) rank holding each stage
    split_backward: bool  # True: the backward is B (input grad) + W (weight grad)
    kind: np.ndarray  # (N,) int8: F, B or W
    mb: np.ndarray  # (N,) int64 micro-batch
    stage: np.ndarray  # (N,) int64 global stage
    rank_ptr: np.ndarray  # (P+1,) ops of rank r are [rank_ptr[r], rank_ptr[r+1])

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

    def rank_ops(self, r: int) -> list[tuple[str, int, int]]:
        """Rank r's ops as (kind, mb, stage) tuples: for reading and tests."""
        lo, hi = self.rank_ptr[r], self.rank_ptr[r + 1]
        return [
            (KIND_NAMES[k], int(b), int(s))
            for k, b, s in zip(self.kind[lo:hi], self.mb[lo:hi], self.stage[lo:hi])
        ]

    @classmethod
    def from_rank_lists(
        cls,
        m: int,
        stage_to_rank: Sequence[int],
        ranks: Sequence[Sequence[tuple[str, int, int]]],
        split_backward: bool | None = None,
    ) -> "Order":
        """Build an order from readable per-rank lists of (kind, mb, stage)."""
        code = {name: i for i, name in enumerate(KIND_NAMES)}
        flat = [op for ops in ranks for op in ops]
        kind = np.array([code[k] for k, _, _ in flat], dtype=np.int8)
        if split_backward is None:
            split_backward = bool((kind == W).any())
        return cls(
            P=len(ranks),
            m=m,
            stage_to_rank=np.asarray(stage_to_rank, dtype=np.int64),
            split_backward=split_backward,
            kind=kind,
            mb=np.array([b for _, b, _ in flat], dtype=np.int64),
            stage=np.array([s for _, _, s in flat], dtype=np.int64),
            rank_ptr=np.concatenate([[0], np.cumsum([len(o) for o in ranks])]).astype(np.int64),
        )


class OrderBuilder:
    """Builds an Order phase by phase, for all ranks at once.

    A generator names each phase and its closed-form step count per rank, then says
    which ops one step runs:

        r, i = order.steps(m - w)                  # Step 2: m - w_r steady steps
        order.emit(r, (F, w[r] + i, r), (B, i, r))  # each runs F(w+i), then B(i)

    `steps(counts)` returns, flat over every rank's steps, the rank r and the step
    index i within the phase; `emit` appends the ops of every step, in order. Phases
    land on each rank in the order they are emitted, so a generator reads as SPEC.md's
    list of phases, and costs a few numpy calls per phase whatever P is.
    """

    def __init__(self, P: int, m: int, stage_to_rank: np.ndarray, split_backward: bool):
        self.P, self.m = P, m
        self.stage_to_rank = stage_to_rank
        self.split_backward = split_backward
        self._parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []

    def steps(self, counts) -> tuple[np.ndarray, np.ndarray]:
        """(rank, step) of every step when rank r runs counts[r] steps (counts may be a scalar)."""
        counts = np.broadcast_to(np.maximum(np.asarray(counts, dtype=np.int64), 0), (self.P,))
        rank = np.repeat(np.arange(self.P, dtype=np.int64), counts)
        first = np.cumsum(counts) - counts  # flat index of each rank's first step
        return rank, np.arange(rank.size, dtype=np.int64) - first[rank]

    def emit(self, rank: np.ndarray, *ops: tuple) -> None:
        """Each step runs `ops` in order; an op is (kind, mb, stage), mb and stage
        being arrays over the steps (or scalars)."""
        n, k = rank.size, len(ops)
        if n == 0:
            return
        kind = np.empty((n, k), dtype=np.int8)
        mb = np.empty((n, k), dtype=np.int64)
        stage = np.empty((n, k), dtype=np.int64)
        for j, (kd, b, s) in enumerate(ops):
            kind[:, j], mb[:, j], stage[:, j] = kd, b, s
        self._parts.append((np.repeat(rank, k), kind.ravel(), mb.ravel(), stage.ravel()))

    def build(self, keep_mb_below: int | None = None) -> Order:
        """Pack the phases rank by rank. `keep_mb_below` drops padding micro-batches
        (a generator may write its phases for more micro-batches than m)."""
        if self._parts:
            rank, kind, mb, stage = (np.concatenate([p[i] for p in self._parts]) for i in range(4))
        else:
            rank = mb = stage = np.zeros(0, np.int64)
            kind = np.zeros(0, np.int8)
        if keep_mb_below is not None:
            keep = mb < keep_mb_below
            rank, kind, mb, stage = rank[keep], kind[keep], mb[keep], stage[keep]
        by_rank = np.argsort(rank, kind="stable")  # phases keep their order within a rank
        counts = np.bincount(rank, minlength=self.P)
        return Order(
            P=self.P,
            m=self.m,
            stage_to_rank=self.stage_to_rank,
            split_backward=self.split_backward,
            kind=kind[by_rank],
            mb=mb[by_rank],
            stage=stage[by_rank],
            rank_ptr=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        )
