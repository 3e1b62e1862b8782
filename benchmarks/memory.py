"""Time the memory view's extra work beside the engine's: bytes per rank over time
(`memory.measure_memory`), the bubble's parts (`decompose.bubble_parts`, two more
simulations of the same order) and a weighted run against an unweighted one.

    .venv/bin/python benchmarks/memory.py [--repeat N]

Prints median times (ms) per schedule and size, with op counts.
"""

from __future__ import annotations

import argparse

from timing import median_ms  # benchmarks/timing.py

from pipeviz import NAMES, SCHEDULES, Config, run
from pipeviz.decompose import bubble_parts
from pipeviz.memory import measure_memory, preset, stage_weights

SIZES = [(4, 8, 1), (8, 32, 2), (16, 64, 4), (32, 256, 4), (64, 512, 4)]



def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=0, help="runs per cell (default: adaptive)")
    args = ap.parse_args()
    head = ("schedule", "P", "m", "V", "ops", "run", "run(w)", "memory", "parts")
    widths = (-12, 3, 4, 2, 8, 8, 8, 8, 8)
    print(" ".join(f"{h:<{-w}}" if w < 0 else f"{h:>{w}}" for h, w in zip(head, widths)) + "  ms")
    for P, m, V in SIZES:
        for name in NAMES:
            spec = SCHEDULES[name]
            cfg = Config(name, P, m, spec.fixed_V or V)
            S = spec.chunks_per_rank(cfg.V) * P
            # Llama-2 70B's 80 layers (2S+1 where S > 40) over S stages: uneven, so the weights differ.
            model = preset("llama2-70b", embed=1.0, head=2.0, L=max(80, 2 * S + 1))
            weighted = cfg.replace(stage_weights=stage_weights(model, S))
            repeat = args.repeat or max(3, min(30, int(100_000 / spec.n_ops(cfg))))
            res = run(weighted)
            t_run = median_ms(lambda cfg=cfg: run(cfg), repeat)
            t_wrun = median_ms(lambda c=weighted: run(c), repeat)
            t_mem = median_ms(lambda res=res, model=model: measure_memory(res.timeline, model), repeat)
            t_parts = median_ms(lambda res=res: bubble_parts(res), repeat)
            print(f"{name:<12} {P:>3} {m:>4} {cfg.V:>2} {res.order.n_ops:>8} {t_run:>8.2f} {t_wrun:>8.2f} "
                  f"{t_mem:>8.2f} {t_parts:>8.2f}")
        print()


if __name__ == "__main__":
    main()
