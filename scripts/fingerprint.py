"""A fingerprint of every number the engine gives, over a wide grid: a change to how
the engine computes (a new kernel, a faster path) must leave it exactly as it was.

    .venv/bin/python scripts/fingerprint.py [--out FILE]

Prints one SHA-256 per part (each schedule; orders of one's own; the encoder and
BPipe; causes, level of detail and memory) and one over all. Floats are hashed by
their bits, so equal means equal to the last bit. Run it before and after a change
and compare the lines (`diff`).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import sys
from fractions import Fraction

import numpy as np

from pipeviz import NAMES, SCHEDULES, Config
from pipeviz.causes import critical_path, gap_waits
from pipeviz.config import Encoder
from pipeviz.costs import Costs
from pipeviz.custom import run_text
from pipeviz.engine import run
from pipeviz.errors import DeadlockError, PipevizError
from pipeviz.memory import measure_memory, preset
from pipeviz.view import lod

COSTS = [
    Costs(),
    Costs(1.0, 2.0, 1.0, 0.0),
    Costs(1.0, 2.0, 0.5, 0.3),
    Costs(0.7, 1.3, 0.9, 0.25, 2.2),
    Costs(1.1, 0.9, 1.7, 0.0, 1.5),
]
PS = (1, 2, 3, 4, 5, 8)
MS = (1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 32)
VS = (1, 2, 3, 4)


class Hasher:
    def __init__(self) -> None:
        self.h = hashlib.sha256()

    def add(self, x) -> None:
        h = self.h
        if x is None:
            h.update(b"N")
        elif isinstance(x, np.ndarray):
            a = np.ascontiguousarray(x)
            h.update(f"A{a.dtype.str}{a.shape}".encode())
            h.update(a.tobytes())
        elif isinstance(x, (bool, np.bool_)):
            h.update(b"T" if x else b"F")
        elif isinstance(x, (int, np.integer)):
            h.update(f"i{int(x)}".encode())
        elif isinstance(x, (float, np.floating)):
            h.update(b"f" + np.float64(x).tobytes())
        elif isinstance(x, Fraction):
            h.update(f"q{x}".encode())
        elif isinstance(x, str):
            h.update(b"s" + x.encode())
        elif isinstance(x, (tuple, list)):
            h.update(f"L{len(x)}".encode())
            for y in x:
                self.add(y)
        elif isinstance(x, dict):
            h.update(f"D{len(x)}".encode())
            for k in sorted(x):
                self.add(str(k))
                self.add(x[k])
        else:
            self.add(_fields(x))

    def hexdigest(self) -> str:
        return self.h.hexdigest()


def _fields(obj) -> dict:
    """A dataclass's (or Steps', Msg's ...) fields, by name."""
    fields = getattr(obj, "__dataclass_fields__", None)
    if fields is None:
        return {"repr": repr(obj)}
    return {name: getattr(obj, name) for name in fields if name not in ("config", "schedule", "costs", "order")}


def add_result(h: Hasher, res) -> None:
    o, tl, mt = res.order, res.timeline, res.metrics
    h.add([o.P, o.m, o.stage_to_rank, o.kind, o.mb, o.stage, o.mb2, o.stage2, o.rank_ptr, o.segment])
    h.add([tl.start, tl.end, tl.deps.ptr, tl.deps.idx, tl.deps.lag, tl.makespan])
    h.add(_fields(mt))
    if res.theory is not None:
        h.add(_fields(res.theory))
        h.add([res.bubble_agrees, res.steady_agrees, res.peak_agrees])
    h.add(None if res.bubble_parts is None else _fields(res.bubble_parts))
    if res.balance is not None:
        h.add(_fields(res.balance))
    if res.encoder is not None:
        e = res.encoder
        h.add([e.pipeline.start, e.pipeline.end, e.pipeline_idle, e.hidden, e.in_gaps, e.rounds, e.exposed,
               e.hidden_share, e.bubble_filled])
    add_views(h, res)


def add_views(h: Hasher, res) -> None:
    """What the explorers draw from a result: causes, level of detail, thinned lines."""
    tl, mt = res.timeline, res.metrics
    rank, _, end = mt.bubbles
    h.add(gap_waits(tl, rank, end))
    h.add(critical_path(tl))
    span = max(tl.makespan, 1.0)
    color = (res.order.kind.astype(np.int64) * 3 + res.order.stage % 3).astype(np.int64)
    for x0, x1, px in ((0.0, span, 816.0), (0.0, span, 120.0), (span * 0.3, span * 0.45, 400.0)):
        h.add(lod.level(tl.start, tl.end, res.order.rank_ptr, color, 21, x0, x1, px))
        h.add(lod.gaps(mt.bubbles[1], mt.bubbles[2], x0, x1, px))
        st = mt.inflight
        for r in range(res.order.P):
            keep = st.rank == r
            h.add(lod.thin(st.time[keep], st.value[keep].astype(np.float64), x0, x1, px))


