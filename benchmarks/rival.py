"""pipeviz's engine against an existing Python pipeline-schedule simulator, side by
side in one run, in CPU time.

    .venv/bin/python benchmarks/rival.py PATH [--rounds N]

PATH is a checkout of Victarry/PP-Schedule-Visualization (the simulator behind the
"PP schedule visualizer" Space; MIT licensed), the fastest existing Python simulator
found that times the same orders with the same model: it builds each rank's op
order (1F1B, Megatron's interleaved 1F1B) and times it as soon as possible with
per-op costs and a p2p latency. Get it with

    git clone https://github.com/Victarry/PP-Schedule-Visualization /tmp/ppsv

Nothing of it is copied into pipeviz: it is imported from PATH at run time (its
`src/` package needs only the standard library).

The same work on both sides: from (schedule, P, m, V, costs) to every op's start and
end and the bubble. pipeviz's side is `pipeviz.run` (it also checks the order,
measures in-flight activations and the closed form: more work, not less). Both must
report the same makespan, or the benchmark stops. Rounds alternate A, B, A, B, so
load on the machine falls on both; the figure is the median CPU time per call
(time.process_time) and the ratio of the medians. Others looked at and why they
are not compared: ailzhang/minPP (a unit-time stepper whose interleaved schedule is
fixed to 4 ranks), MindSpore's pipeline_balance simulator (its own schedule variant
with send/receive blocks, and a recursive build), sail-sg/zero-bubble (needs torch
and an ILP solver), PyTorch's `_simulate_comms_compute` (checks that an order
finishes, no durations).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from pipeviz import Config, run

CASES = [  # (pipeviz schedule, P, m, V): the sizes the target is held at, small ones included
    ("interleaved", 8, 32, 2),
    ("interleaved", 16, 64, 4),
    ("1f1b", 16, 64, 1),
]


def rival_factory(path: Path):
    sys.path.insert(0, str(path))
    try:
        from src.execution_model import ScheduleConfig
        from src.strategies import generate_1f1b_interleave_schedule, generate_1f1b_schedule
    except ImportError as e:
        sys.exit(f"benchmarks/rival.py: cannot import the simulator from {path}: {e}")

    def make(schedule: str, P: int, m: int, V: int):
        def once() -> float:
            if schedule == "1f1b":
                cfg = ScheduleConfig(num_devices=P, num_stages=P, num_batches=m, p2p_latency=0.0,
                                     op_times={"forward": 1.0, "backward": 2.0})
                s = generate_1f1b_schedule(cfg)
            else:  # pipeviz's costs are per rank's share: an op on one of V chunks costs 1/V of it
                cfg = ScheduleConfig(num_devices=P, num_stages=P * V, num_batches=m, p2p_latency=0.0,
                                     placement_strategy="interleave", op_times={"forward": 1.0 / V, "backward": 2.0 / V})
                s = generate_1f1b_interleave_schedule(cfg)
            s.execute()
            return s.get_total_execution_time()

        return once

    return make


def cpu_ms(fn, reps: int) -> float:
    t0 = time.process_time()
    for _ in range(reps):
        fn()
    return (time.process_time() - t0) / reps * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", type=Path, help="a checkout of Victarry/PP-Schedule-Visualization")
    ap.add_argument("--rounds", type=int, default=9)
    args = ap.parse_args()
    make = rival_factory(args.path)
    print("CPU ms per call, median of alternating rounds (target: pipeviz at least 20x faster)")
    print(f"{'case':<26} {'ops':>6} {'rival':>9} {'pipeviz':>9} {'ratio':>7}")
    for schedule, P, m, V in CASES:
        rival = make(schedule, P, m, V)
        cfg = Config(schedule, P, m, V)
        ours = lambda cfg=cfg: run(cfg).metrics.makespan  # noqa: E731
        a, b = rival(), ours()
        if abs(a - b) > 1e-9 * max(1.0, abs(a)):
            sys.exit(f"makespans differ for {schedule} {(P, m, V)}: rival {a}, pipeviz {b}")
        n_ops = run(cfg).order.n_ops
        reps_r = max(1, int(2000 / n_ops))
        reps_o = max(5, int(200_000 / n_ops))
        t_r, t_o = [], []
        for _ in range(args.rounds):
            t_r.append(cpu_ms(rival, reps_r))
            t_o.append(cpu_ms(ours, reps_o))
        mr, mo = statistics.median(t_r), statistics.median(t_o)
        label = f"{schedule} ({P}, {m}, {V})"
        print(f"{label:<26} {n_ops:>6} {mr:>9.2f} {mo:>9.3f} {mr / mo:>6.0f}x")


if __name__ == "__main__":
    main()
