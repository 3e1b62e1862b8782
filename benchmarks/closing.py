"""Time the closing section's extras: the encoder's placements and BPipe balancing.

    .venv/bin/python benchmarks/closing.py [--repeat N]

For each size, the time of a plain run (generate, simulate, measure) and the extra
time each placement of an encoder (e_f = 0.5, e_b = 1) and balancing add to it, as
medians in ms. `bubbles` times the pipeline between its first slots once more to
read the gaps (and again per further round), then places every other encoder op by
one numpy pass over the gaps; its extra time grows with m times the gaps.
"""

from __future__ import annotations

import argparse

from timing import median_ms  # benchmarks/timing.py

from pipeviz import Config, run
from pipeviz.config import PLACES, Encoder

SIZES = [("1f1b", 4, 8, 1), ("1f1b", 8, 32, 1), ("interleaved", 8, 32, 2), ("zb-h1", 16, 64, 1),
         ("interleaved", 16, 64, 4), ("1f1b", 32, 256, 1), ("interleaved", 32, 128, 8), ("interleaved", 32, 256, 4)]



def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=0, help="runs per cell (default: adaptive)")
    args = ap.parse_args()
    head = ("schedule", "P", "m", "V", "ops", "plain", *(f"+{p}" for p in PLACES), "+bpipe")
    print(f"{head[0]:<12} {head[1]:>3} {head[2]:>4} {head[3]:>2} {head[4]:>7}"
          + "".join(f" {h:>10}" for h in head[5:]) + "  ms")
    for name, P, m, V in SIZES:
        cfg = Config(name, P, m, V)
        ops = run(cfg).order.n_ops
        repeat = args.repeat or max(3, min(40, int(100_000 / ops)))
        plain = median_ms(lambda cfg=cfg: run(cfg), repeat)
        cells = [plain]
        for place in PLACES:
            c = cfg.replace(encoder=Encoder(0.5, 1.0, place))
            cells.append(median_ms(lambda c=c: run(c), repeat) - plain)
        c = cfg.replace(balance="bpipe")
        cells.append(median_ms(lambda c=c: run(c), repeat) - plain)
        print(f"{name:<12} {P:>3} {m:>4} {V:>2} {ops:>7}" + "".join(f" {x:>10.2f}" for x in cells))


if __name__ == "__main__":
    main()
