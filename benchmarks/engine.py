"""Time to generate, simulate and measure each schedule at growing sizes.

    .venv/bin/python benchmarks/engine.py [--repeat N]

Prints a table of median times (ms) with op counts. Schedules that run a fixed V
(1 for gpipe, 1f1b, zb-h1, zb-h2; 2 for zb-v) run at their own V in each row.
zb-h2's, v-half's and v-min's orders come from greedy passes run once per (P, m) and
cached; their `generate` column is the uncached time.
"""

from __future__ import annotations

import argparse

from timing import median_ms  # benchmarks/timing.py

from pipeviz import NAMES, SCHEDULES, Config
from pipeviz.metrics import measure
from pipeviz.schedules import building_blocks, zb_h2
from pipeviz.simulate import simulate

SIZES = [(4, 8, 1), (8, 32, 2), (16, 64, 4), (32, 256, 4), (64, 512, 4)]



def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=0, help="runs per cell (default: adaptive)")
    args = ap.parse_args()
    head = ("schedule", "P", "m", "V", "ops", "generate", "simulate", "measure", "total")
    widths = (-12, 3, 4, 2, 8, 9, 9, 8, 8)
    print(" ".join(f"{h:<{-w}}" if w < 0 else f"{h:>{w}}" for h, w in zip(head, widths)) + "  ms")
    for P, m, V in SIZES:
        for name in NAMES:
            spec = SCHEDULES[name]
            cfg = Config(name, P, m, spec.fixed_V or V)
            repeat = args.repeat or max(3, min(50, int(200_000 / spec.n_ops(cfg))))

            def gen(spec=spec, cfg=cfg):
                zb_h2.greedy_steady.cache_clear()
                building_blocks._schedule.cache_clear()
                return spec.generate(cfg)

            order = gen()
            tl = simulate(order, cfg.costs)
            t_gen = median_ms(gen, repeat)
            t_sim = median_ms(lambda order=order, cfg=cfg: simulate(order, cfg.costs), repeat)
            t_met = median_ms(lambda tl=tl: measure(tl), repeat)
            total = t_gen + t_sim + t_met
            print(f"{name:<12} {P:>3} {m:>4} {cfg.V:>2} {order.n_ops:>8} {t_gen:>9.2f} {t_sim:>9.2f} {t_met:>8.2f} {total:>8.2f}")
        print()


if __name__ == "__main__":
    main()