def add_run(h: Hasher, cfg: Config) -> None:
    add_result(h, run(cfg))


def add_text(h: Hasher, text: str, placement: str, costs: Costs) -> None:
    res = run_text(text, placement, costs)
    add_result(h, res)
    if res.stuck is not None:
        h.add(_fields(res.stuck))


def attempt(h: Hasher, fn, *args) -> None:
    """fn(*args), or the error it raises, hashed."""
    try:
        fn(*args)
    except (PipevizError, DeadlockError) as e:
        h.add(["error", type(e).__name__, str(e)])


def schedule_part(name: str) -> str:
    h = Hasher()
    spec = SCHEDULES[name]
    for P, m, V, costs in itertools.product(PS, MS, VS, COSTS):
        if spec.fixed_V is not None and V != spec.fixed_V:
            continue
        attempt(h, add_run, h, Config(name, P, m, V, costs))
    # Unequal stages.
    for P, m in ((4, 8), (3, 7), (8, 16)):
        V = spec.fixed_V or 2
        S = P * spec.chunks_per_rank(V)
        weights = tuple(1.0 + 0.1 * ((3 * s) % 7) for s in range(S))
        for costs in COSTS[:4]:
            attempt(h, add_run, h, Config(name, P, m, V, costs, stage_weights=weights))
    # Bigger sizes.
    for P, m, V in ((16, 64, 4), (32, 128, 8), (16, 48, 2)):
        V = spec.fixed_V or V
        attempt(h, add_run, h, Config(name, P, m, V, Costs(1.0, 2.0, 1.0, 0.1)))
    return h.hexdigest()


def closing_part() -> str:
    h = Hasher()
    for name in NAMES:
        V = SCHEDULES[name].fixed_V or 2
        for (P, m), place, frozen, costs in itertools.product(((4, 8), (3, 9), (8, 16)), ("stage0", "separate", "bubbles"),
                                                              (False, True), (COSTS[0], COSTS[2], COSTS[3])):
            enc = Encoder(0.5, 1.0, place, frozen)
            attempt(h, add_run, h, Config(name, P, m, V, costs, encoder=enc))
        for P, m in ((4, 8), (8, 8), (5, 12)):
            attempt(h, add_run, h, Config(name, P, m, V, COSTS[1], balance="bpipe"))
    return h.hexdigest()


def own_orders_part() -> str:
    h = Hasher()
    for name in NAMES:
        V = SCHEDULES[name].fixed_V or 2
        for P, m in ((2, 4), (4, 8), (3, 7)):
            try:
                res = run(Config(name, P, m, V))
            except PipevizError:
                continue
            placement = SCHEDULES[name].placement
            text = res.order.to_text()
            for costs in COSTS[:3]:
                attempt(h, add_text, h, text, placement, costs)
    bad = [
        "0F0 0B0\n1F0 1B0",  # stage 1 on rank 0 (a wrong rank)
        "0F0 1F0\n0B0 1B0",  # wrong rank
        "0F0 0F1 0B1 0B0\n1F1 1F0 1B0 1B1",  # deadlock
        "0F0\n1F0 1B0",  # missing backward
        "0F0 0I0\n1F0 1I0 1W0",  # missing W
        "0F0 0B0 0B0\n1F0 1B0",  # twice
        "EF0 0F0 0B0\n1F0 1B0",  # encoder op
        "0F0 0F1 1B0&0B1\n1F0 1F1 1B0 1B1",
    ]
    for text in bad:
        for costs in COSTS[:2]:
            attempt(h, add_text, h, text, "loop", costs)
    return h.hexdigest()


def memory_part() -> str:
    h = Hasher()
    model = preset("llama2-7b")
    for name in NAMES:
        V = SCHEDULES[name].fixed_V or 2
        for P, m in ((4, 8), (8, 16)):
            res = run(Config(name, P, m, V, COSTS[2]))
            h.add(_fields(measure_memory(res.timeline, model, 80.0)))
    return h.hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="also write the lines to FILE")
    args = ap.parse_args()
    lines = []
    total = hashlib.sha256()
    parts = [(name, lambda name=name: schedule_part(name)) for name in NAMES]
    parts += [("closing", closing_part), ("own orders", own_orders_part), ("memory", memory_part)]
    for label, fn in parts:
        digest = fn()
        total.update(digest.encode())
        lines.append(f"{label:<12} {digest}")
        print(lines[-1], flush=True)
    lines.append(f"{'all':<12} {total.hexdigest()}")
    print(lines[-1])
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
